package main

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// TestAdoptingMaintainersWalk follows the adoption in docs/cloudcoil.md on a copy of the
// real Cloudcoil repository, each step on what the step before it left: propose-upstreams
// (Cloudcoil's real releases on PyPI) writes models/upstreams.json; model-template-patch
// makes the migration, applied with git apply; model-versions --check plans every
// integration from the adopted tree; then, for all 12 integrations, validate-models,
// gen-repo, model-ci on the generated repository and model-release --dry-run. The template
// renders for real (the test kit's cookiecutter, byte-identical to the real one on these
// integrations); generation and the Python tools are the double's, and the generated
// module is served. The real engine runs the real generator and tools on three of them
// (internal/realengine, TestCloudcoilRealGenerator).
func TestAdoptingMaintainersWalk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tree := versionstest.RealTreeFiles(t)
	repo := t.TempDir()
	for p, c := range tree {
		writeFile(t, filepath.Join(repo, filepath.FromSlash(p)), c)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=Maintainer", "-c", "user.email=maintainer@example.org"}, args...)...)
		cmd.Dir, cmd.Env = repo, append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "Cloudcoil as it is")

	// PyPI holds Cloudcoil's real releases; GitHub, the upstreams' releases.
	w := versionstest.NewFrom(t, map[string]string{"README.md": "placeholder\n"}, versionstest.RealReleases())
	tags, err := os.ReadFile(filepath.Join(corpus.Dir(t, "cloudcoil"), "releases", "tags.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(tags)), "\n") {
		w.PyPI.AddRelease("cloudcoil", strings.Fields(line)[0])
	}

	// 1. propose-upstreams, written as models/upstreams.json.
	m, _ := modelModule(t, repo)
	file, err := m.ProposeUpstreams(ctx, "file", w.PyPI.URL())
	if err != nil {
		t.Fatalf("propose-upstreams: %v", err)
	}
	writeFile(t, filepath.Join(repo, filepath.FromSlash(upstreams.FilePath)), file)

	// 2. The migration: model-template-patch, applied as the guide says.
	m, _ = modelModule(t, repo)
	patchDir, err := m.ModelTemplatePatch(ctx)
	if err != nil {
		t.Fatalf("model-template-patch: %v", err)
	}
	patch, err := patchDir.File(genrepo.TemplatePatchFile).Contents(ctx)
	if err != nil || patch == "" {
		t.Fatalf("model-template-patch gave %d bytes (%v); the adoption needs one", len(patch), err)
	}
	apply := exec.Command("git", "apply", "-p1", "-")
	apply.Dir, apply.Stdin = repo, strings.NewReader(patch)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply the template patch: %v\n%s", err, out)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "Adopt Shipyard")
	if b, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(upstreams.TemplatePyproject))); err != nil || !strings.Contains(string(b), `"cloudcoil>=0.5.8,<0.6",`) {
		t.Fatalf("the migrated template does not require Cloudcoil 0.5 from 0.5.8 (%v)", err)
	}
	m, _ = modelModule(t, repo)
	if again, err := m.ModelTemplatePatch(ctx); err != nil {
		t.Fatal(err)
	} else if p, err := again.File(genrepo.TemplatePatchFile).Contents(ctx); err != nil || p != "" {
		t.Errorf("the patch on the migrated template is not empty (%v):\n%s", err, p)
	}

	// 3. model-versions --check on the adopted tree, as main holds it after the merge.
	adopted := fixtures.ReadFiles(t, repo)
	w.Repo.CommitOnBranch("main", "Adopt Shipyard (#121)", adopted)
	mv, _ := modelVersionsModule(t, w, versionstest.Token)
	out, err := mv.ModelVersions(ctx, true, "json", "main", w.PyPI.URL())
	if err != nil {
		t.Fatalf("model-versions --check: %v", err)
	}
	var report versions.Report
	if err := json.Unmarshal([]byte(out), &report); err != nil {
		t.Fatalf("model-versions --check JSON: %v\n%s", err, out)
	}
	planned := map[string]bool{}
	for _, c := range report.Plan.Changes {
		planned[c.Integration] = true
		if c.Integration == "cloudcoil" {
			t.Errorf("Cloudcoil moves after the migration: %+v (0.5.8 is its newest release)", c)
		}
	}
	if len(report.Plan.Problems) != 0 {
		t.Errorf("model-versions skipped integrations of the adopted tree: %+v", report.Plan.Problems)
	}
	names := upstreamstest12(t, repo)
	for _, name := range names {
		if !planned[name] {
			t.Errorf("model-versions plans nothing for %s, whose upstream has a newer patch", name)
		}
	}

	// 4. validate-models, then gen-repo, model-ci and model-release --dry-run, for each
	// integration, on the adopted tree.
	m, e := modelModule(t, repo)
	generated := map[string]map[string]string{}
	for _, name := range names {
		generated[name] = serveIntegration(t, e, repo, name)
	}
	summary, err := m.ValidateModels(ctx, "", nil, "", false)
	if err != nil {
		t.Fatalf("validate-models on the adopted tree: %v", err)
	}
	for _, name := range names {
		for _, job := range []string{"generate", "lint", "test", "artifacts"} {
			if !strings.Contains(summary, "| "+name+": "+job+" | passed") {
				t.Errorf("validate-models did not pass %s: %s:\n%s", name, job, summary)
			}
		}
	}
	lines := newestLines(t, repo)
	for _, name := range names {
		dir, err := m.GenRepo(ctx, name, false)
		if err != nil {
			t.Fatalf("gen-repo %s: %v", name, err)
		}
		// Generation pins the Cloudcoil release propose-upstreams decided, and targets the
		// newest release line.
		if !genExecsPin(e, name, "cloudcoil==0.5.8") {
			t.Errorf("gen-repo %s: no generation locked cloudcoil==0.5.8", name)
		}
		// The generator reads the schemas of the newest release line, not crd_urls' own
		// version (cert-manager's name 1.16.3; its newest line is 1.17.1).
		pyproject, err := dir.File("pyproject.toml").Contents(ctx)
		newest := lines[name]
		if err != nil || !strings.Contains(pyproject, newest+"/") {
			t.Errorf("gen-repo %s: the generator does not read the schemas of %s (%v):\n%s", name, newest, err, pyproject)
		}

		// The generated repository as models-<name> holds it after update-repos: model-ci
		// and the release run on its checkout.
		files := maps.Clone(generated[name])
		files["pyproject.toml"] = pyproject
		checkout := t.TempDir()
		for p, c := range files {
			writeFile(t, filepath.Join(checkout, filepath.FromSlash(p)), c)
		}
		ci, ce := modelModule(t, checkout)
		modeltest.ServeDistributions(ce, "", fixtures.BuildDistributions(t, files, nil))
		reports, err := ci.ModelCi(ctx, nil)
		if err != nil {
			t.Fatalf("model-ci on models-%s: %v", name, err)
		}
		if s, err := reports.File("summary.md").Contents(ctx); err != nil || !strings.Contains(s, "| artifacts | passed") {
			t.Errorf("model-ci on models-%s: %v\n%s", name, err, s)
		}

		sim := githubsim.New(t)
		sim.AddToken(modelToken, githubsim.Token{PushAccess: true})
		mainSHA := sim.AddRepo("cloudcoil", "models-"+name).CommitOnBranch("main", "Update generated models", files)
		ci.Repo, ci.GithubAPI = "cloudcoil/models-"+name, sim.URL+"/"
		release := maps.Clone(files)
		release["pyproject.toml"] = strings.Replace(pyproject, `version = "0.0.0"`, `version = "`+newest+`.0"`, 1)
		modeltest.ServeDistributions(ce, modeltest.VersionChain(newest+".0"), fixtures.BuildDistributions(t, release, nil))
		plan, err := ci.ModelRelease(ctx, "", true, true, false, mainSHA, w.PyPI.URL())
		if err != nil {
			t.Fatalf("model-release --dry-run for models-%s: %v", name, err)
		}
		for _, want := range []string{"upstream:        " + newest, "version:         " + newest + ".0", "decision:        dry-run"} {
			if !strings.Contains(plan, want) {
				t.Errorf("model-release --dry-run for models-%s lacks %q:\n%s", name, want, plan)
			}
		}
		if writes := sim.Writes(); len(writes) != 0 {
			t.Errorf("model-release --dry-run for models-%s wrote %v", name, writes)
		}
		noCredentialIn(t, ce, plan)
	}
	noCredentialIn(t, e, summary)
}

