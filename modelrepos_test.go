package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modelrelease"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/updaterepos"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

const modelToken = "ghs_model_release_module_token_value"

// modelExecs are the commands of the model flows, which succeed unless a test says
// otherwise (the same list as the modelrelease package's tests).
var modelExecs = flowexecs.Model()

// modelModule is the module with --source at a folder and a GitHub token configured, on a
// fresh engine double that may read secrets into memory (the GitHub client needs the
// token itself; no container gets it).
func modelModule(t *testing.T, folder string) (*Shipyard, *engine.Engine) {
	t.Helper()
	m, e := newModule(t, nil, engine.AllowSecretPlaintext())
	e.ExpectExecs(modelExecs...)
	answerGitHub(t, e, modelToken)
	dag := m.engine()
	m.Source = dag.Host().Directory(folder)
	m.GithubToken = dag.SetSecret("github-token", modelToken)
	return m, e
}

// noCredentialIn fails when the token shows in the recorded graph (args, env, files)
// or in what the module returned, and when an exec other than the GitHub command's got it.
func noCredentialIn(t *testing.T, e *engine.Engine, texts ...string) {
	t.Helper()
	g := e.Graph()
	for _, x := range g.Execs() {
		// Only the GitHub command gets the token, and only as a file: no container that runs
		// the repository's code (the generator, the build, the checks) holds it.
		github := len(x.Args) > 0 && x.Args[0] == "github"
		for _, s := range x.Secrets {
			if !github || s.Env != "" || s.Path == "" {
				t.Errorf("exec %v received secret %+v", x.Args, s)
			}
		}
	}
	if strings.Contains(g.String(), modelToken) {
		t.Error("the token is in the recorded graph")
	}
	for _, s := range texts {
		if strings.Contains(s, modelToken) {
			t.Errorf("the token is in %q", s)
		}
	}
}

func TestModelReleaseThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
	repo := sim.AddRepo("cloudcoil", "models-cert-manager")
	files := fixtures.ModelRepoFiles(t, nil)
	mainSHA := repo.CommitOnBranch("main", "Update generated models", files)
	pypi := pypisim.New(t)
	pypi.AddRelease("cloudcoil.models.cert_manager", "1.16.3.0")

	m, e := modelModule(t, fixtures.ModelRepo(t, nil))
	m.Repo, m.GithubAPI = "cloudcoil/models-cert-manager", sim.URL+"/"
	modeltest.ServeDistributions(e, modeltest.VersionChain("1.17.1.0"), fixtures.BuildDistributions(t, files, nil))

	// A dry run, the default of manual runs: a plan, no write. Without --upstream it takes
	// the newest configured version (1.17.1 of 1.16.3 and 1.17.1), as a push to main does.
	plan, err := m.ModelRelease(ctx, "", true, true, false, mainSHA, pypi.URL())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "version:         1.17.1.0") || !strings.Contains(plan, "decision:        dry-run") {
		t.Fatalf("plan:\n%s", plan)
	}
	if w := sim.Writes(); len(w) != 0 {
		t.Fatalf("a dry run wrote %+v", w)
	}

	out, err := m.ModelRelease(ctx, "1.17.1", false, false, false, mainSHA, pypi.URL())
	if err != nil {
		t.Fatal(err)
	}
	head := repo.Branch("release-1.17")
	var draft githubsim.Release
	for _, r := range repo.Releases() {
		if r.TagName == "1.17.1.0" {
			draft = r
		}
	}
	if head == "" || !draft.Draft || draft.TargetCommitish != head || !strings.Contains(out, "created draft 1.17.1.0") {
		t.Fatalf("branch %q, draft %+v\n%s", head, draft, out)
	}

	// An unknown upstream fails with what to do, and still without the token.
	_, err = m.ModelRelease(ctx, "1.18.0", false, false, false, mainSHA, pypi.URL())
	if err == nil || !strings.Contains(err.Error(), "upstream 1.18.0 is not one of the release lines") {
		t.Fatalf("err = %v", err)
	}
	noCredentialIn(t, e, plan, out, err.Error())
}

