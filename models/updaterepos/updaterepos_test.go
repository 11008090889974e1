package updaterepos

import (
	"dagger/shipyard/internal/githubclient"

	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

const updateToken = "ghp_ci_github_token_for_updates"

// sourceRepo is Cloudcoil's repository in the simulator; sourceHead the head of its main
// after modelRepos.
const sourceRepo = "cloudcoil/cloudcoil"

// modelRepos is a GitHub simulator with cloudcoil/models-<name> for each name, main at a
// commit holding an older generation, and cloudcoil/cloudcoil with a main branch.
func modelRepos(t *testing.T, names ...string) (*githubsim.Server, map[string]*githubsim.Repo) {
	t.Helper()
	sim := githubsim.New(t)
	sim.AddToken(updateToken, githubsim.Token{PushAccess: true})
	repos := map[string]*githubsim.Repo{}
	src := sim.AddRepo("cloudcoil", "cloudcoil")
	src.CommitOnBranch("main", "Initial commit", map[string]string{"README.md": "Cloudcoil\n"})
	repos[sourceRepo] = src
	for _, n := range names {
		r := sim.AddRepo(DefaultModelOwner, "models-"+n)
		r.CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n", "stale.py": "x = 1\n"})
		repos[n] = r
	}
	return sim, repos
}

// fromHead are the options of an update from Cloudcoil main's head.
func fromHead(repos map[string]*githubsim.Repo, names ...string) UpdateOptions {
	return UpdateOptions{Flow: "update-repos", Names: names, SourceRepo: sourceRepo, SourceCommit: repos[sourceRepo].Branch("main")}
}

func updateClient(t *testing.T, sim *githubsim.Server, rt http.RoundTripper) *githubclient.Client {
	t.Helper()
	opts := []githubclient.Option{githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })}
	if rt != nil {
		opts = append(opts, githubclient.WithTransport(rt))
	}
	c, err := githubclient.NewClient(sim.URL, updateToken, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestUpdateReposOneFailureLeavesTheOthersPushed(t *testing.T) {
	sim, repos := modelRepos(t, "keda", "istio", "velero")
	before := map[string]string{}
	for n, r := range repos {
		before[n] = r.Branch("main")
	}
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: schema 404",
		Match: func(x engine.Exec) bool { return strings.Contains(x.Chain, "models/velero") }})
	var log []string
	o := fromHead(repos, "keda", "istio", "velero")
	env.Log = func(f string, a ...any) { log = append(log, f) }
	up, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), o)
	if err == nil || !strings.HasPrefix(err.Error(), "1 of 3 failed") || !strings.Contains(err.Error(), "update-repos velero: generate") {
		t.Fatalf("err = %v", err)
	}
	if len(log) == 0 {
		t.Error("no step was logged")
	}
	if flow.FailedStep(up[2].Err) != "generate" || !strings.Contains(up[2].Err.Error(), "make gen-repo-velero") {
		t.Errorf("velero: %v", up[2].Err)
	}
	if got := repos["velero"].Branch("main"); got != before["velero"] {
		t.Errorf("velero's main moved to %s", got)
	}
	want := fixtures.ModelRepoFiles(t, nil)
	for i, n := range []string{"keda", "istio"} {
		head := repos[n].Branch("main")
		if up[i].Err != nil || up[i].Commit == "" || head != up[i].Commit {
			t.Fatalf("%s: %+v, main at %s", n, up[i], head)
		}
		// A regular commit on the old head, never a rewrite of it.
		if parents := repos[n].Parents(head); len(parents) != 1 || parents[0] != before[n] {
			t.Errorf("%s: parents %v, want the old head %s", n, parents, before[n])
		}
		files := repos[n].Files(head)
		if files["Makefile"] != want["Makefile"] || files[fixtures.ModelRepoPackageDir+"/v1.py"] == "" {
			t.Errorf("%s: the pushed tree is not the generated repository", n)
		}
		if _, ok := files["stale.py"]; ok {
			t.Errorf("%s: a file the generation no longer writes stayed", n)
		}
	}
	if !strings.Contains(up.Text(), "cloudcoil/models-keda: pushed") || !strings.Contains(up.Text(), "cloudcoil/models-velero: failed (generate)") {
		t.Errorf("text:\n%s", up.Text())
	}
	modeltest.NoSecrets(t, e)
}

