package upstreams

import (
	"fmt"
	"regexp"
	"strings"
)

// VersioningPath is the Cloudcoil repository's versioning policy, whose install examples
// recommend the core's minor ("cloudcoil[fluxcd]~=0.5.0").
const VersioningPath = "VERSIONING.md"

// MinorEvidence is what says which Cloudcoil minor the model packages stand on.
type MinorEvidence struct {
	// Requirement is the template's runtime requirement on Cloudcoil, as written
	// ("cloudcoil>=0.4.0"), and At where ("<file>:<line>"); empty when there is none.
	Requirement, At string
	// Releases are Cloudcoil's final, unyanked versions on PyPI.
	Releases []string
	// Recommended is the specifier VERSIONING.md recommends ("~=0.5.0"), "" when it names
	// none.
	Recommended string
	// Locked are the Cloudcoil versions model repositories lock, where known.
	Locked []string
}

// MinorDecision is the current minor and why.
type MinorDecision struct {
	Minor Line
	// Version is the newest release of Minor on PyPI, or the requirement's lower bound
	// when PyPI has none.
	Version string
	// Reasons are the evidence, one sentence each, agreeing or not.
	Reasons []string
	// Migration says what moves the template onto Minor, "" when it stands on it: the
	// requirement's lower bound names an older minor than the one it resolves to.
	Migration string
}

// CurrentMinor decides the Cloudcoil minor the model packages stand on: the minor of the
// newest release the template's requirement admits, which is what the template's hook
// (uv add cloudcoil -U, which keeps an existing requirement and locks the newest release it
// admits) gives every generated repository. The lower bound alone says less: ">=0.4.0"
// admits every later minor. VERSIONING.md's recommendation and the repositories' locks are
// reported beside it, agreeing or not. Without releases, the lower bound's minor stands.
func CurrentMinor(e MinorEvidence) (MinorDecision, error) {
	if e.Requirement == "" {
		return MinorDecision{}, fmt.Errorf("%s: no requirement on cloudcoil: nothing says which Cloudcoil the models need", TemplatePyproject)
	}
	spec := requirementOf.FindStringSubmatch(e.Requirement)[3]
	clauses, err := parseSpecifier(spec)
	if err != nil {
		return MinorDecision{}, fmt.Errorf("%s: %q: %w", e.At, e.Requirement, err)
	}
	lower, hasLower := clauses.lower()
	if !hasLower {
		return MinorDecision{}, fmt.Errorf("%s: %q has no lower bound >=X.Y.Z, so nothing fixes the Cloudcoil minor; write cloudcoil>=X.Y.Z", e.At, e.Requirement)
	}
	var d MinorDecision
	var newest *pyVersion
	for _, r := range e.Releases {
		v, ok := parseFinalPy(r)
		if ok && clauses.admit(v) && (newest == nil || v.compare(*newest) > 0) {
			newest = &v
		}
	}
	if newest == nil {
		d.Minor, d.Version = lower.line(), lower.text
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s requires %q and PyPI lists no release it admits, so its lower bound's minor %s stands", e.At, e.Requirement, d.Minor))
	} else {
		d.Minor, d.Version = newest.line(), newest.text
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s requires %q; the template's hook (uv add cloudcoil -U) keeps it and locks the newest release it admits, %s", e.At, e.Requirement, newest.text))
	}
	if e.Recommended != "" {
		agrees := "agrees"
		if rec, err := parseSpecifier(e.Recommended); err != nil {
			agrees = "cannot be read (" + err.Error() + ")"
		} else if low, ok := rec.lower(); !ok || low.line() != d.Minor {
			agrees = "disagrees"
		}
		d.Reasons = append(d.Reasons, fmt.Sprintf("%s recommends cloudcoil%s: %s", VersioningPath, e.Recommended, agrees))
	}
	if len(e.Locked) > 0 {
		var other []string
		for _, l := range e.Locked {
			if v, ok := parseFinalPy(l); !ok || v.line() != d.Minor {
				other = append(other, l)
			}
		}
		verdict := "all on " + d.Minor.String()
		if len(other) > 0 {
			verdict = "not on " + d.Minor.String() + ": " + strings.Join(other, ", ")
		}
		d.Reasons = append(d.Reasons, fmt.Sprintf("the model repositories lock %s (%s)", strings.Join(e.Locked, ", "), verdict))
	}
	if lower.line() != d.Minor {
		d.Migration = fmt.Sprintf("the lower bound of %q (%s) is on %s, while every repository generated from the template gets %s: raise it to >=%s (the template patch does, bounded below the next minor)",
			e.Requirement, e.At, lower.line(), d.Minor, d.Version)
	}
	return d, nil
}

// clause is one clause of a version specifier on final releases.
type clause struct {
	op string // ">=", "<", "~=", "=="
	v  pyVersion
}

type specifier []clause

var clauseForm = regexp.MustCompile(`^(>=|<|~=|==)\s*([0-9][0-9.]*)$`)

// parseSpecifier reads the clauses a Cloudcoil requirement uses; anything else is refused,
// naming the clause.
func parseSpecifier(spec string) (specifier, error) {
	var out specifier
	if strings.TrimSpace(spec) == "" {
		return out, nil
	}
	for _, cl := range specClauses(spec) {
		m := clauseForm.FindStringSubmatch(cl.text)
		if m == nil {
			return nil, fmt.Errorf("the clause %q is none of >=X.Y.Z, <X.Y, ~=X.Y.Z, ==X.Y.Z", cl.text)
		}
		v, ok := parseFinalPy(m[2])
		if !ok {
			return nil, fmt.Errorf("%q in %q is not a final release X.Y[.Z]", m[2], cl.text)
		}
		out = append(out, clause{op: m[1], v: v})
	}
	return out, nil
}

// lower is the specifier's lower bound: >=, ~= or ==.
func (s specifier) lower() (pyVersion, bool) {
	for _, c := range s {
		if c.op != "<" {
			return c.v, true
		}
	}
	return pyVersion{}, false
}

// admit reports whether a final release satisfies every clause (PEP 440, final releases).
func (s specifier) admit(v pyVersion) bool {
	for _, c := range s {
		switch c.op {
		case ">=":
			if v.compare(c.v) < 0 {
				return false
			}
		case "<":
			if v.compare(c.v) >= 0 {
				return false
			}
		case "==":
			if v.compare(c.v) != 0 {
				return false
			}
		case "~=":
			// ~=X.Y.Z is >=X.Y.Z,==X.Y.*; ~=X.Y is >=X.Y,==X.*.
			if v.compare(c.v) < 0 || v.v.Major != c.v.v.Major || (strings.Count(c.v.text, ".") == 2 && v.v.Minor != c.v.v.Minor) {
				return false
			}
		}
	}
	return true
}

// recommendedForm finds VERSIONING.md's recommended specifier: the first "cloudcoil…~=X.Y.Z"
// of its install examples.
var recommendedForm = regexp.MustCompile(`cloudcoil(?:\[[^\]]*\])?(~=[0-9]+\.[0-9]+(?:\.[0-9]+)?)`)

// RecommendedSpecifier reads the specifier VERSIONING.md recommends ("~=0.5.0"), "" when
// it names none.
func RecommendedSpecifier(versioning []byte) string {
	if m := recommendedForm.FindSubmatch(versioning); m != nil {
		return string(m[1])
	}
	return ""
}
