package releasegate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

const testSHA = "0123456789abcdef0123456789abcdef01234567"

// passingFacts are the facts of a release that passes every rule.
func passingFacts(tag string) Facts {
	v := versionOf(tag)
	return Facts{
		Repo: testRepo, Tag: tag, Workflow: "ci.yml", ImageOrg: "elixircloud",
		TagRef:   TagFacts{Found: true, Annotated: true, TargetType: "commit", CommitSHA: testSHA, Verified: true, Reason: "valid"},
		OnMain:   true,
		OnDev:    true,
		Citation: FileFacts{Path: CitationFile, Found: true, Content: []byte(validCitation(v))},
		Notes:    FileFacts{Path: NotesPath(tag), Found: true, Content: []byte(validNotes(v))},
		CI:       CIFacts{WorkflowFound: true, Found: true, Status: "completed", Conclusion: "success", Attempt: 1, URL: "https://github.com/x/runs/1"},
		Releases: []ReleaseRef{{Tag: "v0.10.6", Prerelease: true}},
	}
}

func TestEvaluateRules(t *testing.T) {
	tests := []struct {
		name        string
		tag         string // default v0.11.0
		change      func(f *Facts)
		wantRules   []int
		wantSkipped []int
		wantMsg     string // part of the first violation's message and details
	}{
		{name: "passes"},
		{name: "rc passes", tag: "v0.11.0rc1"},
		{name: "no v", tag: "0.11.0", wantRules: []int{1}, wantMsg: "lacks the leading v"},
		{name: "two components", tag: "v0.11", wantRules: []int{1}, wantMsg: "not a release tag"},
		{name: "semver pre-release", tag: "v0.11.0-rc.1", wantRules: []int{1}, wantMsg: "not a release tag"},
		{name: "post release", tag: "v0.11.0.post1", wantRules: []int{1}, wantMsg: "not a release tag"},
		{name: "rc without number", tag: "v0.11.0rc", wantRules: []int{1}, wantMsg: "not a release tag"},
		{name: "leading zero", tag: "v01.2.3", wantRules: []int{1}, wantMsg: "leading zeros"},
		{name: "not a git tag name", tag: "v1..2", wantRules: []int{1}, wantSkipped: []int{2, 3, 4, 5, 6}, wantMsg: "not a release tag"},
		{name: "tag missing", change: func(f *Facts) { f.TagRef = TagFacts{} },
			wantRules: []int{2}, wantSkipped: []int{3, 4, 5, 6}, wantMsg: "does not exist"},
		{name: "tag of a tree", change: func(f *Facts) { f.TagRef.TargetType, f.TagRef.CommitSHA = "tree", "" },
			wantRules: []int{2}, wantSkipped: []int{3, 4, 5, 6}, wantMsg: "points to a tree, not a commit"},
		{name: "lightweight", change: func(f *Facts) { f.TagRef.Annotated, f.TagRef.Verified, f.TagRef.Reason = false, false, "" },
			wantRules: []int{2}, wantMsg: "is lightweight"},
		{name: "unsigned", change: func(f *Facts) { f.TagRef.Verified, f.TagRef.Reason = false, "unsigned" },
			wantRules: []int{2}, wantMsg: "not signed"},
		{name: "expired key", change: func(f *Facts) { f.TagRef.Verified, f.TagRef.Reason = false, "expired_key" },
			wantRules: []int{2}, wantMsg: "(reason: expired_key)"},
		{name: "reason not known to us", change: func(f *Facts) { f.TagRef.Verified, f.TagRef.Reason = false, "gpgverify_unavailable" },
			wantRules: []int{2}, wantMsg: "(reason: gpgverify_unavailable)"},
		{name: "not on main", change: func(f *Facts) { f.OnMain = false },
			wantRules: []int{3}, wantMsg: "is not on main"},
		{name: "not on dev, though a run named dev passed", change: func(f *Facts) { f.OnDev = false },
			wantRules: []int{6}, wantMsg: "is not on dev"},
		{name: "citation missing", change: func(f *Facts) { f.Citation.Found, f.Citation.Content = false, nil },
			wantRules: []int{4}, wantMsg: "CITATION.cff does not exist"},
		{name: "citation wrong version", change: func(f *Facts) { f.Citation.Content = []byte(validCitation("0.11.0rc1")) },
			wantRules: []int{4}, wantMsg: "CITATION.cff:4: "},
		{name: "citation date as a string", change: func(f *Facts) {
			f.Citation.Content = []byte("version: 0.11.0\ndate-released: \"2025-05-01\"\n")
		}},
		{name: "citation bad date", change: func(f *Facts) { f.Citation.Content = []byte("version: 0.11.0\ndate-released: 2025-13-01\n") },
			wantRules: []int{4}, wantMsg: "CITATION.cff:2: "},
		{name: "notes missing", change: func(f *Facts) { f.Notes.Found, f.Notes.Content = false, nil },
			wantRules: []int{5}, wantMsg: "docs/releases/0.11.0.md does not exist"},
		{name: "notes with a relative link", change: func(f *Facts) {
			f.Notes.Content = []byte("Intro.\n\n## Fixes\n\n- Fix [the docs](docs/a.md) (#1)\n")
		}, wantRules: []int{5}, wantMsg: "docs/releases/0.11.0.md:5: "},
		{name: "workflow missing", change: func(f *Facts) { f.CI = CIFacts{} },
			wantRules: []int{6}, wantMsg: "has no workflow ci.yml"},
		{name: "no run", change: func(f *Facts) { f.CI = CIFacts{WorkflowFound: true} },
			wantRules: []int{6}, wantMsg: "no ci.yml run for the push"},
		{name: "queued", change: func(f *Facts) { f.CI.Status, f.CI.Conclusion = "queued", "" },
			wantRules: []int{6}, wantMsg: "has not yet finished"},
		{name: "cancelled", change: func(f *Facts) { f.CI.Conclusion = "cancelled" },
			wantRules: []int{6}, wantMsg: "conclusion cancelled"},
		{name: "published", change: func(f *Facts) { f.Releases = append(f.Releases, ReleaseRef{Tag: "v0.11.0"}) },
			wantRules: []int{7}, wantMsg: "exists already"},
		{name: "a draft is no violation", change: func(f *Facts) {
			f.Releases = append(f.Releases, ReleaseRef{Tag: "v0.11.0", Draft: true})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tag := tt.tag
			if tag == "" {
				tag = "v0.11.0"
			}
			f := passingFacts(tag)
			if tt.change != nil {
				tt.change(&f)
			}
			_, vs := Evaluate(f)
			var got, gotSkipped []int
			for _, v := range vs {
				if v.Name != ruleNames[v.Rule] {
					t.Errorf("rule %d named %q", v.Rule, v.Name)
				}
				if v.Skipped {
					gotSkipped = append(gotSkipped, v.Rule)
					continue
				}
				got = append(got, v.Rule)
				if v.Fix == "" {
					t.Errorf("rule %d has no fix", v.Rule)
				}
			}
			if !slices.Equal(got, tt.wantRules) || !slices.Equal(gotSkipped, tt.wantSkipped) {
				t.Fatalf("violated %v, skipped %v; want %v, %v: %+v", got, gotSkipped, tt.wantRules, tt.wantSkipped, vs)
			}
			if tt.wantMsg != "" {
				text := vs[0].Message + "\n" + strings.Join(vs[0].Details, "\n")
				if !strings.Contains(text, tt.wantMsg) {
					t.Errorf("message %q lacks %q", text, tt.wantMsg)
				}
			}
		})
	}
}

