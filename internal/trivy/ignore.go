package trivy

import (
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// IgnoreFile is a .trivyignore.yaml as Trivy reads it.
type IgnoreFile struct {
	Vulnerabilities   []IgnoreEntry `yaml:"vulnerabilities"`
	Misconfigurations []IgnoreEntry `yaml:"misconfigurations"`
	Secrets           []IgnoreEntry `yaml:"secrets"`
	Licenses          []IgnoreEntry `yaml:"licenses"`
}

// IgnoreEntry is one accepted finding. A zero ExpiredAt means the entry never expires, which
// Trivy allows and CheckIgnoreFile does not.
type IgnoreEntry struct {
	ID        string    `yaml:"id"`
	Paths     []string  `yaml:"paths"`
	PURLs     []string  `yaml:"purls"`
	ExpiredAt time.Time `yaml:"expired_at"`
	Statement string    `yaml:"statement"`
	// Line is where the entry starts in the file (0 for an empty "-" entry).
	Line int `yaml:"-"`

	purls []purl
}

// UnmarshalYAML decodes an entry as Trivy does, and validates its paths and purls as Trivy
// does when it loads the file.
func (e *IgnoreEntry) UnmarshalYAML(n *yaml.Node) error {
	type plain IgnoreEntry // without the method, to decode the fields
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*e = IgnoreEntry(p)
	e.Line = n.Line
	for _, pattern := range e.Paths {
		if !doublestar.ValidatePattern(pattern) {
			return fmt.Errorf("line %d: entry %q: invalid path pattern %q", n.Line, e.ID, pattern)
		}
	}
	for _, s := range e.PURLs {
		p, err := parsePURL(s)
		if err != nil {
			return fmt.Errorf("line %d: entry %q: %w", n.Line, e.ID, err)
		}
		e.purls = append(e.purls, p)
	}
	return nil
}

// ParseIgnoreFile reads a .trivyignore.yaml with Trivy's leniency (unknown keys are ignored,
// statement and expired_at are optional) and fails where Trivy fails to load the file. Use
// CheckIgnoreFile for tesk-core's stricter rules.
func ParseIgnoreFile(content []byte) (IgnoreFile, error) {
	var f IgnoreFile
	if err := yaml.Unmarshal(content, &f); err != nil {
		return IgnoreFile{}, fmt.Errorf("reading the Trivy ignore file: %w", err)
	}
	return f, nil
}

// Expired reports whether Trivy no longer applies the entry at now: expired_at is a date read
// as midnight UTC, and the entry is dropped once that instant is before now.
func (e IgnoreEntry) Expired(now time.Time) bool {
	return !e.ExpiredAt.IsZero() && e.ExpiredAt.Before(now)
}

// MatchVulnerability returns the entry that makes Trivy ignore v, found in the result with
// the given target, or false. Like Trivy, it tries the target against every entry before
// the package path, so the first entry in that order wins.
func (f IgnoreFile) MatchVulnerability(target string, v Vulnerability, now time.Time) (IgnoreEntry, bool) {
	return matchEntry(f.Vulnerabilities, target, v, func(e IgnoreEntry) bool { return !e.Expired(now) })
}

func matchEntry(entries []IgnoreEntry, target string, v Vulnerability, use func(IgnoreEntry) bool) (IgnoreEntry, bool) {
	for _, p := range []string{target, v.PkgPath} {
		for _, e := range entries {
			if e.ID == v.VulnerabilityID && use(e) && matchPaths(e.Paths, p) && e.matchPURL(v.PkgIdentifier.PURL) {
				return e, true
			}
		}
	}
	return IgnoreEntry{}, false
}

// matchPaths: no paths means every path. Invalid patterns cannot get here through
// ParseIgnoreFile; for entries built in code they never match.
func matchPaths(patterns []string, path string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, pattern := range patterns {
		if ok, _ := doublestar.Match(pattern, path); ok {
			return true
		}
	}
	return false
}

// matchPURL: no purls in the entry, or no purl on the finding, means every package (Trivy's
// rule). A finding purl that does not parse matches no purl filter, so an entry that limits
// itself to packages never widens.
func (e IgnoreEntry) matchPURL(findingPURL string) bool {
	if len(e.PURLs) == 0 || strings.TrimSpace(findingPURL) == "" {
		return true
	}
	target, err := parsePURL(findingPURL)
	if err != nil {
		return false
	}
	constraints := e.purls
	if len(constraints) != len(e.PURLs) { // built in code rather than parsed
		constraints = nil
		for _, s := range e.PURLs {
			if p, err := parsePURL(s); err == nil {
				constraints = append(constraints, p)
			}
		}
	}
	for _, p := range constraints {
		if p.matches(target) {
			return true
		}
	}
	return false
}
