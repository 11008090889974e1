package upstreams

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"dagger/shipyard/internal/reponame"
)

// FilePath is where the upstreams file lives in the generator repository; every message
// about the file starts with it so a reader knows which file to open.
const FilePath = "models/upstreams.json"

// Update policies of an integration: every integration names one. Both apply the patches
// of each tracked line; they differ in what a newer minor or major proposes.
const (
	// PolicyNewestMinor tracks one line, the newest: a newer minor or major is proposed as
	// a replacement of that line (the real history: cert-manager 1.16.3 became 1.17.1).
	PolicyNewestMinor = "newest-minor"
	// PolicyMaintainedLines keeps MaintainedLines lines (Kubernetes: four minors): a newer
	// minor is proposed as an added line, and the oldest lines beyond the count are retired
	// in the same proposal, as they reach upstream end of life.
	PolicyMaintainedLines = "maintained-lines"
)

// File is models/upstreams.json. The file is machine-formatted: Marshal writes it back with
// two-space indentation, keys in the order of these struct fields (integrations sorted by
// name) and a trailing newline, so automated edits produce minimal diffs.
type File struct {
	Cloudcoil    Cloudcoil               `json:"cloudcoil"`
	Integrations map[string]*Integration `json:"integrations"`

	// Problems are the integrations Parse set aside: each entry that does not read or
	// breaks a rule is left out of Integrations, kept as written in skipped (Marshal writes
	// it back unchanged), and named here with its fix, so one bad entry never stops the
	// others.
	Problems []Problem                  `json:"-"`
	skipped  map[string]json.RawMessage // the set-aside entries, as written
}

// Cloudcoil is the requirement on the Cloudcoil package shared by the runtime and the
// generation requirements of every model package.
type Cloudcoil struct {
	// Package is the distribution name on PyPI ("cloudcoil").
	Package string `json:"package"`
	// Version is the version currently required, a final release X.Y or X.Y.Z.
	Version string `json:"version"`
	// Minor is the compatible minor line ("0.5"): updates stay within it; a newer minor
	// needs a deliberate migration.
	Minor string `json:"minor"`
}

// Integration is one upstream project whose schemas become a model package.
type Integration struct {
	// Name is the integration's key in the file and its folder under models/.
	Name string `json:"-"`
	// Repository is the upstream GitHub repository, "owner/name".
	Repository string `json:"repository"`
	// TagPrefix maps tags to versions: a release tag is exactly TagPrefix + "X.Y.Z". It is a
	// pointer because the empty prefix (Istio) is a real setting, distinct from absent.
	TagPrefix *string `json:"tag_prefix,omitempty"`
	// TagPattern is the alternative to TagPrefix: a regular expression matched against the
	// whole tag, with one named group "version" that must capture exactly "X.Y.Z".
	TagPattern string `json:"tag_pattern,omitempty"`
	// Versions is the generation matrix: one version per tracked minor line, ascending;
	// cookiecutter.yaml's versions holds the same release lines.
	Versions []string `json:"versions"`
	// SchemaURLs are the schema files of one version; a file may apply to a range of
	// versions only, so a URL layout can change at a given version.
	SchemaURLs []SchemaURL `json:"schema_urls"`
	// Policy is PolicyNewestMinor or PolicyMaintainedLines.
	Policy string `json:"policy"`
	// MaintainedLines is how many lines PolicyMaintainedLines keeps.
	MaintainedLines int `json:"maintained_lines,omitempty"`
	// Declined is a proposal a maintainer turned down, "X.Y.Z": no release up to it is
	// proposed again, and the next newer one is. It lives in the file on the base branch
	// because every run rebuilds the pull request's branch from there.
	Declined string `json:"declined,omitempty"`

	pattern *regexp.Regexp // compiled TagPattern, set by Validate
}

// SchemaURL is one schema file. URL holds the placeholder {version} ("X.Y.Z", without the tag
// prefix; spell the prefix in the URL). Since (inclusive) and Until (exclusive) bound the
// versions the file applies to, each "X.Y" or "X.Y.Z"; empty means unbounded.
type SchemaURL struct {
	URL   string `json:"url"`
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
}

