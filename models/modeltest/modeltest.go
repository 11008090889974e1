// Package modeltest programs the engine double for the model graphs of packages genrepo,
// modelci, modelrelease and updaterepos (over modelenv), whose commands (cookiecutter, uv
// build) produce files the double cannot know: tests give what a real run would have
// produced.
package modeltest

import (
	"context"
	"encoding/base64"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// ServeDistributions makes every build whose chain contains chain ("" for any) list the
// two archives in modelenv.DistDir and read them back, base64-encoded as the graph
// reads them, as the real bytes of dist.
func ServeDistributions(e *engine.Engine, chain string, dist fixtures.Distributions) {
	e.OnEntries(engine.DirRule{Path: modelenv.DistDir, ChainContains: chain, Entries: []string{dist.SdistName, dist.WheelName}})
	for name, data := range map[string][]byte{dist.WheelName: dist.Wheel, dist.SdistName: dist.Sdist} {
		e.OnFile(engine.FileRule{
			Path:          modelenv.EncodedDir + "/" + name + ".b64",
			ChainContains: chain,
			Contents:      base64.StdEncoding.EncodeToString(data),
		})
	}
}

// VersionChain is what the chain of a release build of version contains: its
// pyproject.toml with the version set, as the double quotes it.
func VersionChain(version string) string {
	return fmt.Sprintf(`version = \"%s\"`, version)
}

// RenderOneFolder makes every make gen-repo-<name> render one repository folder, as the
// Cloudcoil template does, holding the model repository fixture's files.
func RenderOneFolder(e *engine.Engine) {
	e.OnEntries(engine.DirRule{Path: genrepo.RenderDir, Entries: []string{"models-rendered/"}})
	ServeRendered(e, "models-rendered", modelRepoFiles())
}

// ServeRendered makes the repository make gen-repo-<name> writes to output/<folder> hold
// files (path → contents): its folders list them and each reads back, as an exec's output
// does on a real engine.
func ServeRendered(e *engine.Engine, folder string, files map[string]string) {
	dirs := map[string][]string{}
	for p, content := range files {
		e.OnFile(engine.FileRule{Path: "output/" + folder + "/" + p, ChainContains: "gen-repo-", Contents: content})
		for child := p; ; {
			parent := path.Dir(child)
			entry := path.Base(child)
			if child != p {
				entry += "/"
			}
			if !slices.Contains(dirs[parent], entry) {
				dirs[parent] = append(dirs[parent], entry)
			}
			if parent == "." {
				break
			}
			child = parent
		}
	}
	for d, entries := range dirs {
		slices.Sort(entries)
		p := genrepo.RenderDir + "/" + folder
		if d != "." {
			p += "/" + d
		}
		e.OnEntries(engine.DirRule{Path: p, ChainContains: "gen-repo-", Entries: entries})
	}
}

// modelRepoFiles reads the model repository fixture, which sits beside this package's
// source in the repository.
func modelRepoFiles() map[string]string {
	_, here, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(here), "..", "..", "internal", "testkit", "fixtures", "modelrepo")
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		panic(fmt.Sprintf("model repository fixture: %v", err)) // part of the repository
	}
	return files
}

// ServeGenerated makes the archive update-repos reads of a generated repository, on a
// container whose chain contains chain ("" for any), the archive of files with modes
// (fixtures.RepoArchive), as one piece.
func ServeGenerated(t testing.TB, e *engine.Engine, chain string, files, modes map[string]string) {
	t.Helper()
	piece := genrepo.ArchivePiece + "0000"
	e.OnEntries(engine.DirRule{Path: genrepo.ArchiveDir, ChainContains: chain, Entries: []string{piece}})
	e.OnFile(engine.FileRule{Path: genrepo.ArchiveDir + "/" + piece, ChainContains: chain,
		Contents: base64.StdEncoding.EncodeToString(fixtures.RepoArchive(t, files, modes))})
}

// CloudcoilTree is the real Cloudcoil repository of the corpus.
func CloudcoilTree(t testing.TB) string {
	t.Helper()
	return filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
}

// RealIntegrations are the integrations of the real repository: its models/ folders.
func RealIntegrations(t testing.TB, root string) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(root, "models", "*", "cookiecutter.yaml"))
	if err != nil || len(dirs) != 12 {
		t.Fatalf("%d integrations in the corpus (%v), want 12", len(dirs), err)
	}
	names := make([]string, len(dirs))
	for i, d := range dirs {
		names[i] = filepath.Base(filepath.Dir(d))
	}
	return names
}

// PatchedCloudcoil copies the real repository's template, integrations and Makefile to a
// temporary folder and applies TemplatePatch there with git apply, as a maintainer would.
func PatchedCloudcoil(t testing.TB) string {
	t.Helper()
	src := CloudcoilTree(t)
	dir := t.TempDir()
	cp := exec.Command("cp", "-r", filepath.Join(src, "cookiecutter"), filepath.Join(src, "models"), filepath.Join(src, "Makefile"), dir)
	if out, err := cp.CombinedOutput(); err != nil {
		t.Fatalf("copy the corpus: %v\n%s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dir).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v\n%s", err, out)
	}
	ApplyPatch(t, dir, TemplatePatchOf(t, dir))
	return dir
}

