package trivy

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func TestParseSARIFAlpine310(t *testing.T) {
	s, err := ParseSARIF(corpus.Read(t, "trivy", "alpine-310.sarif"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Version != "2.1.0" || len(s.Runs) != 1 || s.Runs[0].Tool != "Trivy" || s.ResultCount() != 4 {
		t.Fatalf("SARIF = version %q, %d runs, %d results", s.Version, len(s.Runs), s.ResultCount())
	}
	var rules, levels []string
	for _, r := range s.Runs[0].Results {
		rules = append(rules, r.RuleID)
		levels = append(levels, r.Level)
		if !slices.Equal(r.Locations, []string{"testdata/fixtures/images/alpine-310.tar.gz"}) {
			t.Errorf("%s locations = %v", r.RuleID, r.Locations)
		}
	}
	if want := []string{"CVE-2019-1549", "CVE-2019-1551", "CVE-2019-1549", "CVE-2019-1551"}; !slices.Equal(rules, want) {
		t.Errorf("rules = %v, want %v", rules, want)
	}
	// MEDIUM maps to "warning" in Trivy's SARIF writer.
	if want := []string{"warning", "warning", "warning", "warning"}; !slices.Equal(levels, want) {
		t.Errorf("levels = %v, want %v", levels, want)
	}
}

func TestParseSARIF(t *testing.T) {
	run := func(results string) string {
		return `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"Trivy"}},"results":[` + results + `]}]}`
	}
	tests := []struct {
		name, in string
		count    int
		err      string
	}{
		{"no results", run(""), 0, ""},
		{"level left to the rule", run(`{"ruleId":"CVE-1"}`), 1, ""},
		{"empty runs", `{"version":"2.1.0","runs":[]}`, 0, ""},
		{"old version", `{"version":"2.0.0","runs":[]}`, 0, `version is "2.0.0"`},
		{"no runs", `{"version":"2.1.0"}`, 0, "no runs array"},
		{"no tool name", `{"version":"2.1.0","runs":[{"tool":{"driver":{}}}]}`, 0, "runs[0] has no tool.driver.name"},
		{"no rule", run(`{"level":"error"}`), 0, "runs[0].results[0] has no ruleId"},
		{"bad level", run(`{"ruleId":"CVE-1","level":"high"}`), 0, `level "high"`},
		{"not JSON", `<sarif/>`, 0, "reading the SARIF log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ParseSARIF([]byte(tt.in))
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("error %v, want one with %q", err, tt.err)
			case s.ResultCount() != tt.count:
				t.Errorf("ResultCount = %d, want %d", s.ResultCount(), tt.count)
			}
		})
	}
}