// VersionPlaceholder is the only placeholder a schema URL may hold.
const VersionPlaceholder = "{version}"

// The fields each object of the file may have; anything else is a typo to reject.
var (
	topKeys         = []string{"cloudcoil", "integrations"}
	cloudcoilKeys   = []string{"package", "version", "minor"}
	integrationKeys = []string{"repository", "tag_prefix", "tag_pattern", "versions", "schema_urls", "policy", "maintained_lines", "declined"}
	schemaURLKeys   = []string{"url", "since", "until"}
)

// Parse reads and validates models/upstreams.json. Unknown and duplicate fields are errors
// naming their path, as are the rule violations Validate reports.
func Parse(b []byte) (*File, error) {
	top, err := objectFields(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FilePath, err)
	}
	f := &File{}
	var errs []error
	fail := func(path string, err error) { errs = append(errs, fmt.Errorf("%s: %s: %w", FilePath, path, err)) }
	seen := map[string]bool{}
	for _, kv := range top {
		seen[kv.key] = true
		switch kv.key {
		case "cloudcoil":
			if err := decodeObject(kv.value, cloudcoilKeys, &f.Cloudcoil); err != nil {
				fail("cloudcoil", err)
			}
		case "integrations":
			entries, err := objectFields(kv.value)
			if err != nil {
				fail("integrations", err)
				continue
			}
			f.Integrations = make(map[string]*Integration, len(entries))
			for _, e := range entries {
				in, err := decodeIntegration(e.value)
				if err != nil {
					f.setAside(e.key, e.value, []error{fmt.Errorf("%s: integrations.%s: %w", FilePath, e.key, err)})
					continue
				}
				in.Name = e.key
				f.Integrations[e.key] = in
			}
		default:
			fail(kv.key, errUnknownField(topKeys))
		}
	}
	for _, k := range topKeys {
		if !seen[k] {
			fail(k, errors.New("missing"))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if errs := f.validateShared(); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	raw := map[string]json.RawMessage{}
	for _, kv := range top {
		if kv.key == "integrations" {
			entries, _ := objectFields(kv.value) // read above
			for _, e := range entries {
				raw[e.key] = e.value
			}
		}
	}
	for _, name := range f.Names() {
		if errs := f.Integrations[name].validate(name); len(errs) > 0 {
			delete(f.Integrations, name)
			f.setAside(name, raw[name], errs)
		}
	}
	return f, nil
}

// setAside leaves an integration out of the run, keeping its entry as written.
func (f *File) setAside(name string, raw json.RawMessage, errs []error) {
	if f.skipped == nil {
		f.skipped = map[string]json.RawMessage{}
	}
	// As written, duplicates and key order included: decoding it would quietly repair it.
	f.skipped[name] = raw
	// The problem names its file once: the validation errors start with it too.
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = strings.TrimPrefix(err.Error(), FilePath+": ")
	}
	f.Problems = append(f.Problems, Problem{
		Integration: name, File: FilePath,
		Problem: strings.Join(msgs, "; "),
		Fix:     "correct the entry as the message says; the other integrations were updated without it",
	})
}

func decodeIntegration(raw json.RawMessage) (*Integration, error) {
	in := &Integration{}
	if err := decodeObject(raw, integrationKeys, in); err != nil {
		return nil, err
	}
	// Schema URL entries are objects too: check their fields with their index in the path.
	fields, _ := objectFields(raw) // already known to be an object
	for _, kv := range fields {
		if kv.key != "schema_urls" {
			continue
		}
		var items []json.RawMessage
		if err := json.Unmarshal(kv.value, &items); err != nil {
			return nil, fmt.Errorf("schema_urls: %w", err)
		}
		for i, item := range items {
			if err := decodeObject(item, schemaURLKeys, &SchemaURL{}); err != nil {
				return nil, fmt.Errorf("schema_urls[%d]: %w", i, err)
			}
		}
	}
	return in, nil
}

