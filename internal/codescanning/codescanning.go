// Package codescanning holds what GitHub code scanning requires of a SARIF upload: one
// analysis per tool and category in an upload, the category taken from each run's
// automationDetails.id or, for a run without one, from the upload's category (the
// upload-sarif action's input, else the same default for every run of the step).
//
// GitHub combined the runs of one upload that shared a tool and a category until 2025;
// since then it rejects such an upload ("Code Scanning will stop combining runs from a
// single upload", GitHub changelog, 2024-05-06; in force from July 2025). Shipyard gives
// each scanned image and platform its own category (SetAutomationID), so one upload of
// the whole report folder holds one run per category.
package codescanning

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Run is one run of a SARIF log, as the upload rule reads it.
type Run struct {
	// File and Index place the run: its log and its position in the log's runs.
	File  string
	Index int
	Tool  string
	// AutomationID is runs[i].automationDetails.id, empty when the run has none.
	AutomationID string
}

// Category is the run's category in an upload whose category input is input: the part of
// automationDetails.id before its last slash (the whole id when it has none), or input for
// a run without an id.
func (r Run) Category(input string) string {
	if r.AutomationID == "" {
		return strings.TrimSuffix(input, "/")
	}
	if i := strings.LastIndex(r.AutomationID, "/"); i >= 0 {
		return r.AutomationID[:i]
	}
	return r.AutomationID
}

type logJSON struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name string `json:"name"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails *struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
	} `json:"runs"`
}

// ReadRuns reads the runs of the SARIF log file holds.
func ReadRuns(file string, sarif []byte) ([]Run, error) {
	var l logJSON
	if err := json.Unmarshal(sarif, &l); err != nil {
		return nil, fmt.Errorf("%s: reading the SARIF log: %w", file, err)
	}
	out := make([]Run, 0, len(l.Runs))
	for i, r := range l.Runs {
		run := Run{File: file, Index: i, Tool: r.Tool.Driver.Name}
		if r.AutomationDetails != nil {
			run.AutomationID = r.AutomationDetails.ID
		}
		out = append(out, run)
	}
	return out, nil
}

// CheckUpload applies GitHub's rule to the runs of one upload with the category input
// (empty when the step sets none): no two runs share a tool and a category.
func CheckUpload(runs []Run, input string) error {
	seen := map[[2]string][]string{}
	for _, r := range runs {
		key := [2]string{r.Tool, r.Category(input)}
		seen[key] = append(seen[key], fmt.Sprintf("%s run %d", r.File, r.Index))
	}
	var dup []string
	for key, where := range seen {
		if len(where) > 1 {
			dup = append(dup, fmt.Sprintf("tool %q, category %q: %s", key[0], key[1], strings.Join(where, ", ")))
		}
	}
	if len(dup) == 0 {
		return nil
	}
	sort.Strings(dup)
	return fmt.Errorf("GitHub rejects an upload with several runs of one tool and category: give each run its own "+
		"category (automationDetails.id), or upload each with its own category input: %s", strings.Join(dup, "; "))
}

// SetAutomationID sets automationDetails.id of every run of a SARIF log to category with a
// trailing slash (a category, no run id) and keeps the rest of the log as it was.
func SetAutomationID(sarif []byte, category string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(sarif))
	dec.UseNumber() // numbers stay as the tool wrote them
	var log map[string]any
	if err := dec.Decode(&log); err != nil {
		return nil, fmt.Errorf("reading the SARIF log: %w", err)
	}
	runs, ok := log["runs"].([]any)
	if !ok {
		return nil, fmt.Errorf("reading the SARIF log: no runs array")
	}
	id := strings.TrimSuffix(category, "/") + "/"
	for i, r := range runs {
		run, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("reading the SARIF log: runs[%d] is not an object", i)
		}
		details, _ := run["automationDetails"].(map[string]any)
		if details == nil {
			details = map[string]any{}
		}
		details["id"] = id
		run["automationDetails"] = details
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(log); err != nil {
		return nil, fmt.Errorf("writing the SARIF log: %w", err)
	}
	return out.Bytes(), nil
}