func TestModelReleaseWithoutPushAccessReleasesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(modelToken, githubsim.Token{}) // read-only
	repo := sim.AddRepo("cloudcoil", "models-cert-manager")
	files := fixtures.ModelRepoFiles(t, nil)
	mainSHA := repo.CommitOnBranch("main", "Update generated models", files)
	pypi := pypisim.New(t)
	m, e := modelModule(t, fixtures.ModelRepo(t, nil))
	m.Repo, m.GithubAPI = "cloudcoil/models-cert-manager", sim.URL+"/"
	modeltest.ServeDistributions(e, modeltest.VersionChain("1.17.1.0"), fixtures.BuildDistributions(t, files, nil))
	_, err := m.ModelRelease(ctx, "1.17.1", false, false, false, mainSHA, pypi.URL())
	// The run checks the token's access before any work and says what is missing.
	if err == nil || !strings.Contains(err.Error(), "check token") || !strings.Contains(err.Error(), "can read cloudcoil/models-cert-manager but not write it") {
		t.Fatalf("err = %v", err)
	}
	if w := sim.Writes(); len(w) != 0 {
		t.Errorf("writes %+v", w)
	}
	if repo.Branch("release-1.17") != "" || len(repo.Releases()) != 0 {
		t.Error("a read-only token released something")
	}
	noCredentialIn(t, e, err.Error())
}

// cloudcoilRepo is a Cloudcoil repository whose integrations' overlays are whole
// generated repositories, so the double's generation leaves something to check.
func cloudcoilRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	upstreamstest.WriteGenerator(t, dir)
	files := map[string]string{
		"cookiecutter/cookiecutter.json": `{"model_name": ""}` + "\n",
		"Makefile":                       "gen-repo-%:\n\tuvx cookiecutter --no-input --output-dir=output --config-file=models/$*/cookiecutter.yaml cookiecutter _config_dir=$$PWD/models/$*\n",
	}
	for _, name := range upstreamstest.Names() {
		for p, c := range fixtures.ModelRepoFiles(t, nil) {
			files["models/"+name+"/"+p] = c
		}
	}
	for p, c := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestModelLinesThroughTheModule(t *testing.T) {
	t.Parallel()
	m, _ := modelModule(t, fixtures.ModelRepo(t, nil))
	out, err := m.ModelLines(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var lines []modelenv.Line
	if err := json.Unmarshal([]byte(out), &lines); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	want := []modelenv.Line{{Upstream: "1.16.3", Branch: "release-1.16"}, {Upstream: "1.17.1", Branch: "release-1.17", Newest: true}}
	if len(lines) != 2 || lines[0] != want[0] || lines[1] != want[1] {
		t.Errorf("lines %+v, want %+v", lines, want)
	}
}

func TestCheckExtrasThroughTheModule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pyproject := "[project]\nname = \"cloudcoil\"\nversion = \"0.5.3\"\n\n[project.optional-dependencies]\n" +
		"kubernetes = [\"cloudcoil.models.kubernetes>=1.31\"]\nkyverno = [\"cloudcoil.models.kyverno\"]\n"
	if err := os.WriteFile(filepath.Join(dir, "pyproject.toml"), []byte(pyproject), 0o644); err != nil {
		t.Fatal(err)
	}
	pypi := pypisim.New(t)
	pypi.AddRelease("cloudcoil.models.kubernetes", "1.31.5.0")
	m, _ := modelModule(t, dir)
	_, err := m.CheckExtras(context.Background(), pypi.URL())
	if err == nil || !strings.Contains(err.Error(), `pyproject.toml:7: extra "kyverno"`) || !strings.Contains(err.Error(), "not on PyPI") {
		t.Fatalf("err = %v", err)
	}
	pypi.AddRelease("cloudcoil.models.kyverno", "1.13.2.0")
	out, err := m.CheckExtras(context.Background(), pypi.URL())
	if err != nil || !strings.Contains(out, "2 core extra requirement(s)") {
		t.Errorf("once published: %q, %v", out, err)
	}
}

func TestValidateModelsThroughTheModuleUsesNoCredential(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := modelModule(t, cloudcoilRepo(t))
	modeltest.RenderOneFolder(e)
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	out, err := m.ValidateModels(ctx, "", []string{"models/kyverno/cookiecutter.yaml", "models/istio/README.md"}, "", false)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"| istio: generate | passed", "| kyverno: artifacts | passed", "CI passed"} {
		if !strings.Contains(out, row) {
			t.Errorf("summary lacks %q:\n%s", row, out)
		}
	}
	// A token was configured, yet the graph has no secret at all.
	if s := e.Graph().Secrets(); len(s) != 0 {
		t.Errorf("secrets in the validation graph: %+v", s)
	}
	noCredentialIn(t, e, out)

	e.OnExec(engine.ExecRule{ArgsContain: "make test", ExitCode: 1, Stderr: "FAILED tests/test_models.py::test_round_trip[Issuer-cert-manager.io/v1]"})
	_, err = m.ValidateModels(ctx, "", []string{"models/keda/x"}, "", false)
	if err == nil || !strings.Contains(err.Error(), "| keda: test | failed") {
		t.Errorf("err = %v", err)
	}
}

func TestGenRepoThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := modelModule(t, cloudcoilRepo(t))
	modeltest.RenderOneFolder(e)
	dir, err := m.GenRepo(ctx, "velero", false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := dir.File("pyproject.toml").Contents(ctx); err != nil || !strings.Contains(got, `namespace = "cloudcoil.models.cert_manager"`) {
		t.Errorf("generated repository: %v\n%s", err, got)
	}
	if _, err := m.GenRepo(ctx, "linkerd", false); err == nil || !strings.Contains(err.Error(), "models/linkerd/cookiecutter.yaml is missing") {
		t.Errorf("unknown integration: %v", err)
	}
	noCredentialIn(t, e)
}

// gen-repo --template-patch is the patch issue readers are pointed at: the directory
// holds the patch alone, made from --source's template and bounded to its
// upstreams.json's minor, and nothing is rendered; --name with it, or neither, is refused
// saying what to give.
func TestGenRepoTemplatePatchThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := cloudcoilRepo(t)
	m, e := modelModule(t, repo)
	dir, err := m.GenRepo(ctx, "", true)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := dir.Entries(ctx)
	if err != nil || !slices.Equal(entries, []string{genrepo.TemplatePatchFile}) {
		t.Fatalf("entries %v, %v; want the patch alone", entries, err)
	}
	got, err := dir.File(genrepo.TemplatePatchFile).Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	current := map[string][]byte{}
	for _, p := range genrepo.TemplatePaths() {
		if b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(p))); err == nil {
			current[p] = b
		}
	}
	want, err := genrepo.TemplatePatchFor(current, genrepo.CloudcoilBound{Minor: upstreams.Line{Major: 0, Minor: 5}, Floor: "0.5.3"})
	if err != nil {
		t.Fatal(err)
	}
	if got != want || !strings.Contains(got, "+    \"cloudcoil>=0.5.3,<0.6\",\n") {
		t.Errorf("patch through the module (%d bytes) is not the source template's, bounded to upstreams.json's minor 0.5:\n%s", len(got), got)
	}
	if execs := e.Graph().Execs(); len(execs) != 0 {
		t.Errorf("--template-patch ran %d execs, want none", len(execs))
	}
	for _, tc := range []struct{ name, want string }{
		{"velero", "drop --name velero, or drop --template-patch"},
		{"", "give --name <integration>"},
	} {
		_, err := m.GenRepo(ctx, tc.name, tc.name != "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("gen-repo --name %q: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestCheckArtifactsThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := fixtures.ModelRepoFiles(t, nil)
	m, e := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
	out, err := m.CheckArtifacts(ctx)
	if err != nil || !strings.Contains(out, "artifacts match the checkout") {
		t.Fatalf("%v\n%s", err, out)
	}

	bad, e2 := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(e2, "", fixtures.BuildDistributions(t, files, func(kind string, f map[string]string) {
		if kind == "wheel" {
			delete(f, "cloudcoil/models/cert_manager/acme/v1.py")
			f["cloudcoil/models/cert_manager/v1.py"] = strings.Replace(f["cloudcoil/models/cert_manager/v1.py"], "Issuer", "Issuet", 1)
		}
	}))
	_, err = bad.CheckArtifacts(ctx)
	if err == nil {
		t.Fatal("corrupt wheel passed")
	}
	// Every problem is reported, not only the first.
	for _, want := range []string{"acme/v1.py: wheel: missing", "cert_manager/v1.py: wheel: content differs"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

func TestPublishCheckThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := fixtures.ModelRepoFiles(t, nil)
	m, e := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
	dir, err := m.PublishCheck(ctx, "1.17.1.0")
	if err != nil {
		t.Fatal(err)
	}
	out, err := dir.File("publish-check.txt").Contents(ctx)
	if err != nil || !strings.Contains(out, "cloudcoil.models.cert_manager 1.17.1.0") {
		t.Fatalf("%v\n%s", err, out)
	}
	// The upload takes the very files that were checked.
	dist, err := dir.Directory("dist").Entries(ctx)
	if err != nil || len(dist) != 2 {
		t.Fatalf("dist/ holds %v, %v; want the wheel and the sdist", dist, err)
	}
	// A re-run for a retried upload checks the same version; another tag is refused.
	if _, err := m.PublishCheck(ctx, "1.17.1.1"); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("err = %v", err)
	}
	var rec modelrelease.Record
	if err := json.Unmarshal([]byte(files[modelrelease.RecordPath]), &rec); err != nil || rec.Version != "1.17.1.0" {
		t.Errorf("fixture record %+v, %v", rec, err)
	}
	noCredentialIn(t, e, out)
}

func TestValidateModelsListsThenValidatesOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := modelModule(t, cloudcoilRepo(t))
	modeltest.RenderOneFolder(e)
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, fixtures.ModelRepoFiles(t, nil), nil))
	list, err := m.ValidateModels(ctx, "", []string{"models/kyverno/cookiecutter.yaml", "models/istio/README.md"}, "", true)
	if err != nil || list != "[\"istio\",\"kyverno\"]\n" {
		t.Fatalf("list %q, %v", list, err)
	}
	if n := len(e.Graph().Execs()); n != 0 {
		t.Errorf("--list ran %d commands", n)
	}
	out, err := m.ValidateModels(ctx, "", nil, "istio", false)
	if err != nil || !strings.Contains(out, "Validated istio (named with --name)") || strings.Contains(out, "kyverno") {
		t.Errorf("--name istio: %v\n%s", err, out)
	}
}

func TestUpdateReposThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
	keda := sim.AddRepo("cloudcoil", "models-keda")
	old := keda.CommitOnBranch("main", "Initial generation", map[string]string{"README.md": "old\n"})
	source := sim.AddRepo("cloudcoil", "cloudcoil").CommitOnBranch("main", "Merge the update", map[string]string{"README.md": "Cloudcoil\n"})

	m, e := modelModule(t, cloudcoilRepo(t))
	m.GithubAPI = sim.URL + "/"
	m.Repo = "cloudcoil/cloudcoil"
	modeltest.RenderOneFolder(e)
	generated := fixtures.ModelRepoFiles(t, nil)
	modeltest.ServeGenerated(t, e, "", generated, nil)
	list, err := m.ModelIntegrations(ctx)
	if err != nil || !strings.HasPrefix(list, "[") || !strings.Contains(list, `"keda"`) {
		t.Fatalf("integrations %q, %v", list, err)
	}
	out, err := m.UpdateRepos(ctx, []string{"keda"}, "cloudcoil", source, false)
	if err != nil || !strings.Contains(out, "cloudcoil/models-keda: pushed") {
		t.Fatalf("%v\n%s", err, out)
	}
	head := keda.Branch("main")
	if files := keda.Files(head); len(files) != len(generated) || files["Makefile"] != generated["Makefile"] {
		t.Errorf("pushed %d files, want the %d generated", len(files), len(generated))
	}
	if got := updaterepos.RecordedSource(keda.Message(head)); got != source {
		t.Errorf("the commit records source %q, want %s", got, source)
	}
	if parents := keda.Parents(head); len(parents) != 1 || parents[0] != old {
		t.Errorf("main at %s with parents %v; want a commit on %s", head, parents, old)
	}
	// A repository that does not exist is created, as publish-repo-% does.
	created, err := m.UpdateRepos(ctx, []string{"istio"}, "cloudcoil", source, false)
	if err != nil || !strings.Contains(created, "cloudcoil/models-istio: pushed") || sim.Repo("cloudcoil/models-istio") == nil {
		t.Errorf("%v\n%s", err, created)
	}
	noCredentialIn(t, e, out, fmt.Sprint(err))
}

// TestModelCiThroughTheModule: model-ci on a model repository's checkout returns the job
// table and the artifact check as files, uses no credential, and fails naming the job
// that failed.
func TestModelCiThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	files := fixtures.ModelRepoFiles(t, nil)
	m, e := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
	dir, err := m.ModelCi(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	summary, err := dir.File("summary.md").Contents(ctx)
	if err != nil || !strings.Contains(summary, "| lint | passed") || !strings.Contains(summary, "| artifacts | passed") {
		t.Fatalf("summary.md: %v\n%s", err, summary)
	}
	check, err := dir.File("check-artifacts.txt").Contents(ctx)
	if err != nil || !strings.Contains(check, "artifacts match the checkout") {
		t.Errorf("check-artifacts.txt: %v\n%s", err, check)
	}
	noCredentialIn(t, e, summary, check)

	failing, e2 := modelModule(t, fixtures.ModelRepo(t, nil))
	modeltest.ServeDistributions(e2, "", fixtures.BuildDistributions(t, files, nil))
	e2.OnExec(engine.ExecRule{ArgsContain: "make lint", ExitCode: 1, Stderr: "ruff: E501 line too long"})
	if _, err := failing.ModelCi(ctx, nil); err == nil || !strings.Contains(err.Error(), "lint") || !strings.Contains(err.Error(), "| lint | failed") {
		t.Errorf("a failing lint: %v", err)
	}
}
