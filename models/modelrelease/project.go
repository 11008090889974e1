package modelrelease

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/models/upstreams"
)

// The model repository's pyproject.toml, as the Cloudcoil template renders it:
//
//	[project]
//	name = "cloudcoil.models.cert_manager"
//	version = "1.17.1.0"
//	dependencies = ["cloudcoil>=0.5.3,<0.6"]
//
//	[tool.cloudcoil-models]
//	upstream-versions = ["1.16.3", "1.17.1"]   # one per minor line, from models/upstreams.json
//	version-prefix = "releases/download/v"     # what precedes the version in schema URLs
//
//	[[tool.cloudcoil.codegen.models]]
//	input = "https://github.com/cert-manager/cert-manager/releases/download/v1.17.1/…"
//
// The functions here read the file with the TOML parser and edit only the bytes of the
// values they set, keeping every other byte, so the file stays the template's.
const (
	pyprojectPath = "pyproject.toml"
	modelsTable   = "tool.cloudcoil-models"
	upstreamsKey  = "upstream-versions"
	versionPrefix = "version-prefix"
	codegenURLKey = "tool.cloudcoil.codegen.models.input" // in each [[…models]] entry
	// codegenNamespaceKey is the generated package's import path, in each entry.
	codegenNamespaceKey = "tool.cloudcoil.codegen.models.namespace"
)