// decodeObject unmarshals an object after checking that it has only the allowed fields,
// each at most once (encoding/json would silently keep the last duplicate).
func decodeObject(raw json.RawMessage, allowed []string, v any) error {
	fields, err := objectFields(raw)
	if err != nil {
		return err
	}
	for _, kv := range fields {
		if !slices.Contains(allowed, kv.key) {
			return fmt.Errorf("%s: %w", kv.key, errUnknownField(allowed))
		}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return err
	}
	return nil
}

func errUnknownField(allowed []string) error {
	return fmt.Errorf("unknown field (known: %s)", strings.Join(allowed, ", "))
}

type keyValue struct {
	key   string
	value json.RawMessage
}

// objectFields returns the members of a JSON object in document order, refusing duplicates
// and anything that is not exactly one object.
func objectFields(raw []byte) ([]keyValue, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("must be an object")
	}
	var out []keyValue
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %w", err)
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("invalid JSON: object key is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: invalid JSON: %w", key, err)
		}
		if seen[key] {
			return nil, fmt.Errorf("%s: duplicate field", key)
		}
		seen[key] = true
		out = append(out, keyValue{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("invalid JSON: trailing data after the object")
	}
	return out, nil
}

var (
	integrationName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	packageName     = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	placeholder     = regexp.MustCompile(`\{[^{}]*\}`)
)

// Validate checks the rules Parse cannot express as types. Each message names the file, the
// integration and the field. It also compiles tag patterns for ReleaseVersion.
func (f *File) Validate() []error {
	errs := f.validateShared()
	for _, name := range f.Names() {
		errs = append(errs, f.Integrations[name].validate(name)...)
	}
	return errs
}

// problems are the file's validation errors, each led by the file and the path of the
// field it is about (integrations.keda.versions[1]), so a maintainer finds the line.
type problems []error

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, fmt.Errorf("%s: %s: %s", FilePath, path, fmt.Sprintf(format, args...)))
}

// validateShared checks the cloudcoil section, which every integration depends on.
func (f *File) validateShared() []error {
	var errs problems
	fail := errs.add

	c := f.Cloudcoil
	if !packageName.MatchString(c.Package) {
		fail("cloudcoil.package", "%q is not a PyPI project name", c.Package)
	}
	minor, err := ParseLine(c.Minor)
	if err != nil {
		fail("cloudcoil.minor", "%v", err)
	}
	if v, ok := parseFinalPy(c.Version); !ok {
		fail("cloudcoil.version", "%q is not a final release X.Y or X.Y.Z", c.Version)
	} else if err == nil && v.line() != minor {
		fail("cloudcoil.version", "%s is outside the compatible minor %s", c.Version, c.Minor)
	}

	return errs
}

// validate checks one integration's entry.
func (in *Integration) validate(name string) []error {
	var errs problems
	fail := errs.add
	p := "integrations." + name
	if in == nil {
		fail(p, "must be an object")
		return errs
	}
	in.Name = name
	if !integrationName.MatchString(name) {
		fail(p, "name must be lower-case letters, digits and dashes (it is the folder under models/)")
	}
	if _, err := reponame.Parse(in.Repository); err != nil {
		fail(p+".repository", "%q is not a GitHub repository owner/name (%v)", in.Repository, err)
	}
	errs = append(errs, in.validateTags(p)...)
	errs = append(errs, in.validateMatrix(p)...)
	errs = append(errs, in.validateSchemaURLs(p)...)
	if in.Declined != "" {
		if _, err := ParseVersion(in.Declined); err != nil {
			fail(p+".declined", "%v: name the declined release as X.Y.Z", err)
		}
	}
	return errs
}