func TestEvaluatePlan(t *testing.T) {
	tests := []struct {
		tag        string
		published  []ReleaseRef
		final      bool
		prerelease bool
		latest     bool
		makeLatest string
	}{
		{"v0.11.0", []ReleaseRef{{Tag: "v0.10.6"}}, true, true, true, "false"},
		{"v0.11.0", nil, true, true, true, "false"},
		{"v0.11.0rc1", []ReleaseRef{{Tag: "v0.10.6"}}, false, true, false, "false"},
		{"v1.0.0", []ReleaseRef{{Tag: "v0.11.0"}, {Tag: "v1.0.0rc1"}}, true, false, true, "true"},
		{"v1.0.1", []ReleaseRef{{Tag: "v1.1.0"}}, true, false, false, "false"},
		{"v1.1.0", []ReleaseRef{{Tag: "v1.2.0", Draft: true}, {Tag: "not-a-version"}}, true, false, true, "true"},
		{"v2.0.0a1", []ReleaseRef{{Tag: "v1.0.0"}}, false, true, false, "false"},
	}
	for _, tt := range tests {
		f := passingFacts(tt.tag)
		f.Releases = tt.published
		p, vs := Evaluate(f)
		if len(vs) != 0 {
			t.Fatalf("%s: violations %+v", tt.tag, vs)
		}
		wantTags := []string{versionOf(tt.tag)}
		if tt.latest {
			wantTags = append(wantTags, "latest")
		}
		if p.Final != tt.final || p.Prerelease != tt.prerelease || p.Latest != tt.latest || p.MakeLatest != tt.makeLatest ||
			len(p.Images) != 2 || !slices.Equal(p.Images[0].Tags, wantTags) || !slices.Equal(p.Images[1].Tags, wantTags) {
			t.Errorf("%s after %v: plan %+v", tt.tag, tt.published, p)
		}
	}
}

