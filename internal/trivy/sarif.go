package trivy

import (
	"encoding/json"
	"fmt"
	"slices"
)

// SARIF is the part of a SARIF 2.1.0 log that shows the artifact is well-formed before it is
// uploaded to code scanning.
type SARIF struct {
	Version string
	Runs    []SARIFRun
}

// SARIFRun is one tool run.
type SARIFRun struct {
	Tool    string
	Results []SARIFResult
}

// SARIFResult is one result: the rule (a vulnerability id for Trivy), its level, and the
// URIs of its locations. Level is empty when the log leaves it to the rule's default.
type SARIFResult struct {
	RuleID    string
	Level     string
	Locations []string
}

// ResultCount is the number of results over all runs.
func (s SARIF) ResultCount() int {
	n := 0
	for _, r := range s.Runs {
		n += len(r.Results)
	}
	return n
}

type sarifLog struct {
	Version string `json:"version"`
	Runs    *[]struct {
		Tool struct {
			Driver struct {
				Name string `json:"name"`
			} `json:"driver"`
		} `json:"tool"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			Level     string `json:"level"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI string `json:"uri"`
					} `json:"artifactLocation"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

// sarifLevels are the levels SARIF 2.1.0 defines; an absent level means "warning".
var sarifLevels = []string{"", "none", "note", "warning", "error"}

// ParseSARIF reads a SARIF log and checks what code scanning relies on: version 2.1.0, a runs
// array, a tool name per run, a ruleId and a defined level per result.
func ParseSARIF(b []byte) (SARIF, error) {
	var l sarifLog
	if err := json.Unmarshal(b, &l); err != nil {
		return SARIF{}, fmt.Errorf("reading the SARIF log: %w", err)
	}
	if l.Version != "2.1.0" {
		return SARIF{}, fmt.Errorf("reading the SARIF log: version is %q, want \"2.1.0\"", l.Version)
	}
	if l.Runs == nil {
		return SARIF{}, fmt.Errorf("reading the SARIF log: no runs array")
	}
	s := SARIF{Version: l.Version}
	for i, run := range *l.Runs {
		if run.Tool.Driver.Name == "" {
			return SARIF{}, fmt.Errorf("reading the SARIF log: runs[%d] has no tool.driver.name", i)
		}
		out := SARIFRun{Tool: run.Tool.Driver.Name}
		for j, res := range run.Results {
			if res.RuleID == "" {
				return SARIF{}, fmt.Errorf("reading the SARIF log: runs[%d].results[%d] has no ruleId", i, j)
			}
			if !slices.Contains(sarifLevels, res.Level) {
				return SARIF{}, fmt.Errorf("reading the SARIF log: runs[%d].results[%d] (%s) has level %q, want none, note, warning or error",
					i, j, res.RuleID, res.Level)
			}
			r := SARIFResult{RuleID: res.RuleID, Level: res.Level}
			for _, loc := range res.Locations {
				r.Locations = append(r.Locations, loc.PhysicalLocation.ArtifactLocation.URI)
			}
			out.Results = append(out.Results, r)
		}
		s.Runs = append(s.Runs, out)
	}
	return s, nil
}