func TestUpdateReposUnchangedTreePushesNothing(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	first, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
	if err != nil || first[0].Commit == "" {
		t.Fatalf("first: %+v, %v", first, err)
	}
	sim.ResetLog()
	again, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
	if err != nil || !again[0].Unchanged || again[0].Commit != "" || repos["keda"].Branch("main") != first[0].Commit {
		t.Fatalf("again: %+v, %v", again, err)
	}
	for _, w := range sim.Writes() {
		if strings.HasSuffix(w.Path, "/git/commits") || strings.Contains(w.Path, "/git/refs") {
			t.Errorf("an unchanged tree wrote %s %s", w.Method, w.Path)
		}
	}
	if !strings.Contains(again.Text(), "unchanged") {
		t.Errorf("text: %s", again.Text())
	}
}

// updateHook runs before once the first request matching match goes out.
type updateHook struct {
	match  func(*http.Request) bool
	before func()
	done   bool
}

func (h *updateHook) RoundTrip(r *http.Request) (*http.Response, error) {
	if !h.done && h.match(r) {
		h.done = true
		h.before()
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestUpdateReposRefusesADivergedMain(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	var moved string
	// Someone pushes to main after the update read it, before its ref update.
	gh := updateClient(t, sim, &updateHook{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/git/refs/heads/main")
		},
		before: func() {
			moved = repos["keda"].CommitOnBranch("main", "a maintainer's fix", map[string]string{"FIX.md": "fix\n"})
		},
	})
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	up, err := Update(context.Background(), env, gh, modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
	if err == nil || flow.FailedStep(up[0].Err) != "push" || !strings.Contains(err.Error(), "main of cloudcoil/models-keda diverged") {
		t.Fatalf("err = %v", err)
	}
	if repos["keda"].Branch("main") != moved {
		t.Errorf("main is at %s, not the maintainer's %s: their commit was overwritten", repos["keda"].Branch("main"), moved)
	}
}

func TestUpdateReposDryRunWritesNothing(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	head := repos["keda"].Branch("main")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	up, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), UpdateOptions{Flow: "update-repos", Names: []string{"keda"}, DryRun: true})
	if err != nil || up[0].Commit != "" || up[0].Head != head || len(sim.Writes()) != 0 {
		t.Fatalf("%+v, %v, writes %v", up, err, sim.Writes())
	}
}

