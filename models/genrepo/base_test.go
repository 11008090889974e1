package genrepo_test

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/prcheckout"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modeltest"
	"dagger/shipyard/models/upstreams/upstreamstest"
)

// --base as the wrapper and the docs write it, on the clone actions/checkout leaves for a
// pull request (detached at the merge commit, origin's main under refs/remotes, no local
// main): origin/main selects what the pull request changed, as git diff origin/main...HEAD
// does; a name git itself cannot read there fails naming the flag, the names tried and the
// fix. Each base resolves to the commit git gives it in the same clone.
func TestSelectIntegrationsBaseOnAPullRequestCheckout(t *testing.T) {
	old := string(upstreamstest.ReadFile(t, "models/upstreams.json"))
	changed := strings.Replace(old, `"2.16.1"`, `"2.17.0"`, 1) // keda's matrix
	clone := prcheckout.New(t, prcheckout.Options{
		Tree:      modeltest.GeneratorTree(t, nil),
		Change:    map[string]string{"models/upstreams.json": changed},
		MainLater: map[string]string{"docs/later.md": "merged into main after the pull request branched\n"},
	})
	tests := []struct {
		name, base   string
		only         string // --name
		wantRef      string // the name the merge base was taken with
		want         string
		wantErrParts []string
	}{
		{name: "the docs' and a maintainer's origin/main", base: "origin/main", wantRef: "refs/remotes/origin/main", want: `["keda"]`},
		{name: "a matrix job's --name with --base", base: "origin/main", only: "keda", wantRef: "refs/remotes/origin/main", want: `["keda"]`},
		{name: "the wrapper's full remote-tracking ref", base: "refs/remotes/origin/main", wantRef: "refs/remotes/origin/main", want: `["keda"]`},
		{name: "remotes/origin/main", base: "remotes/origin/main", wantRef: "remotes/origin/main", want: `["keda"]`},
		{name: "the base commit", base: clone.Base, wantRef: clone.Base, want: `["keda"]`},
		{name: "a local main the checkout lacks", base: "main", wantErrParts: []string{
			"--base main", "main, refs/main, refs/heads/main, refs/tags/main, refs/remotes/main, refs/remotes/main/HEAD",
			"git fetch origin main", "origin/main",
		}},
		{name: "a branch origin lacks", base: "origin/trunk", wantErrParts: []string{
			"--base origin/trunk", "refs/remotes/origin/trunk", "git fetch origin trunk",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, e := modeltest.NewEnv(t)
			// The history's answers; the double looks the refs up in the clone's .git.
			e.OnField(engine.FieldRule{Type: "Changeset", Field: "modifiedPaths", Value: []any{"models/upstreams.json"}})
			e.OnField(engine.FieldRule{Type: "Directory", Field: "exists", ChainContains: "commonAncestor", Value: true})
			e.OnFile(engine.FileRule{Path: "models/upstreams.json", ChainContains: "commonAncestor", Contents: old})
			v, err := genrepo.SelectIntegrations(context.Background(), env.Client.Host().Directory(clone.Dir), genrepo.ValidateOptions{Base: tt.base, Name: tt.only})
			gitSHA, gitErr := exec.Command("git", "-C", clone.Dir, "rev-parse", "--verify", "-q", tt.base+"^{commit}").Output()
			if tt.wantErrParts != nil {
				if err == nil {
					t.Fatalf("selected %s, want an error", v.ListJSON())
				}
				for _, part := range tt.wantErrParts {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("the error lacks %q: %v", part, err)
					}
				}
				if gitErr == nil {
					t.Errorf("git reads %s as %s where Shipyard refused it", tt.base, gitSHA)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.ListJSON(); got != tt.want {
				t.Errorf("selected %s, want %s", got, tt.want)
			}
			var resolved []string
			for _, r := range e.Graph().GitRefs() {
				if r.Kind == "ref" {
					resolved = append(resolved, r.Name)
				}
			}
			if !slices.Equal(resolved, []string{tt.wantRef}) {
				t.Errorf("refs resolved: %q, want %s alone", resolved, tt.wantRef)
			}
			if gitErr != nil || strings.TrimSpace(string(gitSHA)) != clone.Base {
				t.Errorf("git reads %s as %q (%v), want the base %s", tt.base, gitSHA, gitErr, clone.Base)
			}
			// The name found is, in the double's copy of Dagger's lookup, the commit git reads.
			repo := env.Client.Host().Directory(clone.Dir).AsGit()
			name, err := genrepo.ResolveBase(context.Background(), repo, tt.base)
			if err != nil || name != tt.wantRef {
				t.Fatalf("resolveBase = %q, %v; want %s", name, err, tt.wantRef)
			}
			if sha, err := repo.Ref(name).Commit(context.Background()); err != nil || sha != clone.Base {
				t.Errorf("%s is commit %q (%v), want the base %s", name, sha, err, clone.Base)
			}
		})
	}
}

// A source without its Git history fails on the first name, saying what is missing,
// rather than listing names that could never be found.
func TestSelectIntegrationsBaseWithoutHistory(t *testing.T) {
	env, _ := modeltest.NewEnv(t)
	_, err := genrepo.SelectIntegrations(context.Background(), modeltest.GeneratorRepo(t, env, nil), genrepo.ValidateOptions{Base: "origin/main"})
	if err == nil || !strings.Contains(err.Error(), "validate-models --base origin/main: reading the source's Git history") ||
		!strings.Contains(err.Error(), "does --source hold .git?") || strings.Contains(err.Error(), "refs/remotes/") {
		t.Errorf("err = %v, want the missing history named", err)
	}
}

// The names asked for, in order: Dagger's lookup covers the name, refs/<name>,
// refs/heads/<name> and refs/tags/<name>; Shipyard adds git's remote-tracking rules.
func TestBaseRefs(t *testing.T) {
	sha := strings.Repeat("0123456789abcdef", 3)[:40]
	tests := []struct {
		base        string
		want, tried []string
		advice      string
	}{
		{"origin/main", []string{"origin/main", "refs/remotes/origin/main", "refs/remotes/origin/main/HEAD"},
			[]string{"origin/main", "refs/origin/main", "refs/heads/origin/main", "refs/tags/origin/main", "refs/remotes/origin/main", "refs/remotes/origin/main/HEAD"},
			"git fetch origin main;"},
		{"upstream/release-1.2", []string{"upstream/release-1.2", "refs/remotes/upstream/release-1.2", "refs/remotes/upstream/release-1.2/HEAD"}, nil, "git fetch upstream release-1.2;"},
		{"main", []string{"main", "refs/remotes/main", "refs/remotes/main/HEAD"},
			[]string{"main", "refs/main", "refs/heads/main", "refs/tags/main", "refs/remotes/main", "refs/remotes/main/HEAD"},
			"(--base origin/main, which git fetch origin main brings)"},
		{"origin", []string{"origin", "refs/remotes/origin", "refs/remotes/origin/HEAD"}, nil, "--base origin/origin"},
		{"remotes/origin/main", []string{"remotes/origin/main", "refs/remotes/remotes/origin/main", "refs/remotes/remotes/origin/main/HEAD"}, nil, "git fetch origin main;"},
		{"refs/remotes/origin/main", []string{"refs/remotes/origin/main"},
			[]string{"refs/remotes/origin/main", "refs/heads/refs/remotes/origin/main", "refs/tags/refs/remotes/origin/main"},
			"git fetch origin main;"},
		{"refs/heads/main", []string{"refs/heads/main"}, []string{"refs/heads/main", "refs/tags/refs/heads/main"}, "fetch it first (in GitHub Actions"},
		{"HEAD", []string{"HEAD"}, nil, ""},
		{sha, []string{sha}, nil, ""},
		{"0123abc", []string{"0123abc", "refs/remotes/0123abc", "refs/remotes/0123abc/HEAD"}, nil, "full SHA"}, // abbreviated: Dagger's lookup takes full SHAs only
		{strings.ToUpper(sha), []string{sha}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			if got := genrepo.BaseRefs(tt.base); !slices.Equal(got, tt.want) {
				t.Errorf("BaseRefs = %q, want %q", got, tt.want)
			}
			if got := genrepo.BaseNamesTried(tt.base); tt.tried != nil && !slices.Equal(got, tt.tried) {
				t.Errorf("names tried = %q, want %q", got, tt.tried)
			}
			if got := genrepo.BaseAdviceFor(tt.base); !strings.Contains(got, tt.advice) || !strings.Contains(got, "full SHA") {
				t.Errorf("advice %q lacks %q or the SHA", got, tt.advice)
			}
		})
	}
}