// serveIntegration teaches the double what make gen-repo-<name> renders on the adopted
// tree (the test kit's cookiecutter over the patched template), with one generated module
// beside it, and the wheel and sdist a build of that repository makes. It returns the
// repository's files.
func serveIntegration(t *testing.T, e *engine.Engine, repo, name string) map[string]string {
	t.Helper()
	project, files, err := cookiecutter.Integration(repo, name)
	if err != nil {
		t.Fatalf("render %s: %v", name, err)
	}
	module := strings.ReplaceAll(name, "-", "_")
	files["uv.lock"] = hookLock(name)
	files["cloudcoil/models/"+module+"/v1.py"] = "# Generated by cloudcoil-model-codegen v0.5.8\nfrom cloudcoil.resources import Resource\n\n\nclass Example(Resource):\n    pass\n"
	e.OnEntries(engine.DirRule{Path: genrepo.RenderDir, ChainContains: "gen-repo-" + name, Entries: []string{project + "/"}})
	modeltest.ServeRendered(e, project, files)
	modeltest.ServeDistributions(e, "gen-repo-"+name, fixtures.BuildDistributions(t, files, nil))
	return files
}

// hookLock is the uv.lock the template's hook leaves (uv add cloudcoil -U): Cloudcoil's
// newest release, under the migrated requirement.
func hookLock(name string) string {
	return `version = 1
revision = 2
requires-python = ">=3.10"

[[package]]
name = "cloudcoil"
version = "0.5.8"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "cloudcoil-models-` + name + `"
version = "0.0.0"
source = { editable = "." }
dependencies = [
    { name = "cloudcoil" },
]

[package.metadata]
requires-dist = [{ name = "cloudcoil", specifier = ">=0.5.8,<0.6" }]
`
}

