//go:build realengine

package realengine

import (
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/pelletier/go-toml/v2"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/testkit/cloudcoilinputs"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/pymodels"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/upstreams"
)

// generatorCase is one integration at one upstream version, a run of the real generator on
// that version's inputs.
type generatorCase = cloudcoilinputs.Case

// ciGeneratorCases are the cases the real-engine suite runs: the three of the first run
// (raw URLs, several files, a concatenated release asset) through every step; then, through
// generation and the model repository's checks only (gen-repo, the kinds, validate-models,
// model-ci), an integration at a second version, which takes the release sed's rewrite of
// crd_urls (cert-manager 1.17.1), a YAML release asset with other objects beside its CRDs and
// values PyYAML would read as `=` (prometheus-operator's bundle.yaml), and a Swagger input
// (kpack's swagger.json). Their model-release and update-repos dry runs read nothing the
// first three do not, and cost CI a minute or two each; bench/cloudcoil-generators.sh runs
// every step for every case (SHIPYARD_CLOUDCOIL_GENERATORS=all).
var ciGeneratorCases = []generatorCase{
	{Name: "sealed-secrets", Version: "0.28.0"},
	{Name: "velero", Version: "1.15.2"},
	{Name: "cert-manager", Version: "1.16.3"},
	{Name: "cert-manager", Version: "1.17.1"},
	{Name: "prometheus-operator", Version: "0.80.1"},
	{Name: "kpack", Version: "0.16.1"},
}

// ciGenerationOnly are the cases of ciGeneratorCases that stop after model-ci.
var ciGenerationOnly = ciGeneratorCases[3:]

// generatorCasesEnv selects the cases: unset, the CI few; "all", every integration the
// corpus has real inputs for, at the version its crd_urls names and at each line of its
// versions; or a comma-separated list of name@version.
const generatorCasesEnv = "SHIPYARD_CLOUDCOIL_GENERATORS"

// selectedGeneratorCases are the cases to run, and of them those that stop after model-ci.
func selectedGeneratorCases(t *testing.T, cc string) (cases, generationOnly []generatorCase) {
	t.Helper()
	sel := strings.TrimSpace(os.Getenv(generatorCasesEnv))
	switch sel {
	case "":
		return ciGeneratorCases, ciGenerationOnly
	case "all":
		all, err := cloudcoilinputs.AllCases(cc)
		if err != nil {
			t.Fatal(err)
		}
		return all, nil
	}
	for _, c := range strings.Split(sel, ",") {
		name, version, ok := strings.Cut(strings.TrimSpace(c), "@")
		if !ok {
			t.Fatalf("%s=%q: want all or name@version,...", generatorCasesEnv, sel)
		}
		cases = append(cases, generatorCase{Name: name, Version: version})
	}
	return cases, nil
}

// cloudcoilRelease is the Cloudcoil core release installed in the image: the newest of the
// corpus, which the template's `uv add cloudcoil -U` locks.
const cloudcoilRelease = "0.5.8"

// The real Cloudcoil generator on a real engine, for the integrations whose inputs the corpus
// holds, at the versions they generate: a copy of the real repository, the real make
// gen-repo-<name> (cookiecutter, the template's hook, make fix-lint), the real
// cloudcoil-model-codegen of Cloudcoil 0.5.8 (datamodel-code-generator 0.26.4, ruff), the
// real ruff, mypy, pytest and hatchling, all from the Debian toolchain image. The inputs are
// served inside the engine's network under their real URLs' paths; the copy's crd_urls name
// that server instead of GitHub, and its versions the case's version. uv is the stand-in
// (internal/realengine/uvstandin). The copy is adopted first (the template patch onto
// Cloudcoil 0.5); then, for each case, gen-repo, every CRD kind checked as a class,
// validate-models, model-ci, model-release --dry-run and update-repos --dry-run, against the
// GitHub and PyPI simulators. Each step logs a generatorStepMark line that
// bench/cloudcoil-generators.sh makes into its table.
func TestCloudcoilRealGenerator(t *testing.T) {
	t.Parallel()
	cc := corpus.Dir(t, "cloudcoil")
	crds := serve(t, crdServer(t, cc))
	pins := cloudcoilPins(t, cc)
	cases, generationOnly := selectedGeneratorCases(t, cc)
	for _, c := range cases {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			runGeneratorCase(t, cc, crds, withModelDependencies(t, cc, crds, pins, c), c, !slices.Contains(generationOnly, c))
		})
	}
}