var (
	versionInURL = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)`)
)

// Project is the identity pyproject.toml declares.
type Project struct {
	Name, Version string
}

// ReadProject reads [project]'s literal name and version.
func ReadProject(data []byte) (Project, error) {
	doc, err := pytoml.Parse(pyprojectPath, data)
	if err != nil {
		return Project{}, err
	}
	name, _, err := doc.String("project", "name")
	if err != nil {
		return Project{}, err
	}
	version, _, err := doc.String("project", "version")
	if err != nil {
		return Project{}, err
	}
	if name == "" {
		return Project{}, fmt.Errorf("%s: [project] has no literal name = \"…\"", pyprojectPath)
	}
	if version == "" {
		return Project{}, fmt.Errorf("%s: [project] has no literal version = \"…\"; a model release sets it, so write one (not dynamic = [\"version\"])", pyprojectPath)
	}
	return Project{Name: name, Version: version}, nil
}

// SetVersion replaces [project]'s literal version, leaving every other byte alone.
func SetVersion(data []byte, version string) ([]byte, error) {
	if _, _, ok := parseVersion(version); !ok {
		return nil, fmt.Errorf("set version: %q is not an <upstream>.<packaging> version X.Y.Z.N", version)
	}
	doc, err := pytoml.Parse(pyprojectPath, data)
	if err != nil {
		return nil, err
	}
	values := doc.StringValues("project.version")
	if len(values) != 1 {
		return nil, fmt.Errorf("%s: [project] has no literal version = \"…\" to set; write one (not dynamic = [\"version\"])", pyprojectPath)
	}
	return doc.Apply(pytoml.Edit{Value: values[0], Raw: pytoml.Quote(version)}), nil
}

// Upstreams reads [tool.cloudcoil-models]: the upstream versions this repository releases
// and the text that precedes a version in its schema URLs.
func Upstreams(data []byte) (versions []string, prefix string, err error) {
	doc, err := pytoml.Parse(pyprojectPath, data)
	if err != nil {
		return nil, "", err
	}
	return upstreamsOf(doc)
}

func upstreamsOf(doc *pytoml.Document) (versions []string, prefix string, err error) {
	versions, found, err := doc.Strings("tool", "cloudcoil-models", upstreamsKey)
	if err != nil {
		return nil, "", err
	}
	if !found {
		return nil, "", fmt.Errorf("%s: [%s] has no %s = [\"X.Y.Z\", …]; the model template writes it from models/upstreams.json", pyprojectPath, modelsTable, upstreamsKey)
	}
	for _, v := range versions {
		if _, err := upstreams.ParseVersion(v); err != nil {
			return nil, "", fmt.Errorf("%s: [%s] %s: %q is not an X.Y.Z version", pyprojectPath, modelsTable, upstreamsKey, v)
		}
	}
	prefix, _, err = doc.String("tool", "cloudcoil-models", versionPrefix)
	if err != nil {
		return nil, "", err
	}
	if prefix == "" {
		return nil, "", fmt.Errorf("%s: [%s] has no %s = \"…\" (the text before the version in schema URLs, e.g. \"refs/tags/v\")", pyprojectPath, modelsTable, versionPrefix)
	}
	return versions, prefix, nil
}

// SelectUpstream points the generator at one configured upstream version: it must be one
// of upstream-versions, and every codegen input URL has the version that follows
// version-prefix replaced by it (each occurrence of that version in the URL, since some
// release assets repeat it, as in …/download/v2.16.1/keda-2.16.1-crds.yaml).
func SelectUpstream(data []byte, upstream string) ([]byte, error) {
	doc, err := pytoml.Parse(pyprojectPath, data)
	if err != nil {
		return nil, err
	}
	versions, prefix, err := upstreamsOf(doc)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(versions, upstream) {
		return nil, fmt.Errorf("%s: upstream %s is not configured (%s = %q); add it to models/upstreams.json in Cloudcoil and let the template update reach this repository",
			pyprojectPath, upstream, upstreamsKey, versions)
	}
	var edits []pytoml.Edit
	for _, v := range doc.StringValues(codegenURLKey) {
		if v.Entry < 0 {
			continue // a [tool.cloudcoil.codegen.models] table, not an entry of the array
		}
		url := v.Text
		at := strings.Index(url, prefix)
		if at < 0 {
			continue
		}
		current := versionInURL.FindString(url[at+len(prefix):])
		if current == "" {
			return nil, fmt.Errorf("%s:%d: input %q: no X.Y.Z after %q", pyprojectPath, v.Line, url, prefix)
		}
		edits = append(edits, pytoml.Edit{Value: v, Raw: pytoml.Quote(strings.ReplaceAll(url, current, upstream))})
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("%s: no [[tool.cloudcoil.codegen.models]] input URL contains %q, so the upstream version cannot be selected", pyprojectPath, prefix)
	}
	return doc.Apply(edits...), nil
}

// parseVersion splits X.Y.Z.N into its upstream X.Y.Z and packaging N.
func parseVersion(v string) (upstream string, packaging uint64, ok bool) {
	v = strings.TrimPrefix(v, "v")
	i := strings.LastIndex(v, ".")
	if i < 0 {
		return "", 0, false
	}
	if _, err := upstreams.ParseVersion(v[:i]); err != nil {
		return "", 0, false
	}
	n, err := parseCanonical(v[i+1:])
	if err != nil {
		return "", 0, false
	}
	return v[:i], n, true
}

var errNotCanonical = errors.New("not a canonical number")

func parseCanonical(s string) (uint64, error) {
	if s == "" || (len(s) > 1 && s[0] == '0') || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errNotCanonical
	}
	return strconv.ParseUint(s, 10, 64)
}

// compareVersions orders two X.Y.Z.N versions numerically; ok is false when either is not
// one.
func compareVersions(a, b string) (cmp int, ok bool) {
	pa, okA := versionParts(a)
	pb, okB := versionParts(b)
	if !okA || !okB {
		return 0, false
	}
	for i := range pa {
		switch {
		case pa[i] < pb[i]:
			return -1, true
		case pa[i] > pb[i]:
			return 1, true
		}
	}
	return 0, true
}

func versionParts(v string) ([4]uint64, bool) {
	var out [4]uint64
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if len(parts) != 4 {
		return out, false
	}
	for i, p := range parts {
		n, err := parseCanonical(p)
		if err != nil {
			return out, false
		}
		out[i] = n
	}
	return out, true
}

// NewestUpstream is the highest configured upstream version: the one main's checkout
// generates, and what a push to main releases when no version is named.
func NewestUpstream(pyproject []byte) (string, error) {
	versions, _, err := Upstreams(pyproject)
	if err != nil {
		return "", err
	}
	if len(versions) == 0 {
		return "", fmt.Errorf("%s: [%s] %s is empty: list the upstream versions this repository releases", pyprojectPath, modelsTable, upstreamsKey)
	}
	var newest upstreams.Version
	for i, v := range versions {
		u, err := upstreams.ParseVersion(v) // checked by Upstreams
		if err != nil {
			return "", fmt.Errorf("%s: [%s] %s: %w", pyprojectPath, modelsTable, upstreamsKey, err)
		}
		if i == 0 || u.Compare(newest) > 0 {
			newest = u
		}
	}
	return newest.String(), nil
}