// TestUpdateReposCreatesAMissingRepository: as Cloudcoil's publish-repo-% does, a model
// repository that does not exist is created (public, with a README, its description and
// topics) when the token may, then receives the generation; when the token may not, the
// error names the exact gh command; a dry run creates nothing.
func TestUpdateReposCreatesAMissingRepository(t *testing.T) {
	ctx := context.Background()
	sim, repos := modelRepos(t, "keda")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	generated := fixtures.ModelRepoFiles(t, nil)
	modeltest.ServeGenerated(t, e, "", generated, nil)
	source := modeltest.GeneratorRepo(t, env, nil)

	o := fromHead(repos, "istio", "velero")
	o.DryRun = true
	dry, err := Update(ctx, env, updateClient(t, sim, nil), source, o)
	if err != nil || !dry[0].Missing || len(sim.Writes()) != 0 || sim.Repo("cloudcoil/models-istio") != nil {
		t.Fatalf("dry run: %+v, %v, writes %v", dry, err, sim.Writes())
	}
	if !strings.Contains(dry.Text(), "cloudcoil/models-istio: generated; does not exist yet") {
		t.Errorf("dry run text:\n%s", dry.Text())
	}

	o.DryRun = false
	up, err := Update(ctx, env, updateClient(t, sim, nil), source, o)
	if err != nil {
		t.Fatalf("%v\n%s", err, up.Text())
	}
	for i, name := range []string{"istio", "velero"} {
		r := sim.Repo("cloudcoil/models-" + name)
		if r == nil || !up[i].Created || up[i].Commit == "" || r.Branch("main") != up[i].Commit {
			t.Fatalf("%s: %+v", name, up[i])
		}
		if r.Description() != "Generated model repository for "+name || strings.Join(r.Topics(), ",") != "cloudcoil,cloudcoil-models" {
			t.Errorf("%s: description %q, topics %v", name, r.Description(), r.Topics())
		}
		if files := r.Files("main"); len(files) != len(generated) || files["Makefile"] != generated["Makefile"] {
			t.Errorf("%s: %d files at main, want the %d generated", name, len(files), len(generated))
		}
		if parents := r.Parents(up[i].Commit); len(parents) != 1 || r.Files(parents[0])["README.md"] != "# models-"+name+"\nGenerated model repository for "+name+"\n" {
			t.Errorf("%s: the update is not on the README commit of the creation", name)
		}
	}
	text := up.Text()
	for _, want := range []string{"cloudcoil/models-istio: pushed", "(created the repository)"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	again, err := Update(ctx, env, updateClient(t, sim, nil), source, o)
	if err != nil || !again[0].Unchanged || again[0].Created {
		t.Errorf("re-run: %+v, %v", again, err)
	}
}

func TestUpdateReposNamesTheCommandWhenItMayNotCreate(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	const weak = "ghp_push_but_no_administration"
	sim.AddToken(weak, githubsim.Token{PushAccess: true, Lacks: []string{"administration"}})
	gh, err := githubclient.NewClient(sim.URL, weak, githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	_, err = Update(context.Background(), env, gh, modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "istio"))
	want := `next: create it as Cloudcoil's publish-repo-istio does: gh repo create cloudcoil/models-istio --add-readme --public --description "Generated model repository for istio" && gh repo edit --add-topic cloudcoil --add-topic cloudcoil-models cloudcoil/models-istio`
	if err == nil || !strings.Contains(err.Error(), "cloudcoil/models-istio does not exist, and CI_GITHUB_TOKEN may not create it") || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v", err)
	}
	if sim.Repo("cloudcoil/models-istio") != nil {
		t.Error("created anyway")
	}
	if _, err := Update(context.Background(), env, gh, modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "nope")); err == nil || !strings.Contains(err.Error(), "models/ has no folder nope") {
		t.Errorf("an unknown name: %v", err)
	}
}

// TestModelFolders: every folder under models/ is an integration to publish, as the
// Makefile's REPOS; those models/upstreams.json leaves out are named in the output.
func TestModelFolders(t *testing.T) {
	ctx := context.Background()
	env, _ := modeltest.NewEnv(t)
	source := modeltest.GeneratorRepo(t, env, map[string]string{"models/extra/x.yaml": "x\n"})
	got, err := ModelFolders(ctx, source)
	if want := append(upstreamstest.Names(), "extra"); err != nil || !slices.Equal(got, slices.Sorted(slices.Values(want))) {
		t.Errorf("ModelFolders = %v, %v", got, err)
	}
	left, err := untracked(ctx, source, got)
	if err != nil || len(left) != 1 || !left["extra"] {
		t.Errorf("untracked = %v, %v", left, err)
	}
	list, err := Integrations(ctx, source)
	if err != nil || !strings.Contains(list, `"extra"`) || !strings.Contains(list, `"keda"`) {
		t.Errorf("Integrations = %s, %v", list, err)
	}
	text := Updates{{Name: "keda", Repo: "cloudcoil/models-keda", Head: "abc", Commit: "def", Created: true}, {Name: "extra", Repo: "cloudcoil/models-extra", Head: "abc", Unchanged: true, Untracked: true}}.Text()
	if !strings.Contains(text, "cloudcoil/models-keda: pushed def on abc (created the repository)\n") || !strings.HasSuffix(text, "Not in models/upstreams.json (model-versions does not follow their upstreams): extra\n") {
		t.Errorf("text:\n%s", text)
	}
	if _, err := ModelFolders(context.Background(), modeltest.GeneratorRepo(t, env, map[string]string{"models/Bad Name/x.yaml": "x\n"})); err == nil || !strings.Contains(err.Error(), "models/Bad Name/: not a name") {
		t.Errorf("a bad folder name: %v", err)
	}
}

