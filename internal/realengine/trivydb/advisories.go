package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Release is the Debian release the advisories are for: the suite's images are Debian 12
// (bookworm) root filesystems.
const Release = "12"

// Severity is one of Debian's levels as Trivy names them.
type Severity string

const (
	Critical Severity = "CRITICAL"
	High     Severity = "HIGH"
	Low      Severity = "LOW"
)

// Finding is an advisory the suite expects Trivy to report: one vulnerability of one
// Debian source package, fixed or not.
type Finding struct {
	ID       string
	Source   string // the Debian source package, which Trivy looks advisories up by
	Severity Severity
	Fixable  bool
}

// findingSets are the advisories of each set the suite uses, by set name. "pass" holds what
// the scan policy lets through (an unfixed CRITICAL, a fixable LOW); "gate" adds what it
// blocks (a fixable CRITICAL and a fixable HIGH). The packages are Essential in Debian,
// so every Debian root filesystem has them.
var findingSets = map[string][]Finding{
	"pass": {unfixedCritical, fixableLow},
	"gate": {fixableCritical, fixableHigh, unfixedCritical, fixableLow},
}

var (
	fixableCritical = Finding{ID: "SHIPYARD-2026-0001", Source: "tar", Severity: Critical, Fixable: true}
	fixableHigh     = Finding{ID: "SHIPYARD-2026-0002", Source: "gzip", Severity: High, Fixable: true}
	unfixedCritical = Finding{ID: "SHIPYARD-2026-0003", Source: "bash", Severity: Critical}
	fixableLow      = Finding{ID: "SHIPYARD-2026-0004", Source: "sed", Severity: Low, Fixable: true}
)

// Advisory is a Finding placed against an installed package: the version it is fixed in
// (empty when unfixed).
type Advisory struct {
	Finding
	Installed string // the source package's installed version
	Fixed     string
}

// FixSuffix makes a Debian version just above an installed one: in Debian's ordering a
// version followed by "+…" sorts after the version alone.
const FixSuffix = "+shipyard1"

// Advisories places the findings of a set against the installed source packages (source
// name → version, as InstalledSources reads them). A finding whose package is not
// installed is an error: Trivy would report nothing and a gate test would pass for the
// wrong reason.
func Advisories(set string, installed map[string]string) ([]Advisory, error) {
	findings, ok := findingSets[set]
	if !ok {
		names := make([]string, 0, len(findingSets))
		for n := range findingSets {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("no advisory set %q (sets: %s)", set, strings.Join(names, ", "))
	}
	out := make([]Advisory, 0, len(findings))
	for _, f := range findings {
		v, ok := installed[f.Source]
		if !ok {
			return nil, fmt.Errorf("advisory %s: source package %q is not installed in the image", f.ID, f.Source)
		}
		a := Advisory{Finding: f, Installed: v}
		if f.Fixable {
			a.Fixed = v + FixSuffix
		}
		out = append(out, a)
	}
	return out, nil
}

// InstalledSources reads a dpkg status file and returns the installed packages' source
// names and versions, as Trivy's dpkg analyzer derives them: "Source: name (version)",
// "Source: name" with the package's own version, or the package itself when there is no
// Source field. Packages not in the "installed" state are left out, as Trivy leaves them.
func InstalledSources(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	var pkg, version, source, status string
	line := 0
	flush := func() error {
		if pkg == "" {
			return nil
		}
		if version == "" {
			return fmt.Errorf("dpkg status: package %s (ending at line %d) has no Version", pkg, line)
		}
		if strings.HasSuffix(status, " installed") {
			name, v := pkg, version
			if source != "" {
				name = source
				if i := strings.Index(source, " ("); i >= 0 && strings.HasSuffix(source, ")") {
					name, v = source[:i], source[i+2:len(source)-1]
				}
			}
			out[name] = v
		}
		pkg, version, source, status = "", "", "", ""
		return nil
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line++
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		if text[0] == ' ' || text[0] == '\t' {
			continue // a continuation line of a multi-line field
		}
		key, value, ok := strings.Cut(text, ":")
		if !ok {
			return nil, fmt.Errorf("dpkg status: line %d: %q is not a field", line, text)
		}
		value = strings.TrimSpace(value)
		switch key {
		case "Package":
			pkg = value
		case "Version":
			version = value
		case "Source":
			source = value
		case "Status":
			status = value
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dpkg status: %w", err)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}
