// Package versionstest builds the world a model-versions run sees, for tests of the flow
// and of the module function: the fixture generator repository (models/upstreams/
// upstreamstest) on branch main of cloudcoil/cloudcoil in the GitHub simulator, every
// upstream repository with its releases, and Cloudcoil's history in the PyPI simulator.
package versionstest

import (
	"io/fs"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// Token is the token the simulator accepts, with push access. Tests assert it never shows
// up in any output.
const Token = "ghp_modelVersions0SECRET0token"

// Repository is the generator repository's owner/name.
const Repository = "cloudcoil/cloudcoil"

// World is the simulated GitHub and PyPI of a run.
type World struct {
	GitHub   *githubsim.Server
	PyPI     *pypisim.Server
	Repo     *githubsim.Repo            // the generator repository
	Upstream map[string]*githubsim.Repo // by owner/name
}

// New starts both simulators (closed when the test ends) and seeds them with the fixture
// generator repository, its upstreams' releases and Cloudcoil's PyPI history.
func New(t testing.TB) *World {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(upstreamstest.GeneratorFS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(upstreamstest.GeneratorFS(), p)
		files[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatalf("fixture generator repository: %v", err)
	}
	w := NewFrom(t, files, upstreamstest.Releases())
	upstreamstest.SeedPyPI(w.PyPI)
	return w
}

// NewFrom starts both simulators with files on branch main of the generator repository and
// the given upstream releases (by owner/name, newest first); PyPI starts empty.
func NewFrom(t testing.TB, files map[string]string, releases map[string][]upstreams.Release) *World {
	t.Helper()
	w := &World{GitHub: githubsim.New(t), PyPI: pypisim.New(t), Upstream: map[string]*githubsim.Repo{}}
	w.GitHub.AddToken(Token, githubsim.Token{PushAccess: true})
	owner, name, _ := strings.Cut(Repository, "/")
	w.Repo = w.GitHub.AddRepo(owner, name)
	w.Repo.CommitOnBranch("main", "Add model sources", files)
	for full, rels := range releases {
		owner, name, _ := strings.Cut(full, "/")
		r := w.GitHub.AddRepo(owner, name)
		// Listed newest first; the simulator orders them by creation.
		for i := len(rels) - 1; i >= 0; i-- {
			rel := rels[i]
			r.AddRelease(githubsim.Release{TagName: rel.Tag, Draft: rel.Draft, Prerelease: rel.Prerelease})
		}
		w.Upstream[full] = r
	}
	return w
}

// Writes returns "METHOD /path" of each request in log that is not a read.
func Writes(log []githubsim.Request) []string {
	var out []string
	for _, r := range log {
		if r.Method != "GET" && r.Method != "HEAD" {
			out = append(out, r.Method+" "+r.Path)
		}
	}
	return out
}
