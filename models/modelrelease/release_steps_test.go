package modelrelease

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
)

// CheckAccess decides from the role GitHub reports and, since that role is the token's
// user's, from what the token itself may do: a classic token's scopes, any other token's
// answer when asked for something only contents: write allows.
func TestCheckAccess(t *testing.T) {
	rw := github.Permissions{Known: true, Pull: true, Push: true, DefaultBranch: "main"}
	ro := github.Permissions{Known: true, Pull: true, DefaultBranch: "main"}
	classic := func(p github.Permissions, private bool, scopes ...string) github.Permissions {
		p.Private, p.Scopes = private, scopes
		return p
	}
	allowed := github.WriteProbe{Asked: true, Allowed: true}
	refused := github.WriteProbe{Asked: true, Refusal: "POST /repos/o/r/releases/generate-notes: 403 Resource not accessible by integration", Needs: "contents=write"}
	tests := []struct {
		name   string
		p      github.Permissions
		found  bool
		dryRun bool
		probe  github.WriteProbe
		want   string // "" when access suffices
	}{
		{"fine-grained token that may write", rw, true, false, allowed, ""},
		{"fine-grained token that may only read, of a user who may write", rw, true, false, refused, "GitHub refused the token a request that needs contents: write and saves nothing (POST /repos/o/r/releases/generate-notes: 403"},
		{"fine-grained token refused without saying what it needs", rw, true, false, github.WriteProbe{Asked: true, Refusal: "404 Not Found"}, "needs contents: write and saves nothing (404 Not Found)"},
		{"a token not shown to write", rw, true, false, github.WriteProbe{}, "it was not asked"},
		{"classic token with repo", classic(rw, true, "repo"), true, false, github.WriteProbe{}, ""},
		{"classic token with public_repo on a public repository", classic(rw, false, "public_repo", "workflow"), true, false, github.WriteProbe{}, ""},
		{"classic token with public_repo on a private repository", classic(rw, true, "public_repo"), true, false, github.WriteProbe{}, "lack the repo scope it writes with"},
		{"classic token without repo", classic(rw, false, "read:org"), true, false, github.WriteProbe{}, "(X-OAuth-Scopes: read:org) lack the repo scope (or public_repo"},
		{"read only on a dry run", ro, true, true, github.WriteProbe{}, ""},
		{"a read-only grant on a dry run", rw, true, true, github.WriteProbe{}, ""},
		{"read only on a real run", ro, true, false, github.WriteProbe{}, "can read cloudcoil/models-x but not write it"},
		{"not visible", github.Permissions{}, false, true, github.WriteProbe{}, "cannot see cloudcoil/models-x"},
		{"no permissions reported", github.Permissions{}, true, false, github.WriteProbe{}, "reported no permissions"},
		{"no read", github.Permissions{Known: true}, true, true, github.WriteProbe{}, "cannot read cloudcoil/models-x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAccess("cloudcoil/models-x", tc.p, tc.found, tc.dryRun, tc.probe)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, modelenv.ErrNoAccess) ||
				!strings.Contains(err.Error(), "contents: write") {
				t.Errorf("err = %v, want %q and the fix", err, tc.want)
			}
		})
	}
}

func TestResolveUpstream(t *testing.T) {
	lines := fixtureLines(t, "") // model_version: ['1.16.3', '1.17.1']
	tests := []struct {
		given, wantUp, wantBranch, wantErr string
	}{
		{"", "1.17.1", "release-1.17", ""},
		{"1.16.3", "1.16.3", "release-1.16", ""},
		{"1.16", "", "", "want the upstream version X.Y.Z"},
		{"v1.x", "", "", "want the upstream version X.Y.Z"},
	}
	for _, tc := range tests {
		up, branch, err := resolveUpstream(lines, tc.given)
		if up != tc.wantUp || branch != tc.wantBranch || (err == nil) != (tc.wantErr == "") ||
			(err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("resolveUpstream(%q) = %q, %q, %v", tc.given, up, branch, err)
		}
	}
	if _, _, err := resolveUpstream(modelenv.LineConfig{Path: modelenv.UpdateReleasesWorkflow}, ""); err == nil || !strings.Contains(err.Error(), "no --upstream given") {
		t.Errorf("a repository without lines: %v", err)
	}
}

func TestChecksOutcome(t *testing.T) {
	passed := jobs.Summary{Jobs: []jobs.JobResult{{Name: "lint", Status: jobs.Passed}}}
	if d, err := checksOutcome(passed); err != nil {
		t.Errorf("passed checks: %v, %v", d, err)
	}
	failed := jobs.Summary{Jobs: []jobs.JobResult{{Name: "lint", Status: jobs.Failed, Reason: "exit 1"}}}
	d, err := checksOutcome(failed)
	if d.Action != models.Stop || err == nil || !strings.Contains(err.Error(), "nothing was pushed or released") {
		t.Errorf("failed checks: %v, %v", d, err)
	}
}