// TestUpdateReposRefusesAnOlderSource: after a run for a newer Cloudcoil commit pushed, a
// re-run of an older run (its source neither main's head nor a descendant of the recorded
// commit) is refused before anything is written, naming both commits; the newer run's own
// re-run still converges, and a newer source pushes.
func TestUpdateReposRefusesAnOlderSource(t *testing.T) {
	ctx := context.Background()
	sim, repos := modelRepos(t, "keda")
	src := repos[sourceRepo]
	older := src.Branch("main")
	newer := src.CommitOnBranch("main", "Update keda to v2.16.0", map[string]string{"models/upstreams.json": "{}\n"})
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)

	newerFiles := fixtures.ModelRepoFiles(t, map[string]string{"README.md": "# keda, newer generation\n"})
	modeltest.ServeGenerated(t, e, "", newerFiles, nil)
	newGen := modeltest.GeneratorRepo(t, env, map[string]string{"models/keda/README.md": "# keda, newer generation\n"})
	pushed, err := Update(ctx, env, updateClient(t, sim, nil), newGen, fromHead(repos, "keda"))
	if err != nil || pushed[0].Commit == "" {
		t.Fatalf("the newer run: %+v, %v", pushed, err)
	}
	if got := RecordedSource(repos["keda"].Message(pushed[0].Commit)); got != newer {
		t.Fatalf("the pushed commit records %q, want %s", got, newer)
	}
	// Cloudcoil's main moves on, so neither run's source is its head any more.
	latest := src.CommitOnBranch("main", "docs", map[string]string{"README.md": "Cloudcoil, docs\n"})

	sim.ResetLog()
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil) // the older generation
	o := fromHead(repos, "keda")
	o.SourceCommit = older
	up, err := Update(ctx, env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), o)
	if err == nil || flow.FailedStep(up[0].Err) != "check source" {
		t.Fatalf("the older run's re-run: %+v, %v", up, err)
	}
	for _, want := range []string{older, newer, latest, "revert cloudcoil/models-keda", "next: run update-repos for Cloudcoil main's head"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q:\n%v", want, err)
		}
	}
	if len(changes(sim)) != 0 || repos["keda"].Branch("main") != pushed[0].Commit {
		t.Errorf("the refused run wrote %v; main at %s", changes(sim), repos["keda"].Branch("main"))
	}

	o.SourceCommit = newer
	modeltest.ServeGenerated(t, e, "", newerFiles, nil)
	again, err := Update(ctx, env, updateClient(t, sim, nil), newGen, o)
	if err != nil || !again[0].Unchanged {
		t.Errorf("the newer run's re-run: %+v, %v", again, err)
	}
	o.SourceCommit = latest
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	last, err := Update(ctx, env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), o)
	if err != nil || last[0].Commit == "" {
		t.Errorf("a run from main's head: %+v, %v", last, err)
	}
}

// TestUpdateReposRefusesASourceWithNoRecord: a repository whose history records no
// generation accepts only Cloudcoil main's head.
func TestUpdateReposRefusesASourceWithNoRecord(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	older := repos[sourceRepo].Branch("main")
	repos[sourceRepo].CommitOnBranch("main", "newer", map[string]string{"README.md": "newer\n"})
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	o := fromHead(repos, "keda")
	o.SourceCommit = older
	_, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), o)
	if err == nil || !strings.Contains(err.Error(), "no commit among the last 50 of cloudcoil/models-keda records") || !strings.Contains(err.Error(), older) {
		t.Fatalf("err = %v", err)
	}
	if len(changes(sim)) != 0 {
		t.Errorf("writes: %v", changes(sim))
	}
}