// TemplatePatchOf is genrepo.TemplatePatchFor of the template in the folder root, bounded to the
// minor of its own requirement, as model-template-patch does without upstreams.json.
func TemplatePatchOf(t testing.TB, root string) string {
	t.Helper()
	current := map[string][]byte{}
	for _, p := range genrepo.TemplatePaths() {
		if b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p))); err == nil {
			current[p] = b
		} else if !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	minor, ok, err := upstreams.RequirementMinor(upstreams.TemplatePyproject, current[upstreams.TemplatePyproject], "cloudcoil")
	if err != nil || !ok {
		t.Fatalf("the template's minor: %v (found %v)", err, ok)
	}
	patch, err := genrepo.TemplatePatchFor(current, genrepo.CloudcoilBound{Minor: minor})
	if err != nil {
		t.Fatal(err)
	}
	return patch
}

// ApplyPatch applies a patch at root with git apply -p1, as a maintainer would.
func ApplyPatch(t testing.TB, root, patch string) {
	t.Helper()
	apply := exec.Command("git", "apply", "-p1", "-")
	apply.Dir = root
	apply.Stdin = strings.NewReader(patch)
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply the template patch: %v\n%s", err, out)
	}
}

// PatchedCheckout is a rendered repository after a release run: a version set and one
// generated module in the real generator's shape.
func PatchedCheckout(files map[string]string, name string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		out[p] = c
	}
	module := strings.ReplaceAll(name, "-", "_")
	out[modelenv.PyprojectPath] = strings.Replace(out[modelenv.PyprojectPath], `version = "0.0.0"`, `version = "1.0.0.0"`, 1)
	pkg := "cloudcoil/models/" + module
	out[pkg+"/__init__.py"] = "from . import v1 as v1\n"
	out[pkg+"/v1.py"] = "# Generated by cloudcoil-model-codegen v0.5.3\n# DO NOT EDIT\n\nfrom cloudcoil.resources import Resource\n\n\nclass Example(Resource):\n    pass\n"
	return out
}

// GeneratorRepo is a Cloudcoil repository: the upstreams fixture (eight integrations),
// the shared template, and for each integration overlays that hold a whole generated
// repository (the model repository fixture), so that what the double's generation leaves
// in /repo is a repository the artifact checks can read.
func GeneratorRepo(t testing.TB, env modelenv.Env, changes map[string]string) *dagger.Directory {
	t.Helper()
	return env.Client.Host().Directory(GeneratorTree(t, changes))
}

// GeneratorTree writes GeneratorRepo's files to a temporary folder and returns it.
func GeneratorTree(t testing.TB, changes map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	upstreamstest.WriteGenerator(t, dir)
	files := map[string]string{
		"Makefile":                       "REPOS := $(shell ls models | sed 's/\\/$$//')\n\n" + genrepo.GenRepoRule + "\n",
		"cookiecutter/cookiecutter.json": `{"model_name": "model", "module_name": "{{ cookiecutter.model_name | replace('-', '_') }}", "_config_dir": ""}` + "\n",
		"cookiecutter/models-{{ cookiecutter.model_name }}/LICENSE": "Apache License 2.0\n",
		"cookiecutter/hooks/post_gen_project.sh":                    "#!/bin/bash\nuv sync\n",
	}
	for _, name := range upstreamstest.Names() {
		for p, c := range fixtures.ModelRepoFiles(t, nil) {
			files["models/"+name+"/"+p] = c
		}
	}
	for p, c := range changes {
		if c == "" {
			if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			delete(files, p)
			continue
		}
		files[p] = c
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

// RenderAnything programs the double so that any make gen-repo-<name> renders one
// repository whose pyproject.toml is the model repository fixture's, as the template and
// the appended overlay give it.
func RenderAnything(e *engine.Engine) {
	e.OnEntries(engine.DirRule{Path: genrepo.RenderDir, Entries: []string{"models-x/"}})
	ServeRendered(e, "models-x", modelRepoFiles())
}

// NewEnv starts a strict engine double, expecting the model flows' commands
// (flowexecs.Model), and an Env connected to it: any other command fails the test.
func NewEnv(t testing.TB, opts ...engine.Option) (modelenv.Env, *engine.Engine) {
	t.Helper()
	e := engine.New(t, append([]engine.Option{engine.StrictExecs()}, opts...)...)
	e.ExpectExecs(flowexecs.Model()...)
	return modelenv.NewEnv(e.Client(context.Background())), e
}

// HostRepo is the model repository fixture, with changes, as a directory of the double.
func HostRepo(t testing.TB, env modelenv.Env, changes map[string]string) *dagger.Directory {
	t.Helper()
	return env.Client.Host().Directory(fixtures.ModelRepo(t, changes))
}

// NoSecrets fails t when the graph e recorded created a secret or gave one to an exec.
func NoSecrets(t testing.TB, e *engine.Engine) {
	t.Helper()
	g := e.Graph()
	if len(g.Secrets()) > 0 {
		t.Errorf("the graph created secrets: %v", g.Secrets())
	}
	for _, x := range g.Execs() {
		if len(x.Secrets) > 0 {
			t.Errorf("exec %v received secrets %v", x.Args, x.Secrets)
		}
	}
}

// ExecArgs are the commands e ran, each as one line.
func ExecArgs(e *engine.Engine) []string {
	var out []string
	for _, x := range e.Graph().Execs() {
		out = append(out, strings.Join(x.Args, " "))
	}
	return out
}

// HasExec is whether e ran exactly the command args.
func HasExec(e *engine.Engine, args string) bool {
	return slices.Contains(ExecArgs(e), args)
}

// LockWith is a model repository's uv.lock that locks cloudcoil at the version given.
func LockWith(cloudcoil string) string {
	return `version = 1

[[package]]
name = "cloudcoil"
version = "` + cloudcoil + `"
source = { registry = "https://pypi.org/simple" }

[[package]]
name = "cloudcoil-models-keda"
version = "2.16.1.0"
source = { editable = "." }
`
}