func TestAfterBuild(t *testing.T) {
	decide := func(a models.PublishAction) Allocation {
		return Allocation{Decision: models.PublishDecision{Action: a, Reason: "reason"}}
	}
	bad := modelenv.ArtifactReport{Problems: []models.Problem{{Path: "x.py", Message: "wheel: content differs from the checkout"}}}
	st := Facts{Main: strings.Repeat("b", 40)}
	tests := []struct {
		name    string
		plan    Allocation
		report  modelenv.ArtifactReport
		want    outcome
		wantErr string
	}{
		{"draft acts", decide(models.Draft), modelenv.ArtifactReport{}, act, ""},
		{"publish acts", decide(models.Publish), modelenv.ArtifactReport{}, act, ""},
		{"nothing finishes", decide(models.Nothing), modelenv.ArtifactReport{}, finish, ""},
		{"a dry run finishes", decide(models.DryRun), modelenv.ArtifactReport{}, finish, ""},
		{"a failed artifact check stops", decide(models.Stop), bad, finish, "content differs"},
		{"main advanced stops", decide(models.Stop), modelenv.ArtifactReport{}, finish, "(main is at bbbbbbbbbbbb, the run generated aaaaaaaaaaaa)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := afterBuild(tc.plan, tc.report, st, strings.Repeat("a", 40))
			if got != tc.want || (err == nil) != (tc.wantErr == "") {
				t.Fatalf("afterBuild = %v, %v", got, err)
			}
			if err != nil && (!strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "nothing was pushed or released")) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
		})
	}
}

func TestTheTokenIsCheckedBeforeAnyWork(t *testing.T) {
	tests := []struct {
		name   string
		token  githubsim.Token
		dryRun bool
		want   string // "" when the run goes on
	}{
		{"read only, real run", githubsim.Token{}, false, "not write it"},
		{"read only, dry run", githubsim.Token{}, true, ""},
		{"another repository only", githubsim.Token{PushAccess: true, Repos: []string{owner + "/models-other"}}, false, "cannot see " + owner + "/" + repoName},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.sim.AddToken(worldToken, tc.token)
			w.pypi.AddRelease(project, "1.17.1.0")
			res, e, err := w.run(ReleaseOptions{DryRun: tc.dryRun}, nil, "1.17.1.1")
			if tc.want == "" {
				if err != nil || res.Plan.Decision.Action != models.DryRun {
					t.Fatalf("%v\n%s", err, res.Text())
				}
				return
			}
			if flow.FailedStep(err) != "check token" || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "next: ") {
				t.Fatalf("err = %v, want the check token step saying %q", err, tc.want)
			}
			if execs := modeltest.ExecArgs(e); len(execs) != 0 {
				t.Errorf("the run built before checking its token: %v", execs)
			}
			w.noWrites()
		})
	}
}

func TestTheFlowNamesItsSteps(t *testing.T) {
	w := newWorld(t)
	res, _, err := w.run(ReleaseOptions{}, nil, "1.17.1.0")
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Text())
	}
	want := []string{"select upstream", "check token", "read main", "generate and check", "fingerprint", "plan", "build", "push", "draft", "publish"}
	if !slices.Equal(res.Ran, want) {
		t.Errorf("ran %v, want %v", res.Ran, want)
	}
	dry := newWorld(t)
	res, _, err = dry.run(ReleaseOptions{DryRun: true}, nil, "1.17.1.0")
	if err != nil || !slices.Equal(res.Ran, want[:7]) {
		t.Errorf("dry run ran %v (%v), want it to stop before push", res.Ran, err)
	}
}

func TestALostRaceGivesUpAfterMaxAttempts(t *testing.T) {
	w := newWorld(t)
	// Every attempt loses: another commit lands on the release branch before each push.
	gh := w.client(&everyTime{match: isRefWrite, before: func() {
		w.repo.CommitOnBranch("release-1.17", "another run", map[string]string{"README.md": fmt.Sprintf("other %d\n", len(w.sim.Writes()))})
	}})
	res, _, err := w.run(ReleaseOptions{MaxAttempts: 2}, gh, "1.17.1.0")
	if flow.FailedStep(err) != "push" || !errors.Is(err, errLostRace) || !strings.HasPrefix(err.Error(), "model-release: push: ") {
		t.Fatalf("err = %v\n%s", err, res.Text())
	}
	if n := strings.Count(strings.Join(res.Notes, "\n"), "planning again"); n != 1 {
		t.Errorf("planned again %d times, want 1 (two attempts): %v", n, res.Notes)
	}
	if len(w.repo.Releases()) != 0 {
		t.Errorf("a run that lost every race wrote releases: %+v", w.repo.Releases())
	}
}

// everyTime is a transport that calls before ahead of every request match accepts.
type everyTime struct {
	match  func(*http.Request) bool
	before func()
}

func (h *everyTime) RoundTrip(r *http.Request) (*http.Response, error) {
	if h.match(r) {
		h.before()
	}
	return http.DefaultTransport.RoundTrip(r)
}

// isRefWrite matches a branch creation or move.
func isRefWrite(r *http.Request) bool {
	return (r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/refs")) ||
		(r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/git/refs/heads/"))
}