func TestUpdateReposSourceArguments(t *testing.T) {
	sim, repos := modelRepos(t, "keda")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
	tests := []struct {
		name string
		edit func(*UpdateOptions)
		want string
	}{
		{"no commit", func(o *UpdateOptions) { o.SourceCommit = "" }, "give --commit"},
		{"short commit", func(o *UpdateOptions) { o.SourceCommit = o.SourceCommit[:12] }, "not a full commit SHA"},
		{"no repository", func(o *UpdateOptions) { o.SourceRepo = "cloudcoil" }, `"cloudcoil" is not owner/name`},
		{"another repository", func(o *UpdateOptions) { o.SourceRepo = "elixir-cloud-aai/tesk-core" }, "the token cannot see elixir-cloud-aai/tesk-core (GitHub answers 404): is --repo the Cloudcoil repository?"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := fromHead(repos, "keda")
			tt.edit(&o)
			_, err := Update(context.Background(), env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if len(changes(sim)) != 0 {
		t.Errorf("writes: %v", changes(sim))
	}
}

func TestCheckSource(t *testing.T) {
	base := SourceFacts{SourceRepo: sourceRepo, SourceBranch: "main", MainHead: strings.Repeat("c", 40),
		ModelRepo: "cloudcoil/models-keda", Generated: strings.Repeat("9", 40)}
	tests := []struct {
		name             string
		source, recorded string
		descends         bool
		want             string // "" allows the push
	}{
		{"main's head", base.MainHead, "", false, ""},
		{"main's head, older than the record", base.MainHead, strings.Repeat("b", 40), false, ""},
		{"descends from the record", strings.Repeat("a", 40), strings.Repeat("b", 40), true, ""},
		{"is the record (a re-run of the same run)", strings.Repeat("b", 40), strings.Repeat("b", 40), true, ""},
		{"older than the record", strings.Repeat("a", 40), strings.Repeat("b", 40), false, "does not descend from " + strings.Repeat("b", 40)},
		{"no record", strings.Repeat("a", 40), "", false, "records the Cloudcoil commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := base
			f.Source, f.Recorded, f.Descends = tt.source, tt.recorded, tt.descends
			err := CheckSource(f)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.source) || !strings.Contains(err.Error(), base.MainHead)):
				t.Errorf("err = %v, want %q naming the source and main's head", err, tt.want)
			}
		})
	}
}

func TestRecordedSource(t *testing.T) {
	sha := strings.Repeat("ab", 20)
	tests := []struct{ message, want string }{
		{UpdateMessage("keda", sha), sha},
		{"Fix the README\n", ""},
		{"Update\n\nCloudcoil-Commit: " + sha[:12] + "\n", ""},
		{"Update\n\nCloudcoil-Commit: " + strings.Repeat("1", 40) + "\nCloudcoil-Commit: " + sha + "\n", sha},
		{"Update\n\nsee Cloudcoil-Commit: " + sha + "\n", ""},
		{"Update\r\n\r\nCloudcoil-Commit: " + sha + "\r\n", sha},
	}
	for _, tt := range tests {
		if got := RecordedSource(tt.message); got != tt.want {
			t.Errorf("RecordedSource(%q) = %q, want %q", tt.message, got, tt.want)
		}
	}
}

func FuzzRecordedSource(f *testing.F) {
	f.Add(UpdateMessage("keda", strings.Repeat("ab", 20)))
	f.Add("Cloudcoil-Commit: \n")
	f.Fuzz(func(t *testing.T, message string) {
		got := RecordedSource(message)
		if got != "" && (!fullSHA.MatchString(got) || !strings.Contains(message, SourceTrailer+": "+got)) {
			t.Errorf("RecordedSource(%q) = %q: not a full SHA of a trailer in the message", message, got)
		}
	})
}