// genExecsPin reports whether a generation of name locked pin.
func genExecsPin(e *engine.Engine, name, pin string) bool {
	for _, x := range e.Graph().Execs() {
		if strings.Contains(x.Chain, "gen-repo-"+name) && strings.Contains(strings.Join(x.Args, " "), pin) {
			return true
		}
	}
	return false
}

// newestLines are each integration's newest release line: the last of the versions its
// cookiecutter.yaml lists, oldest first.
func newestLines(t *testing.T, repo string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, name := range upstreamstest12(t, repo) {
		b, err := os.ReadFile(filepath.Join(repo, "models", name, "cookiecutter.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		versions := quotedVersion.FindAllStringSubmatch(string(b), -1)
		if len(versions) == 0 {
			t.Fatalf("models/%s/cookiecutter.yaml lists no versions", name)
		}
		out[name] = versions[len(versions)-1][1]
	}
	return out
}

var quotedVersion = regexp.MustCompile(`'([0-9]+\.[0-9]+\.[0-9]+)'`)

// upstreamstest12 are the integrations of the copy: the folders under models/ with a
// cookiecutter.yaml, 12 in the real repository.
func upstreamstest12(t *testing.T, repo string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(repo, "models", "*", "cookiecutter.yaml"))
	if err != nil || len(matches) != 12 {
		t.Fatalf("integrations of the copy: %d (%v), want the real 12", len(matches), err)
	}
	var names []string
	for _, p := range matches {
		names = append(names, filepath.Base(filepath.Dir(p)))
	}
	return names
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
