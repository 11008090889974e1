package upstreams

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// Where the Cloudcoil generator repository declares its requirement on Cloudcoil, besides
// cloudcoil.version in models/upstreams.json (the version generation pins): the model
// template's pyproject.toml, whose [project] dependencies hold the runtime requirement
// ("cloudcoil>=X.Y.Z,<X.(Y+1)") and whose dev dependency group holds the generation
// requirement ("cloudcoil[codegen,…]>=X.Y.Z,<X.(Y+1)"). The template is a Jinja file,
// not TOML, so requirements are found as the quoted strings that name the package.
const TemplatePyproject = "cookiecutter/models-{{ cookiecutter.model_name }}/pyproject.toml"

// quoted is a TOML basic string on one line, without escapes (requirements have none).
var quoted = regexp.MustCompile(`"([^"\\\n]*)"`)

// requirementOf splits a PEP 508 requirement into its name, extras ("[codegen]" or "")
// and version specifier.
var requirementOf = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*?)\s*(;.*)?$`)

// RaiseRequirement moves the lower bound of every requirement on pkg in data (the file at
// path) to version, keeping its upper bound, extras and spelling: the shared runtime and
// generation requirements advance only within their compatible minor. Each requirement
// must read ">=A,<B" with A in minor and B the next minor (B = X.(Y+1)); one that does not
// is an error naming the file, line and fix, since moving it is a migration. A bound
// already at or above version stays. found counts the requirements on pkg; zero means the
// file declares none.
func RaiseRequirement(path string, data []byte, pkg string, minor Line, version string) (out []byte, found int, err error) {
	to, ok := parseFinalPy(version)
	if !ok || !releasesOf(minor).Check(to.v.semver()) {
		return nil, 0, fmt.Errorf("%s: cannot raise %s to %q: not a final release of the compatible minor %s", path, pkg, version, minor)
	}
	changed := false
	var b bytes.Buffer
	at := 0
	for _, m := range quoted.FindAllSubmatchIndex(data, -1) {
		req := string(data[m[2]:m[3]])
		parts := requirementOf.FindStringSubmatch(req)
		if parts == nil || NormalizeName(parts[1]) != NormalizeName(pkg) {
			continue
		}
		found++
		line := 1 + bytes.Count(data[:m[0]], []byte("\n"))
		lower, lowerAt, err := checkMinorRange(parts[3], minor)
		if err != nil {
			return nil, 0, fmt.Errorf("%s:%d: %q: %w; moving Cloudcoil to another minor is a deliberate migration: edit it by hand", path, line, req, err)
		}
		if lower.compare(to) >= 0 {
			continue
		}
		// The lower bound's text sits at lowerAt within the specifier, which starts where
		// the requirement's specifier does.
		specStart := m[2] + strings.Index(req, parts[3])
		start := specStart + lowerAt
		b.Write(data[at:start])
		b.WriteString(version)
		at = start + len(lower.text)
		changed = true
	}
	if !changed {
		return data, found, nil
	}
	b.Write(data[at:])
	return b.Bytes(), found, nil
}

// checkMinorRange reads a specifier ">=A,<B" (in either order, spaces allowed) and checks
// that it is exactly the minor's range from A: A in minor, B its next minor. It returns
// A and where A's text starts in spec.
func checkMinorRange(spec string, minor Line) (pyVersion, int, error) {
	var lower pyVersion
	lowerAt, haveUpper := -1, false
	offset := 0
	for _, clause := range strings.Split(spec, ",") {
		c := strings.TrimSpace(clause)
		clauseAt := offset + strings.Index(clause, c)
		offset += len(clause) + 1
		switch {
		case strings.HasPrefix(c, ">="):
			text := strings.TrimSpace(c[2:])
			v, ok := parseFinalPy(text)
			if !ok || !releasesOf(minor).Check(v.v.semver()) {
				return pyVersion{}, 0, fmt.Errorf("the lower bound %s is not a release of the compatible minor %s", text, minor)
			}
			lower, lowerAt = v, clauseAt+strings.Index(c, text)
		case strings.HasPrefix(c, "<") && !strings.HasPrefix(c, "<="):
			text := strings.TrimSpace(c[1:])
			v, ok := parseFinalPy(text)
			if !ok || v.v.Patch != 0 || v.v.Line() != (Line{Major: minor.Major, Minor: minor.Minor + 1}) {
				return pyVersion{}, 0, fmt.Errorf("the upper bound %s is not the next minor %d.%d", text, minor.Major, minor.Minor+1)
			}
			haveUpper = true
		default:
			return pyVersion{}, 0, fmt.Errorf("the clause %q is not >=X.Y.Z or <X.Y", c)
		}
	}
	if lowerAt < 0 || !haveUpper {
		return pyVersion{}, 0, fmt.Errorf("want >=X.Y.Z,<X.(Y+1) within the compatible minor %s", minor)
	}
	return lower, lowerAt, nil
}