func TestPlanRendering(t *testing.T) {
	p, _ := Evaluate(passingFacts("v0.11.0"))
	data, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(data, &fields); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"repo", "tag", "version", "final", "prerelease", "latest", "make_latest", "commit", "images", "notes_file", "notes"} {
		if _, ok := fields[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, data)
		}
	}
	if fields["make_latest"] != "false" {
		t.Errorf("make_latest = %v, want the string \"false\"", fields["make_latest"])
	}
	text := p.Text()
	for _, want := range []string{
		"Release plan for elixir-cloud-aai/tesk-core v0.11.0\n",
		"  version:      0.11.0 (final)\n",
		"  commit:       " + testSHA + "\n",
		"  GitHub:       pre-release yes, make_latest false\n",
		"    elixircloud/tesk-core-taskmaster:  0.11.0, latest\n",
		"    elixircloud/tesk-core-filer:       0.11.0, latest\n",
		"    | ## Features\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
}

func TestGateErrorListsEveryViolationOnce(t *testing.T) {
	f := passingFacts("v0.11")
	f.TagRef = TagFacts{}
	f.Releases = []ReleaseRef{{Tag: "v0.11", URL: "https://github.com/r/1"}}
	_, vs := Evaluate(f)
	msg := (&GateError{Repo: f.Repo, Tag: f.Tag, Violations: vs}).Error()
	for _, want := range []string{
		"fails 3 of 7 release rules (4 more not checked)",
		"\n  rule 1 (release-tag): ",
		"\n  rule 2 (signed-tag): tag v0.11 does not exist",
		"\n  rule 7 (not-released): ",
		"delete any draft",
		"\n  not checked: rules 3 (on-main), 4 (citation), 5 (release-notes), 6 (ci-passed): tag v0.11 does not exist",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if n := strings.Count(msg, "not checked"); n != 2 { // the header and one line
		t.Errorf("%d mentions of not checked, want the reason once:\n%s", n, msg)
	}
}

// Violations of the rules about a file carry the file and the line of its first problem;
// the others carry neither.
func TestViolationLocation(t *testing.T) {
	tests := []struct {
		name     string
		change   func(*Facts)
		rule     int
		file     string
		line     int
		nDetails int
	}{
		{"notes missing", func(f *Facts) { f.Notes.Found, f.Notes.Content = false, nil }, RuleReleaseNotes, "docs/releases/0.11.0.md", 0, 0},
		{"notes malformed", func(f *Facts) { f.Notes.Content = []byte("## Features\n\n- no intro and no numbers\n") }, RuleReleaseNotes, "docs/releases/0.11.0.md", 1, 2},
		{"citation missing", func(f *Facts) { f.Citation.Found, f.Citation.Content = false, nil }, RuleCitation, CitationFile, 0, 0},
		{"citation old version", func(f *Facts) { f.Citation.Content = []byte(validCitation("0.10.6")) }, RuleCitation, CitationFile, 0, 1},
		{"not on main", func(f *Facts) { f.OnMain = false }, RuleOnMain, "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := passingFacts("v0.11.0")
			tt.change(&f)
			_, vs := Evaluate(f)
			if len(vs) != 1 || vs[0].Rule != tt.rule {
				t.Fatalf("violations %+v", vs)
			}
			v := vs[0]
			if v.File != tt.file || len(v.Details) != tt.nDetails {
				t.Fatalf("file %q, details %q", v.File, v.Details)
			}
			// The line is the first problem's, whichever line that is.
			if tt.line > 0 && v.Line != tt.line || tt.nDetails == 0 && v.Line != 0 {
				t.Fatalf("line %d, want %d", v.Line, tt.line)
			}
			if tt.nDetails > 0 && !strings.HasPrefix(v.Details[0], fmt.Sprintf("%s:%d: ", v.File, v.Line)) {
				t.Fatalf("line %d does not match the first detail %q", v.Line, v.Details[0])
			}
		})
	}
}

