package codescanning

import (
	"strings"
	"testing"
)

const log = `{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "Trivy"}}, "results": [{"ruleId": "CVE-1", "properties": {"security-severity": 9.80}}]}]}`

func TestCategory(t *testing.T) {
	for _, tt := range []struct{ id, input, want string }{
		{"", "", ""},
		{"", "/language:go/", "/language:go"},
		{"shipyard-scan/filer-linux-amd64/", "ignored", "shipyard-scan/filer-linux-amd64"},
		{"my-analysis/tool1/2022-01-02", "", "my-analysis/tool1"},
		{"plain", "", "plain"},
	} {
		if got := (Run{AutomationID: tt.id}).Category(tt.input); got != tt.want {
			t.Errorf("Category(%q, %q) = %q, want %q", tt.id, tt.input, got, tt.want)
		}
	}
}

func TestCheckUpload(t *testing.T) {
	a, b := Run{File: "a", Tool: "Trivy"}, Run{File: "b", Tool: "Trivy"}
	if err := CheckUpload([]Run{a}, ""); err != nil {
		t.Errorf("one run: %v", err)
	}
	err := CheckUpload([]Run{a, b}, "scan")
	if err == nil || !strings.Contains(err.Error(), `tool "Trivy", category "scan": a run 0, b run 0`) {
		t.Errorf("two runs of one category: %v", err)
	}
	a.AutomationID, b.AutomationID = "x/", "y/"
	if err := CheckUpload([]Run{a, b}, "scan"); err != nil {
		t.Errorf("two categories: %v", err)
	}
	b.Tool = "Other"
	b.AutomationID = "x/"
	if err := CheckUpload([]Run{a, b}, ""); err != nil {
		t.Errorf("two tools in one category: %v", err)
	}
}

func TestSetAutomationID(t *testing.T) {
	out, err := SetAutomationID([]byte(log), "shipyard-scan/filer")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := ReadRuns("f", out)
	if err != nil || len(runs) != 1 || runs[0].AutomationID != "shipyard-scan/filer/" || runs[0].Tool != "Trivy" {
		t.Fatalf("runs %+v, %v", runs, err)
	}
	if !strings.Contains(string(out), `"security-severity": 9.80`) {
		t.Errorf("a number changed:\n%s", out)
	}
	for _, bad := range []string{``, `{"runs": 1}`, `{"runs": [1]}`, `[]`} {
		if _, err := SetAutomationID([]byte(bad), "c"); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func FuzzSetAutomationID(f *testing.F) {
	f.Add(log)
	f.Add(`{"runs": [{"automationDetails": {"id": "old/", "guid": "g"}}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		out, err := SetAutomationID([]byte(s), "cat")
		if err != nil {
			return
		}
		if _, err := ReadRuns("f", []byte(s)); err != nil {
			return // not a SARIF log's shape: the rule reads nothing from it either
		}
		runs, err := ReadRuns("f", out)
		if err != nil {
			t.Fatalf("written log unreadable: %v\n%s", err, out)
		}
		for _, r := range runs {
			if r.AutomationID != "cat/" {
				t.Fatalf("run %d id %q", r.Index, r.AutomationID)
			}
		}
	})
}
