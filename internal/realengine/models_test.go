//go:build realengine

package realengine

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/internal/testkit/prcheckout"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// The listing functions that feed the Cloudcoil wrappers' matrices run on a real engine:
// they read only the source. (Generation, validation, model-ci and update-repos run
// cookiecutter and uv from PyPI, which cannot be reached here; the engine double proves
// those graphs.)
func TestModelMatrices(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	upstreamstest.WriteGenerator(t, src)

	var all []string
	out := call(t, nil, "--source", src, "model-integrations")
	if err := json.Unmarshal([]byte(out), &all); err != nil || len(all) == 0 {
		t.Fatalf("model-integrations printed %q (%v)", out, err)
	}
	want := upstreamstest.Names()
	slices.Sort(want)
	if got := slices.Sorted(slices.Values(all)); !slices.Equal(got, want) {
		t.Errorf("model-integrations = %v, want %v", got, want)
	}

	var changed []string
	out = call(t, nil, "--source", src, "validate-models", "--list", "--changed", "models/"+want[0]+"/cookiecutter.yaml")
	if err := json.Unmarshal([]byte(out), &changed); err != nil || !slices.Equal(changed, want[:1]) {
		t.Errorf("validate-models --list = %q (%v), want [%s]", out, err, want[0])
	}
}

// validate-models --base on the clone actions/checkout leaves for a pull request (detached
// at the merge commit, fetch-depth 0, origin's branches under refs/remotes, no local main),
// as the real engine reads its history: the docs' origin/main and the wrapper's
// refs/remotes/origin/main both list the integration the pull request changed and not the
// one main changed after it branched (the diff is from the merge base); main, which such a
// checkout lacks, fails naming --base, the names tried and the fix. Dagger's own lookup
// fails on origin/main here ("repository does not contain ref").
func TestValidateModelsBaseOnAPullRequestCheckout(t *testing.T) {
	t.Parallel()
	tree := t.TempDir()
	upstreamstest.WriteGenerator(t, tree)
	names := upstreamstest.Names()
	slices.Sort(names)
	clone := prcheckout.New(t, prcheckout.Options{
		Tree:      tree,
		Change:    map[string]string{"models/" + names[0] + "/README.md": "changed by the pull request\n"},
		MainLater: map[string]string{"models/" + names[1] + "/README.md": "changed on main after the pull request branched\n"},
	})
	for _, base := range []string{"origin/main", "refs/remotes/origin/main"} {
		out := call(t, nil, "--source", clone.Dir, "validate-models", "--list", "--base", base)
		var listed []string
		if err := json.Unmarshal([]byte(out), &listed); err != nil || !slices.Equal(listed, names[:1]) {
			t.Errorf("validate-models --list --base %s = %q (%v), want [%s]", base, out, err, names[0])
		}
	}
	r := cli(t, nil, "", "call", "--source", clone.Dir, "validate-models", "--list", "--base", "main")
	if r.err == nil {
		t.Fatalf("validate-models --base main passed on a checkout without a local main:\n%s", r)
	}
	mustContain(t, "validate-models --base main", r.stdout+r.stderr, "--base main", "refs/remotes/main", "--base origin/main")
}

// model-lines reads a model repository's release lines for update-versions' matrix.
func TestModelLines(t *testing.T) {
	t.Parallel()
	out := call(t, nil, "--source", fixtures.ModelRepo(t, nil), "model-lines")
	var lines []modelenv.Line
	if err := json.Unmarshal([]byte(out), &lines); err != nil || len(lines) == 0 {
		t.Fatalf("model-lines printed %q (%v)", out, err)
	}
	if !lines[len(lines)-1].Newest {
		t.Errorf("the last line is not marked newest: %+v", lines)
	}
}

// check-extras against the PyPI simulator, twice with the same arguments: after the
// model distribution is published, the second call sees it (the function reads PyPI and is
// never served from the engine's cache).
func TestCheckExtrasSeesPyPIChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, filepath.Join(dir, "pyproject.toml"), "[project]\nname = \"cloudcoil\"\nversion = \"0.5.3\"\n\n"+
		"[project.optional-dependencies]\nkyverno = [\"cloudcoil.models.kyverno\"]\n")
	pypi := pypisim.New(t)
	url := serve(t, proxyTo(t, pypi.URL()))
	args := []string{"--source", dir, "check-extras", "--pypi-url", url}

	r := cli(t, nil, "", append([]string{"call"}, args...)...)
	if r.err == nil {
		t.Fatalf("check-extras passed with the distribution missing from PyPI:\n%s", r)
	}
	mustContain(t, "check-extras", r.stdout+r.stderr, `extra "kyverno"`, "not on PyPI")
	pypi.AddRelease("cloudcoil.models.kyverno", "1.13.2.0")
	call(t, nil, args...)
}