// generatorStepMark opens the line each step of a case logs: case, step, pass/fail/skip,
// seconds, separated by |.
const generatorStepMark = "CLOUDCOIL-GENERATOR-STEP"

type generatorSteps struct {
	t *testing.T
	c generatorCase
}

// run times one step and logs its line; a failed step fails the test and the later steps
// that need its output are skipped (need).
func (s generatorSteps) run(step string, f func() error) bool {
	start := time.Now()
	err := f()
	res := "pass"
	if err != nil {
		res = "fail"
		s.t.Errorf("%s: %s: %v", s.c, step, err)
	}
	s.t.Logf("%s|%s|%s|%s|%s|%.0f", generatorStepMark, s.c.Name, s.c.Version, step, res, time.Since(start).Seconds())
	return err == nil
}

func (s generatorSteps) skip(step string) {
	s.t.Logf("%s|%s|%s|%s|skip|0", generatorStepMark, s.c.Name, s.c.Version, step)
}

// callErr is call that returns the failure instead of ending the test.
func callErr(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	r := cli(t, env, "", append([]string{"call"}, args...)...)
	if r.err != nil {
		return r.stdout, fmt.Errorf("dagger call %s failed:\n%s", strings.Join(redactArgs(args), " "), r)
	}
	return r.stdout, nil
}