// TestUpdateReposKeepsModesAndBytes: an executable script, a symlink and a file that is
// not UTF-8 reach the model repository as the generation wrote them; a later update that
// changes one file sends only that file.
func TestUpdateReposKeepsModesAndBytes(t *testing.T) {
	ctx := context.Background()
	sim, repos := modelRepos(t, "keda")
	env, e := modeltest.NewEnv(t)
	modeltest.RenderAnything(e)
	files := fixtures.ModelRepoFiles(t, map[string]string{
		"scripts/regenerate.sh": "#!/bin/sh\nmake gen-models\n",
		"docs/README.md":        "../README.md",
		"docs/logo.png":         "\x89PNG\r\n\x1a\n\x00\xff\xfe",
	})
	modes := map[string]string{"scripts/regenerate.sh": fixtures.ArchiveExecutable, "docs/README.md": fixtures.ArchiveSymlink}
	modeltest.ServeGenerated(t, e, "", files, modes)
	up, err := Update(ctx, env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
	if err != nil || up[0].Commit == "" {
		t.Fatalf("%+v, %v", up, err)
	}
	got, gotModes := repos["keda"].Files("main"), repos["keda"].Modes("main")
	if got["docs/logo.png"] != files["docs/logo.png"] || got["docs/README.md"] != "../README.md" || len(got) != len(files) {
		t.Errorf("pushed %d files (logo %q, link %q), want %d", len(got), got["docs/logo.png"], got["docs/README.md"], len(files))
	}
	if gotModes["scripts/regenerate.sh"] != github.ModeExecutable || gotModes["docs/README.md"] != github.ModeSymlink || len(gotModes) != 2 {
		t.Errorf("modes %v", gotModes)
	}

	files["README.md"] = "# keda\n\nregenerated\n"
	modeltest.ServeGenerated(t, e, "", files, modes)
	sim.ResetLog()
	if _, err := Update(ctx, env, updateClient(t, sim, nil), modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda")); err != nil {
		t.Fatal(err)
	}
	if n, b := sim.Count("POST", "/repos/cloudcoil/models-keda/git/trees"), sim.Count("POST", "/repos/cloudcoil/models-keda/git/blobs"); n != 1 || b != 0 {
		t.Errorf("%d tree and %d blob requests for one changed text file, want 1 and 0", n, b)
	}
	if got := repos["keda"].Files("main"); got["README.md"] != files["README.md"] || repos["keda"].Modes("main")["scripts/regenerate.sh"] != github.ModeExecutable {
		t.Errorf("after the second update: README %q, modes %v", got["README.md"], repos["keda"].Modes("main"))
	}
}

// A run that writes generates beside the caches of every credentialed run, so its token is
// checked first: one that may not write the Cloudcoil repository (--repo) stops it before
// any code of the source runs, whether its user may not push or, the push permission
// GitHub reports being the user's, the token itself may not write. A dry run needs no
// such token.
func TestUpdateReposChecksTheTokenBeforeItGenerates(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		token githubsim.Token
		want  string
	}{
		{"a user who may not push", githubsim.Token{}, "may not push to " + sourceRepo},
		{"an admin's token that may only read contents", githubsim.Token{Role: "admin"}, "needs contents: write"},
		{"an admin's classic token without the repo scope", githubsim.Token{Role: "admin", Scopes: []string{"read:org"}}, "lack the repo scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, repos := modelRepos(t, "keda")
			const readOnly = "ghp_a_token_of_someone_else"
			sim.AddToken(readOnly, tc.token)
			gh, err := githubclient.NewClient(sim.URL, readOnly, githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
			if err != nil {
				t.Fatal(err)
			}
			env, e := modeltest.NewEnv(t)
			modeltest.RenderAnything(e)
			modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
			_, err = Update(ctx, env, gh, modeltest.GeneratorRepo(t, env, nil), fromHead(repos, "keda"))
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, modelenv.ErrNoAccess) || !strings.Contains(err.Error(), "give --github-token CI_GITHUB_TOKEN") {
				t.Errorf("err = %v, want the token refused (%q) with the fix", err, tc.want)
			}
			if n, writes := len(e.Graph().Execs()), changes(sim); n != 0 || len(writes) != 0 {
				t.Errorf("%d execs ran and writes %v were made before the token was refused", n, writes)
			}
			o := fromHead(repos, "keda")
			o.DryRun = true
			if _, err := Update(ctx, env, gh, modeltest.GeneratorRepo(t, env, nil), o); err != nil {
				t.Errorf("a dry run with a read-only token: %v", err)
			}
		})
	}
}
