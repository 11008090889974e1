package upstreamstest

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/models/upstreams"
)

func TestGeneratorRepo(t *testing.T) {
	head := func(dir string) string {
		out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	a, b := GeneratorRepo(t), GeneratorRepo(t)
	if head(a) != head(b) {
		t.Errorf("two fixture repositories have different commits: %s, %s", head(a), head(b))
	}
	out, err := exec.Command("git", "-C", a, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if len(files) != len(Names())+5 || !slices.Contains(files, upstreams.TemplatePyproject) {
		t.Errorf("tracked files = %q, want upstreams.json, the template's pyproject.toml, one cookiecutter.yaml per integration and three overlays", files)
	}
	b1, err := os.ReadFile(filepath.Join(a, "models", "upstreams.json"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b1) != string(ReadFile(t, upstreams.FilePath)) {
		t.Errorf("the repository's upstreams.json differs from the embedded fixture")
	}
}

func TestFixtureIsConsistent(t *testing.T) {
	f, err := upstreams.Parse(ReadFile(t, upstreams.FilePath))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(f.Names(), " ") != strings.Join(Names(), " ") {
		t.Errorf("Names() = %v, file has %v", Names(), f.Names())
	}
	releases := Releases()
	for _, name := range f.Names() {
		in := f.Integrations[name]
		if err := upstreams.CheckCookiecutter(ReadFile(t, upstreams.CookiecutterPath(name)), *in); err != nil {
			t.Error(err)
		}
		rs, ok := releases[in.Repository]
		if !ok {
			t.Errorf("%s: no releases for %s", name, in.Repository)
			continue
		}
		// Every fixture repository carries at least one tag discovery must ignore.
		ignored := 0
		for _, r := range rs {
			if _, ok := upstreams.ReleaseVersion(*in, r.Tag); !ok || r.Draft || r.Prerelease {
				ignored++
			}
		}
		if ignored == 0 || len(upstreams.Candidates(*in, rs)) == 0 {
			t.Errorf("%s: %d releases, %d ignored: want both kinds", name, len(rs), ignored)
		}
	}
	sim := pypisim.New(t)
	SeedPyPI(sim)
	resp, err := sim.Client().Get(sim.URL() + "/pypi/cloudcoil/json")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("seeded PyPI answers %d", resp.StatusCode)
	}
}