// runGeneratorCase runs a case's steps; all false stops after model-ci.
func runGeneratorCase(t *testing.T, cc, crds string, pins []string, c generatorCase, all bool) {
	name := c.Name
	tree := realRepositoryCopy(t, cc, crds, map[string]string{name: c.Version})
	adoptTemplate(t, tree)
	s := generatorSteps{t, c}
	out := t.TempDir()
	module := strings.ReplaceAll(name, "-", "_")
	generated := s.run("gen-repo", func() error {
		_, err := callErr(t, nil, append(append([]string{"--source", tree}, pins...), "gen-repo", "--name", name, "export", "--path", out)...)
		if err != nil {
			return err
		}
		return onlyWhatGitKeeps(out)
	})
	if generated {
		s.run("models", func() error {
			defined := classesIn(t, filepath.Join(out, "cloudcoil", "models", module))
			var missing []string
			kinds, err := cloudcoilinputs.Kinds(cc, c)
			if err != nil {
				return err
			}
			for _, kind := range kinds {
				if !slices.Contains(defined, kind) {
					missing = append(missing, kind)
				}
			}
			if len(missing) > 0 {
				return fmt.Errorf("the generated cloudcoil.models.%s defines no class %s (it defines %d classes)", module, strings.Join(missing, ", "), len(defined))
			}
			header, err := os.ReadFile(firstModule(t, filepath.Join(out, "cloudcoil", "models", module)))
			if err != nil || !strings.HasPrefix(string(header), "# Generated by cloudcoil-model-codegen v"+cloudcoilRelease) {
				return fmt.Errorf("a generated module does not open with the real generator's header: %.80q (%v)", header, err)
			}
			return sameShape(cc, c, filepath.Join(out, "cloudcoil", "models", module))
		})
	} else {
		s.skip("models")
	}

	s.run("validate-models", func() error {
		validated, err := callErr(t, nil, append(append([]string{"--source", tree}, pins...), "validate-models", "--name", name)...)
		if err == nil {
			err = contains("validate-models", validated, "Validated "+name)
		}
		return err
	})

	if generated {
		s.run("model-ci", func() error {
			ci := t.TempDir()
			if _, err := callErr(t, nil, append(append([]string{"--source", out}, pins...), "model-ci", "--python", "3.13", "export", "--path", ci)...); err != nil {
				return err
			}
			summary, err := os.ReadFile(filepath.Join(ci, "summary.md"))
			if err != nil {
				return err
			}
			if err := contains("model-ci summary", string(summary), "lint", "test (Python 3.13)", "artifacts"); err != nil {
				return err
			}
			// The test results real pytest wrote for Codecov, from the template's own pytest
			// options. Its coverage options (--cov=cloudcoil, with cloudcoil/models/**
			// omitted) measure nothing in a model repository, so real pytest-cov writes no
			// coverage.xml: the wrapper's coverage upload runs only when there is one.
			junit, err := os.ReadFile(filepath.Join(ci, "junit.xml"))
			if err != nil {
				return fmt.Errorf("model-ci exported no junit.xml: %w", err)
			}
			if err := contains("model-ci junit.xml", string(junit), "<testsuite"); err != nil {
				return err
			}
			if _, err := os.Stat(filepath.Join(ci, "coverage.xml")); !os.IsNotExist(err) {
				return fmt.Errorf("model-ci exported a coverage.xml (%v): the template's coverage settings now measure something; make the model-ci wrapper's coverage upload unconditional", err)
			}
			return nil
		})
	} else {
		s.skip("model-ci")
	}

	if !all {
		s.skip("model-release")
		s.skip("update-repos")
		return
	}
	// The generated repository as cloudcoil/models-<name>'s main: model-release --dry-run
	// plans its first release, and update-repos --dry-run from the copy of the real
	// repository finds main already as generated. Neither writes.
	sim := githubsim.New(t)
	sim.AddToken(modelReleaseToken, githubsim.Token{PushAccess: true})
	env := map[string]string{"GHTOKEN": modelReleaseToken}
	gh := []string{"--github-api", publishGitHub(t, sim), "--github-token", "env://GHTOKEN"}
	if generated {
		mainSHA := sim.AddRepo("cloudcoil", "models-"+name).CommitOnBranch("main", "Initial generation", fixtures.ReadFiles(t, out))
		pypi := serve(t, proxyTo(t, pypisim.New(t).URL()))
		s.run("model-release", func() error {
			release, err := callErr(t, env, append(append(append([]string{"--source", out, "--repo", "cloudcoil/models-" + name}, gh...), pins...),
				"model-release", "--commit", mainSHA, "--pypi-url", pypi)...)
			if err == nil {
				err = contains("model-release --dry-run", release, "upstream:        "+c.Version, "version:         "+c.Version+".0", "last published:  none", "| lint", "artifacts")
			}
			return err
		})
	} else {
		s.skip("model-release")
	}
	merged := sim.AddRepo("cloudcoil", "cloudcoil").CommitOnBranch("main", "Merge the update", map[string]string{"README.md": "Cloudcoil\n"})
	s.run("update-repos", func() error {
		update, err := callErr(t, env, append(append(append([]string{"--source", tree, "--repo", "cloudcoil/cloudcoil"}, gh...), pins...),
			"update-repos", "--name", name, "--commit", merged, "--dry-run")...)
		if err == nil {
			err = contains("update-repos --dry-run", update, name)
		}
		return err
	})
	if writes := sim.Writes(); len(writes) != 0 {
		t.Errorf("the dry runs wrote %v", writes)
	}
}

// onlyWhatGitKeeps fails when the exported repository holds a path its own .gitignore
// ignores (a cache, an environment, build output), as the real git reads it.
func onlyWhatGitKeeps(repo string) error {
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return string(out), nil
	}
	if _, err := git("init", "-q"); err != nil {
		return err
	}
	defer os.RemoveAll(filepath.Join(repo, ".git"))
	status, err := git("status", "--porcelain", "--ignored", "--untracked-files=all")
	if err != nil {
		return err
	}
	var ignored []string
	for _, line := range strings.Split(status, "\n") {
		if p, ok := strings.CutPrefix(line, "!! "); ok {
			ignored = append(ignored, p)
		}
	}
	if len(ignored) > 0 {
		return fmt.Errorf("the exported repository holds what its .gitignore ignores, which the maintainers' repositories do not: %s", strings.Join(ignored, ", "))
	}
	return nil
}

