package versions

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

func prefix(p string) *string { return &p }

func TestReachStopsOnceEveryTrackedLineIsListed(t *testing.T) {
	k8s := &upstreams.Integration{Name: "kubernetes", TagPrefix: prefix("v"), Versions: []string{"1.29.13", "1.32.1"}}
	knative := &upstreams.Integration{Name: "knative-serving", TagPattern: `knative-v(?P<version>[0-9]+\.[0-9]+\.[0-9]+)`, Versions: []string{"1.16.0"}}
	rel := func(tag string) upstreams.Release { return upstreams.Release{Tag: tag} }
	tests := []struct {
		name  string
		ins   []*upstreams.Integration
		pages [][]upstreams.Release
		want  []bool // after each page
	}{
		{"newer patches only: keep going", []*upstreams.Integration{k8s},
			[][]upstreams.Release{{rel("v1.32.2"), rel("v1.29.14")}}, []bool{false}},
		{"tracked versions across two pages", []*upstreams.Integration{k8s},
			[][]upstreams.Release{{rel("v1.32.2"), rel("v1.32.1")}, {rel("v1.29.14"), rel("v1.29.13")}}, []bool{false, true}},
		{"an older patch of the line also reaches it", []*upstreams.Integration{k8s},
			[][]upstreams.Release{{rel("v1.32.0"), rel("v1.29.12")}}, []bool{true}},
		{"other lines say nothing", []*upstreams.Integration{k8s},
			[][]upstreams.Release{{rel("v1.28.15"), rel("v1.30.1"), rel("v1.32.1")}}, []bool{false}},
		{"pre-releases, drafts and foreign tags say nothing", []*upstreams.Integration{k8s},
			[][]upstreams.Release{{
				{Tag: "v1.29.13", Prerelease: true}, {Tag: "v1.32.1", Draft: true},
				rel("helm-v1.29.13"), rel("pkg/apis/v1.32.1"), rel("v1.32.1-rc.1"),
			}}, []bool{false}},
		{"every integration of a shared repository", []*upstreams.Integration{k8s, knative},
			[][]upstreams.Release{{rel("v1.32.1"), rel("v1.29.13")}, {rel("knative-v1.16.0")}}, []bool{false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := newReach(tt.ins)
			if err != nil {
				t.Fatal(err)
			}
			for i, page := range tt.pages {
				if got := rc.see(page); got != tt.want[i] {
					t.Errorf("after page %d: done = %v, want %v", i+1, got, tt.want[i])
				}
			}
		})
	}
}

