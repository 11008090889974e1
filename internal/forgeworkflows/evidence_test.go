package forgeworkflows

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

// listForRef returns the path and the query parameters of "List check runs for a Git
// reference" (checks/list-for-ref), as GitHub's REST API description in the corpus has them.
func listForRef(t *testing.T) (path string, query []string) {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(corpus.Read(t, "github-openapi", "api.github.com.json.gz")))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	if err := json.NewDecoder(zr).Decode(&d); err != nil {
		t.Fatal(err)
	}
	for p, item := range d.Paths {
		raw, ok := item["get"]
		if !ok {
			continue
		}
		var op struct {
			OperationID string      `json:"operationId"`
			Parameters  []parameter `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			t.Fatalf("GET %s: %v", p, err)
		}
		if op.OperationID != "checks/list-for-ref" {
			continue
		}
		for _, prm := range op.Parameters {
			if name, ok := strings.CutPrefix(prm.Ref, "#/components/parameters/"); ok {
				prm = d.Components.Parameters[name]
			}
			if prm.In == "query" {
				query = append(query, prm.Name)
			}
		}
		return p, query
	}
	t.Fatal("GitHub's API description has no GET checks/list-for-ref")
	return "", nil
}

type parameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

var evidenceCall = regexp.MustCompile(`gh api "([^"]+)" > (\S+)`)

// evidence: the gates read CI's verdict from the forge, the check run of ci.yml's gate job
// on the commit CI ran on, through the documented operation and parameters, and are given
// exactly that file and that commit.
func evidence(path string, query []string) func(s set) []string {
	return func(s set) []string {
		var bad []string
		found := 0
		for id, j := range s.release.Jobs {
			in := "release.yml: job " + id
			for i, st := range j.Steps {
				m := evidenceCall.FindStringSubmatch(st.Run)
				if m == nil || !strings.Contains(m[1], "check-runs") {
					continue
				}
				found++
				p, q, _ := strings.Cut(m[1], "?")
				asDocumented := "/" + strings.NewReplacer("$GITHUB_REPOSITORY", "{owner}/{repo}", "$SHA", "{ref}").Replace(p)
				if asDocumented != path {
					bad = append(bad, fmt.Sprintf("%s: asks %s, want %s (List check runs for a Git reference) of the commit $SHA", in, p, path))
				}
				params, err := url.ParseQuery(q)
				if err != nil {
					bad = append(bad, fmt.Sprintf("%s: %v", in, err))
				}
				for name := range params {
					if !slices.Contains(query, name) {
						bad = append(bad, fmt.Sprintf("%s: the query parameter %q is not one GitHub documents (%q)", in, name, query))
					}
				}
				if got := params.Get("check_name"); got != gateName || !slices.ContainsFunc(slices.Collect(maps.Values(s.ci.Jobs)), func(c job) bool { return c.Name == got }) {
					bad = append(bad, fmt.Sprintf("%s: reads the check run %q, want ci.yml's gate job %q", in, got, gateName))
				}
				if j.Env["SHA"] != "${{ github.event.workflow_run.head_sha }}" {
					bad = append(bad, fmt.Sprintf("%s: $SHA is %q, not the commit CI ran on", in, j.Env["SHA"]))
				}
				given := false
				for _, later := range j.Steps[i+1:] {
					for _, c := range commands(later.Run, "go run") {
						f := strings.Fields(c)
						if slices.Contains(f, "next") && hasFlag(f, "--commit", `"$SHA"`) && hasFlag(f, "--ci-evidence", m[2]) {
							given = true
						}
					}
				}
				if !given {
					bad = append(bad, fmt.Sprintf(`%s: no later step runs shipyard-release next --commit "$SHA" --ci-evidence %s`, in, m[2]))
				}
			}
		}
		if found != 1 {
			bad = append(bad, fmt.Sprintf("release.yml reads CI's check run %d times, want once", found))
		}
		return bad
	}
}

func hasFlag(f []string, flag, value string) bool {
	i := slices.Index(f, flag)
	return i >= 0 && i+1 < len(f) && f[i+1] == value
}

func TestEvidenceIsTheGateCheckRunOfTheCommit(t *testing.T) {
	path, query := listForRef(t)
	holds(t, evidence(path, query), []mutation{
		change("another check run", "release.yml", "check_name=CI%20passed", "check_name=CI"),
		change("the gate renamed in CI", "ci.yml", "name: CI passed", "name: CI gate"),
		change("an undocumented parameter", "release.yml", "check_name=", "name="),
		change("the combined status", "release.yml", "/check-runs?", "/status?"),
		change("the branch's check runs", "release.yml", "commits/$SHA/", "commits/main/"),
		change("another commit", "release.yml", "SHA: ${{ github.event.workflow_run.head_sha }}", "SHA: ${{ github.sha }}"),
		change("the gates read another file", "release.yml", `--ci-evidence "$RUNNER_TEMP/ci-evidence.json"`, `--ci-evidence ci-evidence.json`),
		change("not given the commit", "release.yml", `next --commit "$SHA"`, `next --commit HEAD`),
	})
}