// modelShapesDir holds each case's fixture: the shape (pymodels.Shape.Text) of the package
// the real generator made of the case's real inputs, reviewed when written.
const modelShapesDir = "testdata/modelshapes"

// updateModelShapesEnv, set to 1, writes the fixtures of the cases run instead of comparing.
const updateModelShapesEnv = "SHIPYARD_UPDATE_MODEL_SHAPES"

// sameShape compares the generated package with what the case's CRDs give (every served
// version a Resource class with its apiVersion, kind and top-level fields; a Swagger input
// gives none) and with the case's fixture: modules, classes and bases, resources, every
// field's type, alias and default. A change to generation, to the template patch or to the
// toolchain image that alters one of these fails here.
func sameShape(cc string, c generatorCase, pkg string) error {
	shape, err := pymodels.Read(os.DirFS(pkg))
	if err != nil {
		return err
	}
	fixture := filepath.Join(modelShapesDir, c.String()+".txt")
	got := shape.Text()
	if os.Getenv(updateModelShapesEnv) == "1" {
		if err := os.WriteFile(fixture, []byte(got), 0o644); err != nil {
			return err
		}
	}
	derived, err := cloudcoilinputs.Resources(cc, c)
	if err != nil {
		return err
	}
	if len(derived) > 0 {
		if problems := cloudcoilinputs.CheckResources(derived, shape); len(problems) > 0 {
			return fmt.Errorf("the generated resources differ from the CRDs':\n  %s", strings.Join(problems, "\n  "))
		}
	}
	if os.Getenv(updateModelShapesEnv) == "1" {
		return nil
	}
	want, err := os.ReadFile(fixture)
	if err != nil {
		return fmt.Errorf("no fixture for %s (%w): run bench/cloudcoil-generators.sh with %s=1, review %s and commit it", c, err, updateModelShapesEnv, fixture)
	}
	if diff := pymodels.Diff(string(want), got, 40); len(diff) > 0 {
		return fmt.Errorf("the generated package's shape differs from %s (- fixture, + generated):\n%s\nIf the change is intended, write the fixture again with %s=1 and review it", fixture, strings.Join(diff, "\n"), updateModelShapesEnv)
	}
	return nil
}

// contains is mustContain as an error.
func contains(what, s string, want ...string) error {
	for _, w := range want {
		if !strings.Contains(s, w) {
			return fmt.Errorf("%s lacks %q:\n%s", what, w, tail(s, 40))
		}
	}
	return nil
}

// adoptTemplate applies to the copy the template patch adoption makes once propose-upstreams
// has decided Cloudcoil 0.5 at the release the image holds (model-template-patch's own
// function; TestCloudcoilRealTemplate runs it through the engine): the requirement raised
// from ">=0.4.0" onto 0.5. Unadopted, the template's hook locks 0.5.8 under a requirement
// whose minor is 0.4, and model-release's dependency check refuses every release.
func adoptTemplate(t *testing.T, tree string) {
	t.Helper()
	current := map[string][]byte{}
	for _, p := range genrepo.TemplatePaths() {
		if b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(p))); err == nil {
			current[p] = b
		}
	}
	patch, err := genrepo.TemplatePatchFor(current, genrepo.CloudcoilBound{Minor: upstreams.Line{Major: 0, Minor: 5}, Floor: cloudcoilRelease})
	if err != nil {
		t.Fatal(err)
	}
	apply := exec.Command("git", "apply", "-p1", "-")
	apply.Dir, apply.Stdin = tree, strings.NewReader(patch)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply the adoption's template patch: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(upstreams.TemplatePyproject)))
	if err != nil || !strings.Contains(string(b), `"cloudcoil>=`+cloudcoilRelease+`,<0.6",`) {
		t.Fatalf("the adopted template's requirement is not on 0.5 (%v)", err)
	}
}

