package trivy

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Finding is one vulnerability in one target, flattened for a verdict.
type Finding struct {
	ID        string
	Package   string
	PkgPath   string
	Installed string
	Fixed     string
	Status    string
	Severity  string
	Target    string
	Title     string
}

// IgnoredFinding is a finding matched by an ignore entry.
type IgnoredFinding struct {
	Finding
	Statement string
	ExpiredAt time.Time
	EntryLine int
}

// TargetVerdict is the verdict on one scanned target, by the target's name: "filer", or
// "filer (linux/arm64)" for one platform's image.
type TargetVerdict struct {
	Name    string
	Verdict Verdict
}

// Verdict is the outcome of tesk-core's scan policy over one report.
type Verdict struct {
	// Blocking findings fail the scan: CRITICAL or HIGH, with a fix, not ignored.
	Blocking []Finding
	// Unfixed findings are CRITICAL or HIGH without a fix yet, not ignored: they do not block
	// today, and will once a fix is released.
	Unfixed []Finding
	// Ignored findings are matched by an entry in force.
	Ignored []IgnoredFinding
	// Expired findings are matched only by entries that have expired, so they count again.
	Expired []IgnoredFinding
	// Counts is the number of findings in the report per severity, ignored ones included.
	Counts map[string]int
}

// Passed reports whether nothing blocks.
func (v Verdict) Passed() bool { return len(v.Blocking) == 0 }

// blockingSeverities are the severities that fail the scan (tesk-core: critical and high).
var blockingSeverities = []string{"CRITICAL", "HIGH"}

// hasFix: Trivy marks a fixed finding with Status "fixed" and a FixedVersion; either one is
// taken as a fix, so a report that fills only one of them still fails closed.
func hasFix(v Vulnerability) bool {
	return v.FixedVersion != "" || v.Status == "fixed"
}

// Evaluate applies the policy: a CRITICAL or HIGH vulnerability with a fix blocks, unless an
// entry of ignore in force at now accepts it.
func Evaluate(report Report, ignore IgnoreFile, now time.Time) Verdict {
	v := Verdict{Counts: map[string]int{}}
	for _, res := range report.Results {
		for _, vuln := range res.Vulnerabilities {
			f := Finding{
				ID: vuln.VulnerabilityID, Package: vuln.PkgName, PkgPath: vuln.PkgPath,
				Installed: vuln.InstalledVersion, Fixed: vuln.FixedVersion, Status: vuln.Status,
				Severity: vuln.Severity, Target: res.Target, Title: vuln.Title,
			}
			v.Counts[f.Severity]++
			if e, ok := ignore.MatchVulnerability(res.Target, vuln, now); ok {
				v.Ignored = append(v.Ignored, IgnoredFinding{Finding: f, Statement: e.Statement, ExpiredAt: e.ExpiredAt, EntryLine: e.Line})
				continue
			}
			if e, ok := matchEntry(ignore.Vulnerabilities, res.Target, vuln, func(IgnoreEntry) bool { return true }); ok {
				v.Expired = append(v.Expired, IgnoredFinding{Finding: f, Statement: e.Statement, ExpiredAt: e.ExpiredAt, EntryLine: e.Line})
			}
			if slices.Contains(blockingSeverities, vuln.Severity) {
				if hasFix(vuln) {
					v.Blocking = append(v.Blocking, f)
				} else {
					v.Unfixed = append(v.Unfixed, f)
				}
			}
		}
	}
	return v
}

// Summary renders the verdict for a job log: the outcome first, then what blocks and how to
// act on it, then what is accepted and why.
func (v Verdict) Summary() string {
	var b strings.Builder
	if v.Passed() {
		b.WriteString("Trivy scan passed: no CRITICAL or HIGH vulnerability with a fix.\n")
	} else {
		fmt.Fprintf(&b, "Trivy scan FAILED: %d CRITICAL or HIGH %s with a fix.\n", len(v.Blocking), plural(len(v.Blocking), "vulnerability", "vulnerabilities"))
	}
	var counts []string
	for _, s := range Severities() {
		counts = append(counts, fmt.Sprintf("%s %d", s, v.Counts[s]))
	}
	fmt.Fprintf(&b, "Findings: %s; ignored %d.\n", strings.Join(counts, ", "), len(v.Ignored))

	if len(v.Blocking) > 0 {
		b.WriteString("\nBlocking:\n")
		for _, f := range v.Blocking {
			fmt.Fprintf(&b, "  %-8s %s  %s %s, fixed in %s  (%s)\n", f.Severity, f.ID, f.Package, f.Installed, orNone(f.Fixed), where(f))
			if f.Title != "" {
				fmt.Fprintf(&b, "           %s\n", f.Title)
			}
		}
		b.WriteString("Fix: update the packages to the fixed versions (rebuild on an updated base image), or accept a\n" +
			"finding in .trivyignore.yaml with its id, a statement saying why, and an expired_at date.\n")
	}
	if len(v.Expired) > 0 {
		b.WriteString("\nIgnore entries that have expired (their findings count again):\n")
		for _, f := range v.Expired {
			fmt.Fprintf(&b, "  %-8s %s  %s %s  (entry at line %d expired %s)\n", f.Severity, f.ID, f.Package, f.Installed, f.EntryLine, f.ExpiredAt.Format(time.DateOnly))
		}
		b.WriteString("Renew an entry with a later expired_at and an updated statement, or fix the finding.\n")
	}
	if len(v.Unfixed) > 0 {
		b.WriteString("\nNot blocking, no fix yet (they block once a fix is released):\n")
		for _, f := range v.Unfixed {
			fmt.Fprintf(&b, "  %-8s %s  %s %s, status %s  (%s)\n", f.Severity, f.ID, f.Package, f.Installed, orNone(f.Status), where(f))
		}
	}
	if len(v.Ignored) > 0 {
		b.WriteString("\nIgnored by .trivyignore.yaml:\n")
		for _, f := range v.Ignored {
			until := "no expiry"
			if !f.ExpiredAt.IsZero() {
				until = "until " + f.ExpiredAt.Format(time.DateOnly)
			}
			fmt.Fprintf(&b, "  %-8s %s  %s %s  (%s): %s\n", f.Severity, f.ID, f.Package, f.Installed, until, orNone(f.Statement))
		}
	}
	return b.String()
}

func where(f Finding) string {
	if f.PkgPath != "" {
		return f.Target + ", " + f.PkgPath
	}
	return f.Target
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