func (in *Integration) validateTags(p string) []error {
	var errs problems
	fail := errs.add
	in.pattern = nil
	switch {
	case in.TagPrefix != nil && in.TagPattern != "":
		fail(p, "set exactly one of tag_prefix and tag_pattern, not both")
	case in.TagPrefix == nil && in.TagPattern == "":
		fail(p, "set exactly one of tag_prefix and tag_pattern (tag_prefix \"\" means bare X.Y.Z tags)")
	case in.TagPrefix != nil:
		pre := *in.TagPrefix
		if strings.ContainsAny(pre, " \t\r\n") {
			fail(p+".tag_prefix", "%q contains white space", pre)
		}
		if pre != "" && strings.ContainsRune("0123456789.", rune(pre[len(pre)-1])) {
			fail(p+".tag_prefix", "%q must not end with a digit or a dot: the version would be ambiguous", pre)
		}
	default:
		re, err := compilePattern(in.TagPattern)
		if err != nil {
			fail(p+".tag_pattern", "%v", err)
		} else {
			in.pattern = re
		}
	}
	return errs
}

// compilePattern anchors the pattern on the whole tag and checks its single "version" group.
func compilePattern(pattern string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, fmt.Errorf("%q does not compile: %w", pattern, err)
	}
	var named []string
	for _, n := range re.SubexpNames() {
		if n != "" {
			named = append(named, n)
		}
	}
	if len(named) != 1 || named[0] != "version" {
		return nil, fmt.Errorf("%q must have exactly one named group, (?P<version>…), and no other", pattern)
	}
	return re, nil
}

func (in *Integration) validateMatrix(p string) []error {
	var errs problems
	fail := errs.add
	if len(in.Versions) == 0 {
		fail(p+".versions", "must list at least one version")
	}
	var prev *Version
	lines := map[Line]bool{}
	for i, s := range in.Versions {
		v, err := ParseVersion(s)
		if err != nil {
			fail(fmt.Sprintf("%s.versions[%d]", p, i), "%v", err)
			continue
		}
		if lines[v.Line()] {
			fail(fmt.Sprintf("%s.versions[%d]", p, i), "%s repeats the minor line %s: track one version per line", s, v.Line())
		}
		lines[v.Line()] = true
		if prev != nil && v.Compare(*prev) < 0 {
			fail(fmt.Sprintf("%s.versions[%d]", p, i), "%s comes after %s: keep the matrix in ascending order", s, prev)
		}
		prev = &v
	}

	switch in.Policy {
	case PolicyNewestMinor:
		if in.MaintainedLines != 0 {
			fail(p+".maintained_lines", "only allowed with policy %q", PolicyMaintainedLines)
		}
		if len(in.Versions) > 1 {
			fail(p+".versions", "policy %q tracks one line, the newest; for several lines use %q with maintained_lines", PolicyNewestMinor, PolicyMaintainedLines)
		}
	case PolicyMaintainedLines:
		if in.MaintainedLines < 1 {
			fail(p+".maintained_lines", "policy %q needs how many lines are kept (at least 1)", PolicyMaintainedLines)
		} else if len(in.Versions) > in.MaintainedLines {
			fail(p+".versions", "%d lines, more than maintained_lines %d: retire the oldest", len(in.Versions), in.MaintainedLines)
		}
	case "":
		fail(p+".policy", "missing: set %q (one line, a newer minor replaces it) or %q with maintained_lines (a newer minor is added, the oldest retired)", PolicyNewestMinor, PolicyMaintainedLines)
	default:
		fail(p+".policy", "%q is not a policy (want %q or %q)", in.Policy, PolicyNewestMinor, PolicyMaintainedLines)
	}
	return errs
}