// modelReleaseToken is the CI_GITHUB_TOKEN the dry runs are given, as the wrappers give it.
const modelReleaseToken = "ghp_ci_github_token_of_the_model_repositories"

// crdServer serves every case's inputs under the paths of their real URLs
// (cloudcoilinputs.Paths).
func crdServer(t *testing.T, cc string) http.Handler {
	t.Helper()
	files, err := cloudcoilinputs.Paths(cc)
	if err != nil {
		t.Fatal(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	})
}

var versionsLine = regexp.MustCompile(`(?m)^(\s*versions:\s*)(.*)$`)

// realRepositoryCopy copies the real repository, points the given integrations' crd_urls at
// the CRD server and makes their versions the one line given ("": their versions as they
// are), so gen-repo generates that version (through the release sed when it is not the one
// crd_urls names).
func realRepositoryCopy(t *testing.T, cc, server string, lines map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(cc, "tree"))); err != nil {
		t.Fatal(err)
	}
	for name, version := range lines {
		p := filepath.Join(dir, "models", name, "cookiecutter.yaml")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.NewReplacer("https://raw.githubusercontent.com/", server+"/", "https://github.com/", server+"/").Replace(string(b))
		if version != "" {
			s = versionsLine.ReplaceAllString(s, `${1}"'`+version+`'"`)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var classDef = regexp.MustCompile(`(?m)^class (\w+)\(`)

// classesIn lists the classes the Python modules under dir define.
func classesIn(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".py") {
			return err
		}
		b, err := os.ReadFile(p)
		for _, m := range classDef.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstModule is a generated module (not __init__.py) under dir.
func firstModule(t *testing.T, dir string) string {
	t.Helper()
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && found == "" && !d.IsDir() && strings.HasSuffix(p, ".py") && d.Name() != "__init__.py" {
			found = p
		}
		return nil
	})
	if found == "" {
		t.Fatalf("no generated module under %s", dir)
	}
	return found
}

// cloudcoilPins pins the toolchain image with Cloudcoil core installed, as its wheel
// installs it: the package source of the corpus's release, a dist-info with its metadata
// and entry points, and the cloudcoil-model-codegen script.
func cloudcoilPins(t *testing.T, cc string) []string {
	t.Helper()
	cloudcoilImage.once.Do(func() { cloudcoilImage.ref, cloudcoilImage.err = pushCloudcoilImage(t, cc) })
	if cloudcoilImage.err != nil {
		t.Fatalf("the toolchain image with Cloudcoil %s: %v", cloudcoilRelease, cloudcoilImage.err)
	}
	img := cloudcoilImage.ref
	return []string{"--pin", "python-3.13=" + img, "--pin", "uv=" + img, "--pin", "go=" + img}
}

var cloudcoilImage struct {
	once sync.Once
	ref  string
	err  error
}

func pushCloudcoilImage(t *testing.T, cc string) (string, error) {
	img, err := withCloudcoil(t, cc)
	if err != nil {
		return "", err
	}
	return pushImage(img, "shipyard-test/python-cloudcoil")
}