func TestBranchHolds(t *testing.T) {
	want := []FileChange{
		{Path: "models/upstreams.json", Content: []byte("{\"new\": true}\n")},
		{Path: "models/istio/cookiecutter.yaml", Content: []byte("versions: '1.24.4'\n")},
	}
	files := func(extra ...github.ChangedFile) []github.ChangedFile {
		out := []github.ChangedFile{
			{Path: "models/istio/cookiecutter.yaml", Status: "modified", SHA: gitBlobSHA(want[1].Content)},
			{Path: "models/upstreams.json", Status: "modified", SHA: gitBlobSHA(want[0].Content)},
		}
		return append(out, extra...)
	}
	tests := []struct {
		name string
		cmp  github.Comparison
		want bool
	}{
		{"exactly the plan on the base head", github.Comparison{AheadBy: 1, Files: files()}, true},
		{"several commits with the same result", github.Comparison{AheadBy: 3, Files: files()}, true},
		{"built on an older base head", github.Comparison{AheadBy: 1, BehindBy: 2, Files: files()}, false},
		{"no commit beyond the base", github.Comparison{AheadBy: 0, Files: nil}, false},
		{"an older plan", github.Comparison{AheadBy: 1, Files: []github.ChangedFile{
			{Path: "models/istio/cookiecutter.yaml", Status: "modified", SHA: gitBlobSHA([]byte("versions: '1.24.3'\n"))},
			{Path: "models/upstreams.json", Status: "modified", SHA: gitBlobSHA(want[0].Content)},
		}}, false},
		{"a hand-made extra file", github.Comparison{AheadBy: 2, Files: files(github.ChangedFile{Path: "NOTES.md", Status: "added", SHA: "x"})}, false},
		{"a planned file removed", github.Comparison{AheadBy: 1, Files: []github.ChangedFile{
			{Path: "models/istio/cookiecutter.yaml", Status: "removed", SHA: gitBlobSHA(want[1].Content)},
			{Path: "models/upstreams.json", Status: "modified", SHA: gitBlobSHA(want[0].Content)},
		}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := branchHolds(tt.cmp, want); got != tt.want {
				t.Errorf("branchHolds = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGitBlobSHAIsGits(t *testing.T) {
	// Git's id of an empty file and of "hello\n" (git hash-object), known constants of Git.
	for content, want := range map[string]string{
		"":        "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
		"hello\n": "ce013625030ba8dba906f756967f9e9ca394464a",
	} {
		if got := gitBlobSHA([]byte(content)); got != want {
			t.Errorf("gitBlobSHA(%q) = %s, want %s", content, got, want)
		}
	}
}

func TestDecidePull(t *testing.T) {
	open := github.PullRequest{Number: 3, Title: "t", Body: "b", State: "open"}
	tests := []struct {
		name        string
		pr          github.PullRequest
		open        bool
		title, body string
		want        pullDecision
		wantTitle   bool
		wantBody    bool
	}{
		{"none open", github.PullRequest{}, false, "t", "b", pullCreate, false, false},
		{"current", open, true, "t", "b", pullKeep, false, false},
		{"new body", open, true, "t", "b2", pullEdit, false, true},
		{"new title", open, true, "t2", "b", pullEdit, true, false},
		{"both", open, true, "t2", "b2", pullEdit, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, edit := decidePull(tt.pr, tt.open, tt.title, tt.body)
			if got != tt.want || (edit.Title != nil) != tt.wantTitle || (edit.Body != nil) != tt.wantBody || edit.State != nil {
				t.Errorf("decidePull = %s, title set %v, body set %v, state %v", got, edit.Title != nil, edit.Body != nil, edit.State)
			}
		})
	}
}

func TestDesiredFiles(t *testing.T) {
	raw := upstreamstest.ReadFile(t, upstreams.FilePath)
	file, err := upstreams.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	istio := file.Integrations["istio"]
	patch := upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: istio.Versions[0], To: "1.24.4", Applied: true}
	proposal := upstreams.Change{Integration: "istio", Kind: upstreams.KindProposed, From: istio.Versions[0], To: "1.25.1"}
	src := func(withCookiecutter bool) *sources {
		s := &sources{upstreamsJSON: raw, file: file, cookiecutters: map[string][]byte{}}
		if withCookiecutter {
			s.cookiecutters["istio"] = upstreamstest.ReadFile(t, upstreams.CookiecutterPath("istio"))
		}
		return s
	}
	tests := []struct {
		name      string
		src       *sources
		plan      upstreams.Updates
		wantPaths string
		wantErr   string
	}{
		{"proposals only edit nothing", src(true), upstreams.Updates{Changes: []upstreams.Change{proposal}}, "", ""},
		{"a patch edits both files", src(true), upstreams.Updates{Changes: []upstreams.Change{patch, proposal}},
			"models/upstreams.json models/istio/cookiecutter.yaml", ""},
		{"a patch whose cookiecutter was not read", src(false), upstreams.Updates{Changes: []upstreams.Change{patch}},
			"", "integrations.istio: the plan edits it but its models/istio/cookiecutter.yaml was not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := desiredFiles(tt.src, tt.plan)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var paths []string
			for _, f := range got {
				paths = append(paths, f.Path)
				if f.Path == upstreams.CookiecutterPath("istio") && !strings.Contains(string(f.Content), "1.24.4") {
					t.Errorf("cookiecutter.yaml not edited:\n%s", f.Content)
				}
			}
			if strings.Join(paths, " ") != tt.wantPaths {
				t.Errorf("paths %v, want %q", paths, tt.wantPaths)
			}
		})
	}
}

func TestCommitMessageIsStable(t *testing.T) {
	plan := upstreams.Updates{Changes: []upstreams.Change{
		{Integration: "istio", Kind: upstreams.KindPatch, From: "1.24.2", To: "1.24.4", Tag: "1.24.4", Applied: true},
		{Integration: "cloudcoil", Kind: upstreams.KindCloudcoil, From: "0.5.3", To: "0.5.4", Applied: true},
		{Integration: "keda", Kind: upstreams.KindProposed, From: "2.16.1", To: "2.17.0"},
	}}
	msg := commitMessage(plan)
	if msg != commitMessage(plan) {
		t.Fatal("two messages of one plan differ")
	}
	if !strings.HasPrefix(msg, plan.PRTitle()+"\n\n") || !strings.Contains(msg, "- istio 1.24.2 → 1.24.4 (1.24.4)\n") ||
		!strings.Contains(msg, "- cloudcoil 0.5.3 → 0.5.4\n") || strings.Contains(msg, "keda") {
		t.Errorf("message:\n%s", msg)
	}
}

func TestReportFormat(t *testing.T) {
	r := Report{Repository: "o/r", Base: "main", Branch: Branch, Action: ActionOpened}
	if _, err := r.Format("yaml"); err == nil || !strings.Contains(err.Error(), `--format "yaml": want text or json`) {
		t.Errorf("Format(yaml) = %v", err)
	}
	// A report without a pull request still renders (and never panics).
	text, err := r.Format("text")
	if err != nil || !strings.Contains(text, "Opened pull request (unknown)") {
		t.Errorf("text = %q, %v", text, err)
	}
	js, err := r.Format("json")
	if err != nil || !strings.Contains(js, `"changes": []`) || !strings.Contains(js, `"files": []`) {
		t.Errorf("json = %s, %v", js, err)
	}
}

func TestPlanCommits(t *testing.T) {
	raw := upstreamstest.ReadFile(t, upstreams.FilePath)
	file, err := upstreams.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	istio, keda := file.Integrations["istio"], file.Integrations["keda"]
	patch := upstreams.Change{Integration: "istio", Kind: upstreams.KindPatch, From: istio.Versions[0], To: "1.24.4", Applied: true}
	proposeIstio := upstreams.Change{Integration: "istio", Kind: upstreams.KindProposed, From: istio.Versions[0], To: "1.25.1", Retires: istio.Versions}
	proposeKeda := upstreams.Change{Integration: "keda", Kind: upstreams.KindProposed, From: keda.Versions[len(keda.Versions)-1], To: "2.17.0", Retires: keda.Versions}
	proposeFar := upstreams.Change{Integration: "istio", Kind: upstreams.KindProposed, From: istio.Versions[0], To: "1.24.9", Retires: istio.Versions}
	migration := upstreams.Change{Integration: "cloudcoil", Kind: upstreams.KindMigration, From: "0.5.3", To: "0.6.1"}
	src := func() *sources {
		s := &sources{upstreamsJSON: raw, file: file, cookiecutters: map[string][]byte{}}
		for _, name := range []string{"istio", "keda"} {
			s.cookiecutters[name] = upstreamstest.ReadFile(t, upstreams.CookiecutterPath(name))
		}
		return s
	}
	tests := []struct {
		name      string
		changes   []upstreams.Change
		want      []string // per commit: its message's first line | the cumulative paths
		wantNotes int
	}{
		{"nothing", nil, nil, 0},
		{"a patch", []upstreams.Change{patch},
			[]string{"chore(models): update istio to 1.24.4 | models/upstreams.json models/istio/cookiecutter.yaml"}, 0},
		{"a patch, then each proposal on its own", []upstreams.Change{patch, proposeIstio, proposeKeda}, []string{
			"chore(models): update istio to 1.24.4 | models/upstreams.json models/istio/cookiecutter.yaml",
			"feat(models): propose istio 1.25.1, a new line (needs review) | models/upstreams.json models/istio/cookiecutter.yaml",
			"feat(models): propose keda 2.17.0, a new line (needs review) | models/upstreams.json models/istio/cookiecutter.yaml models/keda/cookiecutter.yaml",
		}, 0},
		{"only a migration: one commit without changes", []upstreams.Change{migration},
			[]string{"chore(models): upstream model versions to review | "}, 0},
		{"a proposal that cannot be written is a problem", []upstreams.Change{proposeFar},
			[]string{"chore(models): upstream model versions to review | "}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			specs, notes, err := planCommits(src(), upstreams.Updates{Changes: tc.changes})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range specs {
				var paths []string
				for _, f := range s.Files {
					paths = append(paths, f.Path)
				}
				first, _, _ := strings.Cut(s.Message, "\n")
				got = append(got, first+" | "+strings.Join(paths, " "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") || len(notes) != tc.wantNotes {
				t.Errorf("commits\n%s\nwant\n%s\nnotes %v", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), notes)
			}
		})
	}
}

func TestRaisedRequirements(t *testing.T) {
	raw := upstreamstest.ReadFile(t, upstreams.FilePath)
	file, err := upstreams.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	template := upstreamstest.ReadFile(t, upstreams.TemplatePyproject)
	move := upstreams.Updates{Changes: []upstreams.Change{{Integration: "cloudcoil", Kind: upstreams.KindCloudcoil, From: "0.5.3", To: "0.5.4", Applied: true}}}
	tests := []struct {
		name     string
		template []byte // nil: the repository has none
		plan     upstreams.Updates
		want     string // the raised file's requirement, "" for no change
		wantErr  string
	}{
		{"moves within the minor", template, move, `"cloudcoil[codegen,test]"`, ""},
		{"no Cloudcoil update", template, upstreams.Updates{}, "", ""},
		{"no template", nil, move, "", ""},
		{"a template on another minor is a migration", []byte(strings.ReplaceAll(string(template), "cloudcoil>=0.5.3", "cloudcoil>=0.4.2")), move, "",
			upstreams.TemplatePyproject + ":10: project.dependencies \"cloudcoil>=0.4.2\": the lower bound 0.4.2 is not in the minor 0.5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := &sources{upstreamsJSON: raw, file: file, requirements: map[string][]byte{}}
			if tc.template != nil {
				src.requirements[upstreams.TemplatePyproject] = tc.template
			}
			got, err := raisedRequirements(src, tc.plan)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if len(got) != 0 {
					t.Errorf("changes %v", got)
				}
				return
			}
			if len(got) != 1 || got[0].Path != upstreams.TemplatePyproject || !strings.Contains(string(got[0].Content), tc.want) ||
				!strings.Contains(string(got[0].Content), `"cloudcoil>=0.5.4",`) {
				t.Errorf("changes %+v", got)
			}
		})
	}
}

func TestRequireToken(t *testing.T) {
	// A writing run needs a token; --check may go anonymous.
	for name, refused := range map[[2]string]bool{
		{"ghp_x", "run"}: false, {"ghp_x", "check"}: false, {"", "check"}: false, {"", "run"}: true,
	} {
		hasToken, check := name[0] != "", name[1] == "check"
		err := RequireToken(hasToken, check)
		if (err != nil) != refused {
			t.Errorf("token %t, %s: err = %v, want refused %t", hasToken, name[1], err, refused)
			continue
		}
		for _, want := range []string{"--github-token is required to push " + Branch, "CI_GITHUB_TOKEN", "not the default GITHUB_TOKEN"} {
			if err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
	}
}
