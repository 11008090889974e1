package modelenv

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

// The model repository's pyproject.toml, as the Cloudcoil template renders it (the
// integration's overlay appended after the codegen entry):
//
//	[project]
//	name = "cloudcoil.models.cert_manager"
//	version = "0.0.0"
//	dependencies = [
//	    "cloudcoil>=0.4.0",
//	]
//	…
//	[[tool.cloudcoil.codegen.models]]
//	namespace = "cloudcoil.models.cert_manager"
//	input = [
//	    "https://github.com/cert-manager/cert-manager/releases/download/v1.17.1/cert-manager.crds.yaml",
//	]
//	crd-namespace = "io.cert-manager"
//
// The release lines are not in this file: the template renders them into a workflow (see
// LineConfig). The functions here read the file with the TOML parser and edit only the
// bytes of the values they set, keeping every other byte, so the file stays the
// template's.
const (
	PyprojectPath = "pyproject.toml"
	CodegenURLKey = "tool.cloudcoil.codegen.models.input" // in each [[…models]] entry
	// CodegenNamespaceKey is the generated package's import path, in each entry.
	CodegenNamespaceKey = "tool.cloudcoil.codegen.models.namespace"
)

// Project is the identity pyproject.toml declares.
type Project struct {
	Name, Version string
}

// ReadProject reads [project]'s literal name and version.
func ReadProject(data []byte) (Project, error) {
	doc, err := pytoml.Parse(PyprojectPath, data)
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
		return Project{}, fmt.Errorf("%s: [project] has no literal name = \"…\"", PyprojectPath)
	}
	if version == "" {
		return Project{}, fmt.Errorf("%s: [project] has no literal version = \"…\"; a model release sets it, so write one (not dynamic = [\"version\"])", PyprojectPath)
	}
	return Project{Name: name, Version: version}, nil
}

// SetVersion replaces [project]'s literal version, leaving every other byte alone.
func SetVersion(data []byte, version string) ([]byte, error) {
	if _, _, ok := ParseVersion(version); !ok {
		return nil, fmt.Errorf("set version: %q is not an <upstream>.<packaging> version X.Y.Z.N", version)
	}
	doc, err := pytoml.Parse(PyprojectPath, data)
	if err != nil {
		return nil, err
	}
	values := doc.StringValues("project.version")
	if len(values) != 1 {
		return nil, fmt.Errorf("%s: [project] has no literal version = \"…\" to set; write one (not dynamic = [\"version\"])", PyprojectPath)
	}
	return doc.Apply(pytoml.Edit{Value: values[0], Raw: pytoml.Quote(version)}), nil
}

// SelectUpstream points the generator at one configured upstream version: it must be one
// of the repository's release lines, and every codegen input URL (a string, or each string
// of an array, as the template writes it) is rewritten as the template's
// update_releases.yml rewrites pyproject.toml for a line, with
// `sed "s|<prefix>[0-9]\+\.[0-9]\+\.[0-9]\+/|<prefix><version>/|"`: the first version
// that follows the lines' prefix and ends a path segment becomes the line's, and nothing
// else in the URL changes. A version the asset's file name repeats stays as crd_urls has it
// (…/download/v2.17.0/keda-2.16.1-crds.yaml), as the maintainers' workflow fetches it
// (upstreams.DeriveSchemaURLs, which adoption checks lines against, is the same rewrite).
// Only the bytes of the changed URLs change.
func SelectUpstream(data []byte, lines LineConfig, upstream string) ([]byte, error) {
	doc, err := pytoml.Parse(PyprojectPath, data)
	if err != nil {
		return nil, err
	}
	if !slices.Contains(lines.Versions, upstream) {
		return nil, fmt.Errorf("%s: upstream %s is not one of the release lines %q; add it to versions in models/<name>/cookiecutter.yaml in Cloudcoil and let update-repos bring the template's change here",
			lines.Path, upstream, lines.Versions)
	}
	version, err := upstreams.ParseVersion(upstream)
	if err != nil {
		return nil, fmt.Errorf("%s: upstream %q: %w", lines.Path, upstream, err)
	}
	sed := regexp.MustCompile(regexp.QuoteMeta(lines.Prefix) + `[0-9]+\.[0-9]+\.[0-9]+/`)
	var edits []pytoml.Edit
	for _, v := range doc.StringValues(CodegenURLKey) {
		if v.Entry < 0 {
			continue // a [tool.cloudcoil.codegen.models] table, not an entry of the array
		}
		url := v.Text
		if !strings.Contains(url, lines.Prefix) {
			continue
		}
		if !sed.MatchString(url) {
			return nil, fmt.Errorf("%s:%d: input %q: no X.Y.Z/ after %q, so the release sed would leave it at its version", PyprojectPath, v.Line, url, lines.Prefix)
		}
		edits = append(edits, pytoml.Edit{Value: v, Raw: pytoml.Quote(upstreams.DeriveSchemaURLs([]string{url}, lines.Prefix, version)[0])})
	}
	if len(edits) == 0 {
		return nil, fmt.Errorf("%s: no [[tool.cloudcoil.codegen.models]] input URL contains %q (the version prefix %s names), so the upstream version cannot be selected; make crd_urls and version_replacement_sed in cookiecutter.yaml agree",
			PyprojectPath, lines.Prefix, lines.Path)
	}
	return doc.Apply(edits...), nil
}

// ParseVersion splits X.Y.Z.N into its upstream X.Y.Z and packaging N.
func ParseVersion(v string) (upstream string, packaging uint64, ok bool) {
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

// CompareVersions orders two X.Y.Z.N versions numerically; ok is false when either is not
// one.
func CompareVersions(a, b string) (cmp int, ok bool) {
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
func NewestUpstream(lines LineConfig) (string, error) {
	all, err := ReleaseLines(lines)
	if err != nil {
		return "", err
	}
	return all[len(all)-1].Upstream, nil
}