// withCloudcoil is the toolchain image with Cloudcoil core's layer.
func withCloudcoil(t *testing.T, cc string) (v1.Image, error) {
	src := filepath.Join(cc, "releases", cloudcoilRelease)
	site := "usr/local/lib/python3.13/dist-packages/"
	stage := t.TempDir()
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(src, "cloudcoil"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files[site+filepath.ToSlash(rel)] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	meta, err := distInfo(filepath.Join(src, "pyproject.toml"))
	if err != nil {
		return nil, err
	}
	info := site + "cloudcoil-" + cloudcoilRelease + ".dist-info/"
	for name, content := range map[string]string{
		info + "METADATA":                       meta,
		info + "entry_points.txt":               "[console_scripts]\ncloudcoil-model-codegen = cloudcoil.codegen.generator:main\n\n[pytest11]\ncloudcoil = cloudcoil._testing.plugin\n",
		info + "INSTALLER":                      "shipyard-realengine\n",
		info + "RECORD":                         "",
		"usr/local/bin/cloudcoil-model-codegen": "#!/usr/bin/python3\nimport sys\nfrom cloudcoil.codegen.generator import main\nsys.exit(main())\n",
	} {
		p := filepath.Join(stage, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return nil, err
		}
		files[name] = p
	}
	layer, err := fileLayer(files)
	if err != nil {
		return nil, err
	}
	img, err := pythonToolchainImage()
	if err != nil {
		return nil, err
	}
	return mutate.AppendLayers(img, layer)
}

var kubernetesImage struct {
	once sync.Once
	pins []string
	err  error
}

// withModelDependencies are the pins of the case: for an integration whose models depend on
// cloudcoil.models.kubernetes, an image that also holds that package, generated once.
func withModelDependencies(t *testing.T, cc, crds string, pins []string, c generatorCase) []string {
	t.Helper()
	cfg, err := cloudcoilinputs.ReadCookiecutter(cc, c.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(cfg.Dependencies, cloudcoilinputs.KubernetesModels) {
		return pins
	}
	kubernetesImage.once.Do(func() {
		var ref string
		ref, kubernetesImage.err = pushKubernetesModels(t, cc, crds, pins)
		kubernetesImage.pins = []string{"--pin", "python-3.13=" + ref, "--pin", "uv=" + ref, "--pin", "go=" + ref}
	})
	if kubernetesImage.err != nil {
		t.Fatalf("the toolchain image with %s: %v", cloudcoilinputs.KubernetesModels, kubernetesImage.err)
	}
	return kubernetesImage.pins
}

// pushKubernetesModels runs gen-repo for the kubernetes integration and installs what it
// generated, as its wheel would install it, over the Cloudcoil image.
func pushKubernetesModels(t *testing.T, cc, crds string, pins []string) (string, error) {
	tree := realRepositoryCopy(t, cc, crds, map[string]string{"kubernetes": ""})
	adoptTemplate(t, tree)
	out := t.TempDir()
	if _, err := callErr(t, nil, append(append([]string{"--source", tree}, pins...), "gen-repo", "--name", "kubernetes", "export", "--path", out)...); err != nil {
		return "", err
	}
	site := "usr/local/lib/python3.13/dist-packages/"
	files := map[string]string{}
	// The package only: cloudcoil/ and cloudcoil/models/ are namespace packages, and the
	// apimachinery types the transformations put in cloudcoil are Cloudcoil core's.
	err := filepath.WalkDir(filepath.Join(out, "cloudcoil", "models", "kubernetes"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		files[site+filepath.ToSlash(rel)] = p
		return nil
	})
	if err != nil {
		return "", err
	}
	stage := t.TempDir()
	info := site + "cloudcoil_models_kubernetes-1.32.1.0.dist-info/"
	for name, content := range map[string]string{
		info + "METADATA":  "Metadata-Version: 2.4\nName: " + cloudcoilinputs.KubernetesModels + "\nVersion: 1.32.1.0\nRequires-Python: >=3.10\nRequires-Dist: cloudcoil>=" + cloudcoilRelease + ",<0.6\n",
		info + "INSTALLER": "shipyard-realengine\n",
		info + "RECORD":    "",
	} {
		p := filepath.Join(stage, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return "", err
		}
		files[name] = p
	}
	layer, err := fileLayer(files)
	if err != nil {
		return "", err
	}
	img, err := withCloudcoil(t, cc)
	if err != nil {
		return "", err
	}
	if img, err = mutate.AppendLayers(img, layer); err != nil {
		return "", err
	}
	return pushImage(img, "shipyard-test/python-cloudcoil-kubernetes")
}

// distInfo is the METADATA of the release, from its pyproject.toml: the version is the
// release's (the file says 0.5.0dev0; the release workflow sets the tag's), the
// requirements and extras as the wheel declares them.
func distInfo(pyproject string) (string, error) {
	b, err := os.ReadFile(pyproject)
	if err != nil {
		return "", err
	}
	var doc struct {
		Project struct {
			Name                 string              `toml:"name"`
			RequiresPython       string              `toml:"requires-python"`
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
		} `toml:"project"`
	}
	if err := toml.Unmarshal(b, &doc); err != nil {
		return "", fmt.Errorf("%s: %w", pyproject, err)
	}
	var m strings.Builder
	fmt.Fprintf(&m, "Metadata-Version: 2.4\nName: %s\nVersion: %s\nRequires-Python: %s\n", doc.Project.Name, cloudcoilRelease, doc.Project.RequiresPython)
	for _, d := range doc.Project.Dependencies {
		fmt.Fprintf(&m, "Requires-Dist: %s\n", d)
	}
	extras := make([]string, 0, len(doc.Project.OptionalDependencies))
	for e := range doc.Project.OptionalDependencies {
		extras = append(extras, e)
	}
	slices.Sort(extras)
	for _, e := range extras {
		fmt.Fprintf(&m, "Provides-Extra: %s\n", e)
		for _, d := range doc.Project.OptionalDependencies[e] {
			req, marker, hasMarker := strings.Cut(d, ";")
			if hasMarker {
				fmt.Fprintf(&m, "Requires-Dist: %s; (%s) and extra == %q\n", strings.TrimSpace(req), strings.TrimSpace(marker), e)
			} else {
				fmt.Fprintf(&m, "Requires-Dist: %s; extra == %q\n", strings.TrimSpace(d), e)
			}
		}
	}
	return m.String(), nil
}

// A pull request that changes the generator (cloudcoil/codegen/) is validated with the
// checkout's generator, on a real engine: the real repository's own generator (its main
// branch, not the 0.5.8 release the image holds) generates and passes sealed-secrets'
// checks, layered by uv run --with-editable; and a generator that fails shows that the
// checkout's code is what ran, while the same tree without the change's paths still
// generates with the published one.
func TestCloudcoilCheckoutGenerator(t *testing.T) {
	t.Parallel()
	cc := corpus.Dir(t, "cloudcoil")
	crds := serve(t, crdServer(t, cc))
	pins := cloudcoilPins(t, cc)
	const name = "sealed-secrets"
	changed := []string{"--changed", "cloudcoil/codegen/generator.py"}

	tree := realRepositoryCopy(t, cc, crds, map[string]string{name: "0.28.0"})
	out := call(t, nil, append(append(append([]string{"--source", tree}, pins...), "validate-models", "--name", name), changed...)...)
	mustContain(t, "validate-models with the checkout's generator", out, "Validated "+name, "generated with the checkout's generator")

	broken := realRepositoryCopy(t, cc, crds, map[string]string{name: "0.28.0"})
	generator := filepath.Join(broken, "cloudcoil", "codegen", "generator.py")
	src, err := os.ReadFile(generator)
	if err != nil {
		t.Fatal(err)
	}
	const marker = "the checkout's generator ran"
	patched := strings.Replace(string(src), "def main() -> None:\n", "def main() -> None:\n    raise SystemExit(\""+marker+"\")\n", 1)
	if patched == string(src) {
		t.Fatal("the real generator has no `def main() -> None:` any more; this test changes nothing")
	}
	if err := os.WriteFile(generator, []byte(patched), 0o644); err != nil {
		t.Fatal(err)
	}
	r := cli(t, nil, "", append(append(append([]string{"call", "--source", broken}, pins...), "validate-models", "--name", name), changed...)...)
	if r.err == nil {
		t.Fatalf("a generator that exits at once passed validation:\n%s", r)
	}
	mustContain(t, "validate-models with a broken checkout generator", r.stdout+r.stderr, name+": generate", "failed", marker)
	call(t, nil, append(append([]string{"--source", broken}, pins...), "validate-models", "--name", name)...)
}
