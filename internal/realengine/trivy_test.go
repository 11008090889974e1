//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// trivyJSON is what the suite reads of a Trivy JSON report, on its own terms: the tests
// check what real Trivy wrote, not Shipyard's reading of it.
type trivyJSON struct {
	SchemaVersion int
	ArtifactName  string
	Metadata      struct {
		OS *struct{ Family, Name string }
	}
	Results []struct {
		Target          string
		Vulnerabilities []struct {
			VulnerabilityID, PkgName, InstalledVersion, FixedVersion, Status, Severity string
		}
	}
}

func readTrivyJSON(t *testing.T, path string) trivyJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r trivyJSON
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r
}

// findings lists a report's findings as "ID SEVERITY fixed|unfixed", sorted.
func (r trivyJSON) findings() []string {
	var out []string
	for _, res := range r.Results {
		for _, v := range res.Vulnerabilities {
			fix := "unfixed"
			if v.FixedVersion != "" {
				fix = "fixed"
			}
			out = append(out, v.VulnerabilityID+" "+v.Severity+" "+fix)
		}
	}
	sort.Strings(out)
	return out
}

// sarifSuppressed maps each rule id of a SARIF log to whether all its results carry a
// suppression.
func sarifSuppressed(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string
		Runs    []struct {
			Results []struct {
				RuleID       string `json:"ruleId"`
				Suppressions []struct {
					Kind, Status string
				} `json:"suppressions"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(b, &log); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := map[string]bool{}
	for _, run := range log.Runs {
		for _, res := range run.Results {
			s := len(res.Suppressions) > 0
			if prev, seen := out[res.RuleID]; seen {
				s = s && prev
			}
			out[res.RuleID] = s
		}
	}
	return out
}

func verdictPassed(t *testing.T, dir string) bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "verdict.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Passed *bool `json:"passed"`
	}
	if err := json.Unmarshal(b, &v); err != nil || v.Passed == nil {
		t.Fatalf("verdict.json: %s (%v)", b, err)
	}
	return *v.Passed
}

// The scan gates decided by real Trivy v0.74.0 on the real engine, reading the suite's own
// database: the fixable CRITICAL and HIGH fail scan and scan-check, the unfixed CRITICAL
// and the LOW pass; an accepted entry with a reason and a future expiry turns the failure
// into a pass and shows as suppressed in the SARIF; an expired entry fails again.
func TestScanGatesWithRealTrivy(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"pass": {vulnUnfixedCritical + " CRITICAL unfixed", vulnFixableLow + " LOW fixed"},
		"gate": {vulnFixableCritical + " CRITICAL fixed", vulnFixableHigh + " HIGH fixed",
			vulnUnfixedCritical + " CRITICAL unfixed", vulnFixableLow + " LOW fixed"},
	}
	for _, w := range want {
		sort.Strings(w)
	}
	future := time.Now().AddDate(0, 6, 0).Format(time.DateOnly)
	ignore := func(expires string) string {
		return "vulnerabilities:\n" +
			"  - id: " + vulnFixableCritical + "\n    statement: tar is never run in the image\n    expired_at: " + expires + "\n" +
			"  - id: " + vulnFixableHigh + "\n    statement: gzip is never run in the image\n    expired_at: " + expires + "\n"
	}
	for _, tc := range []struct {
		name, trivy, set, ignore string
		pass                     bool
		suppressed               []string
	}{
		{name: "unfixed CRITICAL and LOW pass", trivy: trivyImage, set: "pass", pass: true},
		{name: "fixable CRITICAL and HIGH fail", trivy: trivyGateImage, set: "gate"},
		{name: "accepted until a future date pass", trivy: trivyGateImage, set: "gate", ignore: ignore(future), pass: true,
			suppressed: []string{vulnFixableCritical, vulnFixableHigh}},
		{name: "an expired acceptance fails again", trivy: trivyGateImage, set: "gate", ignore: ignore("2026-01-31")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := imageProject(t)
			if tc.ignore != "" {
				write(t, filepath.Join(src, ".trivyignore.yaml"), tc.ignore)
			}
			args := []string{"--source", src, "--pin", "trivy=" + tc.trivy}
			reports := t.TempDir()
			call(t, nil, append(args, "scan", "--image", "taskmaster", "export", "--path", reports)...)
			report := readTrivyJSON(t, filepath.Join(reports, "taskmaster.json"))
			if report.Metadata.OS == nil || report.Metadata.OS.Family != "debian" {
				t.Errorf("Trivy did not detect the image's Debian: %+v", report.Metadata.OS)
			}
			if got := report.findings(); strings.Join(got, "\n") != strings.Join(want[tc.set], "\n") {
				t.Errorf("real Trivy reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want[tc.set], "\n"))
			}
			if got := verdictPassed(t, reports); got != tc.pass {
				summary, _ := os.ReadFile(filepath.Join(reports, "summary.txt"))
				t.Errorf("scan's verdict passed=%v, want %v; summary:\n%s", got, tc.pass, summary)
			}
			suppressed := sarifSuppressed(t, filepath.Join(reports, "taskmaster.sarif"))
			for _, id := range want[tc.set] {
				id = strings.Fields(id)[0]
				if _, ok := suppressed[id]; !ok {
					t.Errorf("the SARIF has no result for %s: %v", id, suppressed)
				}
			}
			for id, s := range suppressed {
				if s != (strings.Contains(strings.Join(tc.suppressed, " "), id)) {
					t.Errorf("the SARIF marks %s suppressed=%v, want %v", id, s, !s)
				}
			}

			r := cli(t, nil, "", append([]string{"call"}, append(args, "scan-check")...)...)
			if (r.err == nil) != tc.pass {
				t.Errorf("scan-check: want pass=%v:\n%s", tc.pass, r)
			}
			if !tc.pass {
				mustContain(t, "scan-check's failure", r.stdout+r.stderr, "fixable CRITICAL or HIGH", vulnFixableCritical, vulnFixableHigh)
			}
		})
	}

	// The same acceptance on a pushed digest, whose SARIF locations Trivy writes as the
	// reference's repository: the accepted findings are still marked suppressed.
	t.Run("accepted findings of a pushed digest", func(t *testing.T) {
		t.Parallel()
		src := imageProject(t)
		write(t, filepath.Join(src, ".trivyignore.yaml"), ignore(future))
		const password = "realengine0registry0SECRET"
		env := map[string]string{"REGPASS": password}
		digests := call(t, env, "--source", src, "--registry", registryHost, "--org", "shipyard-gates",
			"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go="+baseImage,
			"with-platforms", "--platform", "linux/amd64", "push-by-digest", "--version", "0.11.0", "--image", "taskmaster")
		reports := t.TempDir()
		call(t, nil, "--source", src, "--registry", registryHost, "--org", "shipyard-gates", "--pin", "trivy="+trivyGateImage, "--pin", "go="+baseImage,
			"scan-digests", "--digests", digests, "export", "--path", reports)
		if !verdictPassed(t, reports) {
			summary, _ := os.ReadFile(filepath.Join(reports, "summary.txt"))
			t.Errorf("scan-digests did not pass with the findings accepted:\n%s", summary)
		}
		matches, _ := filepath.Glob(filepath.Join(reports, "*.sarif"))
		if len(matches) == 0 {
			t.Fatal("scan-digests wrote no SARIF")
		}
		for _, m := range matches {
			suppressed := sarifSuppressed(t, m)
			for _, id := range []string{vulnFixableCritical, vulnFixableHigh} {
				if !suppressed[id] {
					t.Errorf("%s: %s is not marked suppressed: %v", filepath.Base(m), id, suppressed)
				}
			}
			if suppressed[vulnUnfixedCritical] {
				t.Errorf("%s: %s, accepted by no entry, is marked suppressed", filepath.Base(m), vulnUnfixedCritical)
			}
		}
	})
}
