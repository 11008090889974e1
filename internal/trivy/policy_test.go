package trivy

import (
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/corpus"
)

func report(t *testing.T, file string) Report {
	t.Helper()
	r, err := ParseReport(corpus.Read(t, "trivy", file))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func ignoreFile(t *testing.T, yaml string) IgnoreFile {
	t.Helper()
	f, err := ParseIgnoreFile([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func findingIDs[T any](fs []T, id func(T) string) []string {
	var out []string
	for _, f := range fs {
		out = append(out, id(f))
	}
	return out
}

func blocking(v Verdict) []string {
	return findingIDs(v.Blocking, func(f Finding) string { return f.ID + " " + f.Package })
}

var now = time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)

func TestEvaluateCorpus(t *testing.T) {
	tests := []struct {
		file     string
		blocking []string
		unfixed  []string
		counts   map[string]int
	}{
		{"debian-buster.json", []string{"CVE-2019-18224 libidn2-0"}, nil, map[string]int{"CRITICAL": 1, "LOW": 1}},
		{"debian-buster-ignore-unfixed.json", []string{"CVE-2019-18224 libidn2-0"}, nil, map[string]int{"CRITICAL": 1}},
		{"mariner-1.0.json", nil, []string{"CVE-2022-0261"}, map[string]int{"HIGH": 1, "LOW": 1}},
		{"alpine-39-high-critical.json", []string{"CVE-2019-14697 musl", "CVE-2019-14697 musl-utils"}, nil, map[string]int{"CRITICAL": 2}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			v := Evaluate(report(t, tt.file), IgnoreFile{}, now)
			if got := blocking(v); !slices.Equal(got, tt.blocking) {
				t.Errorf("blocking = %v, want %v", got, tt.blocking)
			}
			if got := findingIDs(v.Unfixed, func(f Finding) string { return f.ID }); !slices.Equal(got, tt.unfixed) {
				t.Errorf("unfixed = %v, want %v", got, tt.unfixed)
			}
			if v.Passed() != (len(tt.blocking) == 0) {
				t.Errorf("Passed() = %v with %d blocking", v.Passed(), len(tt.blocking))
			}
			for _, s := range Severities() {
				if v.Counts[s] != tt.counts[s] {
					t.Errorf("Counts[%s] = %d, want %d", s, v.Counts[s], tt.counts[s])
				}
			}
		})
	}
}

func TestEvaluateBlockingFinding(t *testing.T) {
	v := Evaluate(report(t, "debian-buster.json"), IgnoreFile{}, now)
	want := Finding{ID: "CVE-2019-18224", Package: "libidn2-0", Installed: "2.0.5-1", Fixed: "2.0.5-1+deb10u1", Status: "fixed",
		Severity: "CRITICAL", Target: "testdata/fixtures/images/debian-buster.tar.gz (debian 10.1)",
		Title: "libidn2: heap-based buffer overflow in idn2_to_ascii_4i in lib/lookup.c"}
	if len(v.Blocking) != 1 || v.Blocking[0] != want {
		t.Errorf("blocking = %+v, want %+v", v.Blocking, want)
	}
}

func TestEvaluateWithIgnores(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		ignore   string
		blocking []string
		ignored  []string // id: statement
		expired  []string
	}{
		{"ignored CRITICAL passes", "debian-buster.json", `
vulnerabilities:
  - id: CVE-2019-18224
    statement: libidn2 is not used by the taskmaster
    expired_at: 2025-07-01
`, nil, []string{"CVE-2019-18224: libidn2 is not used by the taskmaster"}, nil},
		{"expired ignore does not apply", "debian-buster.json", `
vulnerabilities:
  - id: CVE-2019-18224
    statement: accepted until the base image moves
    expired_at: 2025-05-01
`, []string{"CVE-2019-18224 libidn2-0"}, nil, []string{"CVE-2019-18224: accepted until the base image moves"}},
		{"ignore of another package", "debian-buster.json", `
vulnerabilities:
  - id: CVE-2019-18224
    purls: ["pkg:deb/debian/bash"]
    statement: s
    expired_at: 2025-07-01
`, []string{"CVE-2019-18224 libidn2-0"}, nil, nil},
		{"ignore by purl covers one of two packages", "alpine-39-high-critical.json", `
vulnerabilities:
  - id: CVE-2019-14697
    purls: ["pkg:apk/alpine/musl"]
    statement: only musl-utils is reachable
    expired_at: 2025-07-01
`, []string{"CVE-2019-14697 musl-utils"}, []string{"CVE-2019-14697: only musl-utils is reachable"}, nil},
		{"ignore by target path", "alpine-39-high-critical.json", `
vulnerabilities:
  - id: CVE-2019-14697
    paths: ["testdata/fixtures/images/*"]
    statement: s
    expired_at: 2025-07-01
`, nil, []string{"CVE-2019-14697: s", "CVE-2019-14697: s"}, nil},
		{"ignoring a LOW finding changes nothing else", "mariner-1.0.json", `
vulnerabilities:
  - id: CVE-2022-0158
    statement: low
    expired_at: 2025-07-01
`, nil, []string{"CVE-2022-0158: low"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Evaluate(report(t, tt.file), ignoreFile(t, tt.ignore), now)
			if got := blocking(v); !slices.Equal(got, tt.blocking) {
				t.Errorf("blocking = %v, want %v", got, tt.blocking)
			}
			stated := func(f IgnoredFinding) string { return f.ID + ": " + f.Statement }
			if got := findingIDs(v.Ignored, stated); !slices.Equal(got, tt.ignored) {
				t.Errorf("ignored = %v, want %v", got, tt.ignored)
			}
			if got := findingIDs(v.Expired, stated); !slices.Equal(got, tt.expired) {
				t.Errorf("expired = %v, want %v", got, tt.expired)
			}
			if v.Passed() != (len(tt.blocking) == 0) {
				t.Errorf("Passed() = %v", v.Passed())
			}
		})
	}
}

func TestEvaluateFixRule(t *testing.T) {
	tests := []struct {
		name     string
		v        Vulnerability
		blocking bool
	}{
		{"critical, fixed", Vulnerability{Severity: "CRITICAL", FixedVersion: "2", Status: "fixed"}, true},
		{"high, fixed", Vulnerability{Severity: "HIGH", FixedVersion: "2", Status: "fixed"}, true},
		{"high, fixed version only", Vulnerability{Severity: "HIGH", FixedVersion: "2"}, true},
		{"high, status only", Vulnerability{Severity: "HIGH", Status: "fixed"}, true},
		{"high, affected", Vulnerability{Severity: "HIGH", Status: "affected"}, false},
		{"critical, will not fix", Vulnerability{Severity: "CRITICAL", Status: "will_not_fix"}, false},
		{"medium, fixed", Vulnerability{Severity: "MEDIUM", FixedVersion: "2", Status: "fixed"}, false},
		{"unknown, fixed", Vulnerability{Severity: "UNKNOWN", FixedVersion: "2", Status: "fixed"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.v.VulnerabilityID, tt.v.PkgName, tt.v.InstalledVersion = "CVE-1", "a", "1"
			r := Report{SchemaVersion: 2, Results: []Result{{Target: "img", Vulnerabilities: []Vulnerability{tt.v}}}}
			if got := !Evaluate(r, IgnoreFile{}, now).Passed(); got != tt.blocking {
				t.Errorf("blocking = %v, want %v", got, tt.blocking)
			}
		})
	}
}

func TestSummary(t *testing.T) {
	ignore := ignoreFile(t, `
vulnerabilities:
  - id: CVE-2022-0158
    statement: vim is not in the runtime image
    expired_at: 2025-07-01
  - id: CVE-2019-18224
    statement: old acceptance
    expired_at: 2025-01-01
`)
	failed := Evaluate(report(t, "debian-buster.json"), ignore, now).Summary()
	for _, want := range []string{
		"Trivy scan FAILED: 1 CRITICAL or HIGH vulnerability with a fix.",
		"Findings: CRITICAL 1, HIGH 0, MEDIUM 0, LOW 1, UNKNOWN 0; ignored 0.",
		"CRITICAL CVE-2019-18224  libidn2-0 2.0.5-1, fixed in 2.0.5-1+deb10u1  (testdata/fixtures/images/debian-buster.tar.gz (debian 10.1))",
		"heap-based buffer overflow",
		"Fix: update the packages",
		"(entry at line 6 expired 2025-01-01)",
	} {
		if !strings.Contains(failed, want) {
			t.Errorf("failed summary lacks %q:\n%s", want, failed)
		}
	}
	passed := Evaluate(report(t, "mariner-1.0.json"), ignore, now).Summary()
	for _, want := range []string{
		"Trivy scan passed",
		"Not blocking, no fix yet",
		"HIGH     CVE-2022-0261  vim 8.2.4081-1.cm1, status affected",
		"LOW      CVE-2022-0158  vim 8.2.4081-1.cm1  (until 2025-07-01): vim is not in the runtime image",
	} {
		if !strings.Contains(passed, want) {
			t.Errorf("passed summary lacks %q:\n%s", want, passed)
		}
	}
	if strings.Contains(passed, "Blocking") || strings.Contains(passed, "expired") {
		t.Errorf("passed summary mentions blocking or expired findings:\n%s", passed)
	}
}