func (in *Integration) validateSchemaURLs(p string) []error {
	var errs problems
	fail := errs.add
	if len(in.SchemaURLs) == 0 {
		fail(p+".schema_urls", "must list at least one schema file")
	}
	for i, su := range in.SchemaURLs {
		q := fmt.Sprintf("%s.schema_urls[%d]", p, i)
		if !strings.HasPrefix(su.URL, "https://") {
			fail(q+".url", "%q must be an https:// URL", su.URL)
		}
		if !strings.Contains(su.URL, VersionPlaceholder) {
			fail(q+".url", "%q has no %s placeholder", su.URL, VersionPlaceholder)
		}
		for _, ph := range placeholder.FindAllString(su.URL, -1) {
			if ph != VersionPlaceholder {
				fail(q+".url", "unknown placeholder %s (only %s)", ph, VersionPlaceholder)
			}
		}
		if strings.ContainsAny(su.URL, " \t\r\n,") {
			// A comma would split the URL where cookiecutter.yaml joins schema files.
			fail(q+".url", "%q contains white space or a comma", su.URL)
		}
		var since, until Version
		var errSince, errUntil error
		if su.Since != "" {
			if since, errSince = parseBound(su.Since); errSince != nil {
				fail(q+".since", "%v", errSince)
			}
		}
		if su.Until != "" {
			if until, errUntil = parseBound(su.Until); errUntil != nil {
				fail(q+".until", "%v", errUntil)
			}
		}
		if su.Since != "" && su.Until != "" && errSince == nil && errUntil == nil && since.Compare(until) >= 0 {
			fail(q, "since %s must be lower than until %s", su.Since, su.Until)
		}
	}
	for i, s := range in.Versions {
		v, err := ParseVersion(s)
		if err != nil {
			continue
		}
		if urls, err := in.SchemaURLsFor(v); err == nil && len(urls) == 0 {
			fail(fmt.Sprintf("%s.versions[%d]", p, i), "no schema_urls entry applies to %s", s)
		}
	}
	return errs
}

// Names returns the integration names in sorted order: every loop over integrations uses it
// so plans and messages are deterministic.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Integrations))
	for n := range f.Integrations {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Matrix returns the parsed generation matrix in ascending order.
func (in *Integration) Matrix() ([]Version, error) {
	out := make([]Version, 0, len(in.Versions))
	for _, s := range in.Versions {
		v, err := ParseVersion(s)
		if err != nil {
			return nil, fmt.Errorf("%s: integrations.%s.versions: %w", FilePath, in.Name, err)
		}
		out = append(out, v)
	}
	slices.SortFunc(out, Version.Compare)
	return out, nil
}

// SchemaURLsFor renders the schema files that apply to v, in file order.
func (in *Integration) SchemaURLsFor(v Version) ([]string, error) {
	var out []string
	for i, su := range in.SchemaURLs {
		if su.Since != "" {
			since, err := parseBound(su.Since)
			if err != nil {
				return nil, fmt.Errorf("%s: integrations.%s.schema_urls[%d].since: %w", FilePath, in.Name, i, err)
			}
			if v.Compare(since) < 0 {
				continue
			}
		}
		if su.Until != "" {
			until, err := parseBound(su.Until)
			if err != nil {
				return nil, fmt.Errorf("%s: integrations.%s.schema_urls[%d].until: %w", FilePath, in.Name, i, err)
			}
			if v.Compare(until) >= 0 {
				continue
			}
		}
		out = append(out, strings.ReplaceAll(su.URL, VersionPlaceholder, v.String()))
	}
	return out, nil
}

// Marshal writes the file in its stable machine format (see File). Entries Parse set aside
// are written back with their content unchanged.
func (f *File) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // keep & and < in URLs readable
	out := struct {
		Cloudcoil    Cloudcoil      `json:"cloudcoil"`
		Integrations map[string]any `json:"integrations"`
	}{Cloudcoil: f.Cloudcoil, Integrations: map[string]any{}}
	for name, in := range f.Integrations {
		out.Integrations[name] = in
	}
	for name, v := range f.skipped {
		out.Integrations[name] = v
	}
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("%s: encode: %w", FilePath, err)
	}
	return buf.Bytes(), nil
}

// Requirement is the PEP 508 requirement the shared runtime and generation requirements
// carry: at least the current version, below the next minor ("cloudcoil>=0.5.3,<0.6").
// It is empty when the section is invalid.
func (c Cloudcoil) Requirement() string {
	minor, err := ParseLine(c.Minor)
	if _, ok := parseFinalPy(c.Version); err != nil || !ok || !packageName.MatchString(c.Package) {
		return ""
	}
	return fmt.Sprintf("%s>=%s,<%d.%d", c.Package, c.Version, minor.Major, minor.Minor+1)
}