// The JSON document of a failed gate is one line, carries every violation's fields and
// the words of the text report.
func TestGateErrorJSON(t *testing.T) {
	f := passingFacts("v0.11.0")
	f.Notes.Content = []byte("## Features\n\n- no intro and no numbers\n")
	f.OnMain = false
	_, vs := Evaluate(f)
	e := &GateError{Repo: f.Repo, Tag: f.Tag, Violations: vs}
	doc := e.JSON()
	if strings.Contains(doc, "\n") {
		t.Fatalf("not one line: %s", doc)
	}
	var got struct {
		OK         *bool `json:"ok"`
		Plan       any   `json:"plan"`
		Violations []struct {
			Rule    int      `json:"rule"`
			Name    string   `json:"name"`
			File    string   `json:"file"`
			Line    int      `json:"line"`
			Message string   `json:"message"`
			Details []string `json:"details"`
			Fix     string   `json:"fix"`
			Summary string   `json:"summary"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(doc), &got); err != nil {
		t.Fatal(err)
	}
	if got.OK == nil || *got.OK || got.Plan != nil || len(got.Violations) != 2 {
		t.Fatalf("document %s", doc)
	}
	notesV := got.Violations[1]
	if notesV.Rule != RuleReleaseNotes || notesV.Name != "release-notes" || notesV.File != "docs/releases/0.11.0.md" ||
		notesV.Line != 1 || notesV.Fix == "" || len(notesV.Details) != 2 {
		t.Fatalf("notes violation %+v", notesV)
	}
	text := e.Error()
	for _, v := range got.Violations {
		if !strings.Contains(text, v.Summary) || !strings.HasPrefix(v.Summary, fmt.Sprintf("rule %d (%s): ", v.Rule, v.Name)) {
			t.Errorf("summary %q is not the text report's line", v.Summary)
		}
	}
}

// Once an earlier job of the release passed rule 6, the rule is not applied again (the
// facts hold no CI run), and every other rule still is.
func TestCICheckedByAnEarlierJob(t *testing.T) {
	f := passingFacts("v0.11.0")
	f.CI = CIFacts{}
	if _, vs := Evaluate(f); len(vs) != 1 || vs[0].Rule != RuleCIPassed {
		t.Fatalf("without CIChecked: %+v", vs)
	}
	f.CIChecked = true
	if _, vs := Evaluate(f); len(vs) != 0 {
		t.Fatalf("with CIChecked: %+v", vs)
	}
	f.OnMain = false
	if _, vs := Evaluate(f); len(vs) != 1 || vs[0].Rule != RuleOnMain {
		t.Fatalf("with CIChecked, off main: %+v", vs)
	}
}

// TestCIPassedRule is rule 6 on the newest run of the commit's push to dev: CI passed when
// the run succeeded as a whole, or when its gate job "CI passed" (whose needs are the CI
// jobs) succeeded, whatever the dev images' jobs after it did. A violation names each job
// that did not pass, with its link.
func TestCIPassedRule(t *testing.T) {
	const run = "https://github.com/x/runs/1"
	job := func(name, status, conclusion string) CIJob {
		return CIJob{Name: name, Status: status, Conclusion: conclusion, URL: run + "/job/" + strings.ReplaceAll(name, " ", "-")}
	}
	done := func(name, conclusion string) CIJob { return job(name, "completed", conclusion) }
	ciJobs := func(lint, gate CIJob) []CIJob {
		return []CIJob{lint, done("Test (Python 3.13)", "success"), done("Scan image (filer)", "success"), gate}
	}
	tests := []struct {
		name               string
		status, conclusion string
		jobs               []CIJob
		wantMsg, wantFix   []string // substrings; none: CI passed
	}{
		{name: "the run succeeded", status: "completed", conclusion: "success"},
		{name: "only the dev publish failed", status: "completed", conclusion: "failure",
			jobs: append(ciJobs(done("Lint", "success"), done(CIGateJob, "success")), done("Publish image (filer)", "failure"))},
		{name: "a Sigstore hiccup timed the publish out", status: "completed", conclusion: "failure",
			jobs: append(ciJobs(done("Lint", "success"), done(CIGateJob, "success")), done("Publish image (taskmaster)", "timed_out"))},
		{name: "the publish cancelled while it waited for its approval", status: "completed", conclusion: "cancelled",
			jobs: append(ciJobs(done("Lint", "success"), done(CIGateJob, "success")), done("Push image (filer)", "cancelled"))},
		{name: "the publish still waits for its approval", status: "waiting",
			jobs: append(ciJobs(done("Lint", "success"), done(CIGateJob, "success")), job("Push image (filer)", "waiting", ""))},
		{name: "a CI job failed", status: "completed", conclusion: "failure",
			jobs:    append(ciJobs(done("Lint", "failure"), done(CIGateJob, "failure")), done("Publish image (filer)", "skipped")),
			wantMsg: []string{"did not pass for the push of commit", "(conclusion failure, attempt 1)", "job Lint failed: " + run + "/job/Lint", "job CI passed failed"},
			wantFix: []string{"fix job Lint on dev", "re-run the failed jobs"}},
		{name: "the run was cancelled before the gate", status: "completed", conclusion: "cancelled",
			jobs:    ciJobs(done("Lint", "cancelled"), done(CIGateJob, "skipped")),
			wantMsg: []string{"(conclusion cancelled, attempt 1)", "job Lint cancelled: " + run + "/job/Lint", "job CI passed skipped"},
			wantFix: []string{"re-run the failed jobs"}},
		{name: "the gate is still to run", status: "in_progress",
			jobs:    ciJobs(done("Lint", "success"), job(CIGateJob, "queued", "")),
			wantMsg: []string{"has not yet finished", "(status in_progress, attempt 1)", "job CI passed is queued"},
			wantFix: []string{"wait for the run to finish"}},
		{name: "still running, with a CI job failed already", status: "in_progress",
			jobs:    ciJobs(done("Lint", "failure"), job(CIGateJob, "pending", "")),
			wantMsg: []string{"has not yet finished", "job Lint failed: " + run + "/job/Lint"},
			wantFix: []string{"fix job Lint on dev"}},
		{name: "a run without the gate job", status: "completed", conclusion: "failure",
			jobs:    []CIJob{done("Lint", "success"), done("Publish image (filer)", "failure")},
			wantMsg: []string{"has no job named CI passed", "job Publish image (filer) failed: " + run + "/job/Publish-image-(filer)"},
			wantFix: []string{`name the CI workflow's gate job "CI passed"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := passingFacts("v0.11.0")
			f.CI = CIFacts{WorkflowFound: true, Found: true, Status: tt.status, Conclusion: tt.conclusion, Attempt: 1, URL: run, Jobs: tt.jobs}
			_, vs := Evaluate(f)
			if len(tt.wantMsg) == 0 {
				if len(vs) != 0 {
					t.Fatalf("CI did not pass: %+v", vs)
				}
				return
			}
			if len(vs) != 1 || vs[0].Rule != RuleCIPassed {
				t.Fatalf("violations %+v, want rule 6 alone", vs)
			}
			text := vs[0].Message + "\n" + strings.Join(vs[0].Details, "\n")
			for _, want := range tt.wantMsg {
				if !strings.Contains(text, want) {
					t.Errorf("message and details lack %q:\n%s", want, text)
				}
			}
			for _, want := range tt.wantFix {
				if !strings.Contains(vs[0].Fix, want) {
					t.Errorf("fix lacks %q:\n%s", want, vs[0].Fix)
				}
			}
		})
	}
}
