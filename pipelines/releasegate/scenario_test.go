package releasegate

import (
	"dagger/shipyard/internal/githubclient"

	"context"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// rulesOf splits a gate error's violations into violated and skipped rule numbers.
func rulesOf(t *testing.T, err error) (violated, skippedRules []int, ge *GateError) {
	t.Helper()
	if !errors.As(err, &ge) {
		t.Fatalf("err = %v, want a *GateError", err)
	}
	for _, v := range ge.Violations {
		if v.Skipped {
			skippedRules = append(skippedRules, v.Rule)
		} else {
			violated = append(violated, v.Rule)
		}
	}
	return violated, skippedRules, ge
}

func TestReleasePlanScenarios(t *testing.T) {
	tests := []struct {
		name   string
		seed   seedOpts
		break_ func(tc *teskCore)
		// For failing scenarios:
		wantRules   []int
		wantSkipped []int
		wantText    []string // substrings of the error
		// For passing scenarios:
		wantPlan func(t *testing.T, tc *teskCore, p Plan)
	}{
		{
			name: "clean pass",
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				want := Plan{
					Repo: testRepo, Tag: "v0.11.0", Version: "0.11.0", Final: true, Prerelease: true,
					Latest: true, MakeLatest: "false", Commit: tc.sha,
					Images: []Image{
						{Name: "tesk-core-taskmaster", Repository: "elixircloud/tesk-core-taskmaster", Tags: []string{"0.11.0", "latest"}},
						{Name: "tesk-core-filer", Repository: "elixircloud/tesk-core-filer", Tags: []string{"0.11.0", "latest"}},
					},
					NotesFile: "docs/releases/0.11.0.md", Notes: validNotes("0.11.0"),
				}
				if !reflect.DeepEqual(p, want) {
					t.Errorf("plan =\n%+v\nwant\n%+v", p, want)
				}
			},
		},
		{
			name: "rule 1 alone: tag of the wrong form",
			seed: seedOpts{tag: "v0.11.0-rc.1"}, wantRules: []int{1},
			wantText: []string{`"v0.11.0-rc.1" is not a release tag`, "vX.Y.Z"},
		},
		{
			name: "rule 2 alone: unverified signature with GitHub's reason",
			break_: func(tc *teskCore) {
				tc.repo.AnnotatedTag(tc.tag, tc.sha, githubsim.Unverified("unknown_key"))
			},
			wantRules: []int{2}, wantText: []string{"did not verify the signature of tag v0.11.0 (reason: unknown_key)", "add the signing key"},
		},
		{
			name: "rule 2 alone: lightweight tag",
			break_: func(tc *teskCore) {
				tc.repo.LightweightTag(tc.tag, tc.sha)
			},
			wantRules: []int{2}, wantText: []string{"tag v0.11.0 is lightweight", "git tag -s"},
		},
		{
			name: "rule 2 alone: annotated but unsigned",
			break_: func(tc *teskCore) {
				tc.repo.AnnotatedTag(tc.tag, tc.sha, githubsim.Unverified("unsigned"))
			},
			wantRules: []int{2}, wantText: []string{"annotated but not signed (GitHub: unsigned)"},
		},
		{
			name: "rule 3 alone: main not moved forward to the tagged commit",
			break_: func(tc *teskCore) {
				tc.repo.SetBranch("main", tc.mainBefore)
			},
			wantRules: []int{3}, wantText: []string{"is not on main"},
		},
		{
			name: "rule 4 alone: CITATION.cff names another version",
			break_: func(tc *teskCore) {
				tc.retag(validCitation("0.10.6"), validNotes("0.11.0"))
			},
			wantRules: []int{4}, wantText: []string{"CITATION.cff at commit", "CITATION.cff:4: "},
		},
		{
			name: "rule 5 alone: notes out of format, with file and line",
			break_: func(tc *teskCore) {
				tc.retag(validCitation("0.11.0"), "## Features\n\n- a feature without numbers\n")
			},
			wantRules: []int{5}, wantText: []string{"docs/releases/0.11.0.md does not follow the release notes format", "docs/releases/0.11.0.md:1: ", "docs/releases/0.11.0.md:3: "},
		},
		{
			name: "rule 5 alone: notes missing",
			break_: func(tc *teskCore) {
				tc.retag(validCitation("0.11.0"), "")
			},
			wantRules: []int{5}, wantText: []string{"docs/releases/0.11.0.md does not exist at commit"},
		},
		{
			name: "rule 6 alone: a CI job failed",
			break_: func(tc *teskCore) {
				tc.repo.RerunWorkflowRun(tc.runID, "completed", "failure", ciJobs("failure", "failure", "skipped")...)
			},
			wantRules: []int{6}, wantText: []string{"CI (ci.yml) did not pass for the push of commit", "conclusion failure, attempt 2",
				"job Lint failed: https://github.com/elixir-cloud-aai/tesk-core/actions/runs/", "fix job Lint on dev"},
		},
		{
			name: "rule 6 alone: CI in progress is not yet",
			break_: func(tc *teskCore) {
				tc.repo.RerunWorkflowRun(tc.runID, "in_progress", "", githubsim.WorkflowJob{Name: "Lint", Status: "in_progress"})
			},
			wantRules: []int{6}, wantText: []string{"CI (ci.yml) has not yet finished", "status in_progress", "job CI passed has not started"},
		},
		{
			name: "rule 6 passes: only the dev publish failed after CI passed",
			break_: func(tc *teskCore) {
				tc.repo.RerunWorkflowRun(tc.runID, "completed", "failure", ciJobs("success", "success", "failure")...)
			},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if p.Commit != tc.sha {
					t.Errorf("plan = %+v", p)
				}
			},
		},
		{
			name: "rule 6 passes: the publish still waits for its approval",
			break_: func(tc *teskCore) {
				jobs := ciJobs("success", "success", "")
				jobs[len(jobs)-1].Status = "waiting"
				tc.repo.RerunWorkflowRun(tc.runID, "waiting", "", jobs...)
			},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if p.Commit != tc.sha {
					t.Errorf("plan = %+v", p)
				}
			},
		},
		{
			name: "rule 6 alone: CI missing for the push to dev",
			break_: func(tc *teskCore) {
				tc.retagUnrun()
			},
			wantRules: []int{6}, wantText: []string{"no ci.yml run for the push of commit"},
		},
		{
			name: "rule 7 alone: release already published",
			break_: func(tc *teskCore) {
				tc.repo.AddRelease(githubsim.Release{TagName: tc.tag, Prerelease: true})
			},
			wantRules: []int{7}, wantText: []string{"a published GitHub release of v0.11.0 exists already", "delete any draft of a tag before pushing the tag"},
		},
		{
			name: "rule 3 alone: main has an unrelated history",
			break_: func(tc *teskCore) {
				tc.repo.SetBranch("main", tc.repo.AddCommit("unrelated root", nil, nil))
			},
			wantRules: []int{3}, wantText: []string{"is not on main"},
		},
		{
			name: "tag on a side branch",
			break_: func(tc *teskCore) {
				side := tc.repo.AddCommit("side work", []string{tc.sha}, nil)
				tc.repo.AnnotatedTag("v0.11.0", side, githubsim.ValidSignature())
				tc.repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: side, Conclusion: "success"})
			},
			// The run above can only come from a tag named dev: the side commit is not on dev.
			wantRules: []int{3, 6}, wantText: []string{"is not on main", "is not on dev"},
		},
		{
			// A tag named main can carry a commit that branch main lacks; "on main" must
			// mean main's commit, not whatever the name main resolves to.
			name: "rule 3 alone: a tag named main does not put the commit on main",
			break_: func(tc *teskCore) {
				tc.repo.SetBranch("main", tc.mainBefore)
				tc.repo.LightweightTag("main", tc.repo.AddCommit("after the release", []string{tc.sha}, nil))
			},
			wantRules: []int{3}, wantText: []string{"is not on main"},
		},
		{
			// Pushing a tag named dev gives a push run with head_branch "dev": CI of a
			// commit that never reached dev must not count.
			name: "rule 6 alone: CI of a tag named dev is not CI on dev",
			break_: func(tc *teskCore) {
				files := map[string]string{"CITATION.cff": validCitation("0.11.0"), NotesPath(tc.tag): validNotes("0.11.0")}
				side := tc.repo.AddCommit("chore: release from a side branch", []string{tc.mainBefore}, files)
				tc.repo.SetBranch("dev", tc.mainBefore)
				tc.repo.SetBranch("main", side)
				tc.repo.LightweightTag("dev", side)
				tc.repo.AnnotatedTag(tc.tag, side, githubsim.ValidSignature())
				tc.repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: side, Conclusion: "success"})
			},
			wantRules: []int{6}, wantText: []string{"is not on dev"},
		},
		{
			name: "all rules violated at once",
			seed: seedOpts{tag: "v0.11.0-rc.1", published: []string{"v0.10.6", "v0.11.0-rc.1"}, noFiles: true},
			break_: func(tc *teskCore) {
				side := tc.repo.AddCommit("side", []string{tc.sha}, map[string]string{"CITATION.cff": "version: 0.1.0\n"})
				tc.repo.LightweightTag(tc.tag, side)
			},
			wantRules: []int{1, 2, 3, 4, 5, 6, 7},
			wantText:  []string{"fails 7 of 7 release rules"},
		},
		{
			name: "tag does not exist: one reason for the rules it needs",
			seed: seedOpts{tag: "v0.11.0"},
			break_: func(tc *teskCore) {
				tc.tag = "v0.12.0"
			},
			wantRules: []int{2}, wantSkipped: []int{3, 4, 5, 6},
			wantText: []string{"tag v0.12.0 does not exist in elixir-cloud-aai/tesk-core",
				"not checked: rules 3 (on-main), 4 (citation), 5 (release-notes), 6 (ci-passed): tag v0.12.0 does not exist"},
		},
		{
			name:   "a higher final release already published: no latest",
			seed:   seedOpts{tag: "v1.1.1", published: []string{"v1.1.0", "v1.2.0", "v1.3.0rc1"}},
			break_: func(tc *teskCore) {},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if p.Latest || p.MakeLatest != "false" || p.Prerelease || !p.Final || !slices.Equal(p.Images[0].Tags, []string{"1.1.1"}) {
					t.Errorf("plan = %+v, want final 1.1.1 without latest", p)
				}
			},
		},
		{
			name: "an rc after a final: no latest, pre-release",
			seed: seedOpts{tag: "v1.1.0rc1", published: []string{"v1.0.0"}},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if p.Latest || p.MakeLatest != "false" || !p.Prerelease || p.Final || p.Version != "1.1.0rc1" ||
					!slices.Equal(p.Images[1].Tags, []string{"1.1.0rc1"}) {
					t.Errorf("plan = %+v, want pre-release 1.1.0rc1 without latest", p)
				}
			},
		},
		{
			name: "v1.0.0: not a pre-release, latest on GitHub and the images",
			seed: seedOpts{tag: "v1.0.0", published: []string{"v0.10.6", "v1.0.0rc2"}},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if !p.Latest || p.MakeLatest != "true" || p.Prerelease || !p.Final ||
					!slices.Equal(p.Images[0].Tags, []string{"1.0.0", "latest"}) {
					t.Errorf("plan = %+v, want final 1.0.0 with latest", p)
				}
			},
		},
		{
			name: "CI re-run passed after a failed attempt",
			break_: func(tc *teskCore) {
				tc.repo.RerunWorkflowRun(tc.runID, "completed", "failure")
				tc.repo.RerunWorkflowRun(tc.runID, "completed", "success")
			},
			wantPlan: func(t *testing.T, tc *teskCore, p Plan) {
				if p.Commit != tc.sha {
					t.Errorf("plan = %+v", p)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := seedTeskCore(t, tt.seed)
			if tt.break_ != nil {
				tt.break_(tc)
			}
			plan, err := Check(context.Background(), tc.client(t), testRepo, tc.tag, Config{})
			if tt.wantPlan != nil {
				if err != nil {
					t.Fatalf("ReleasePlan: %v", err)
				}
				tt.wantPlan(t, tc, plan)
				return
			}
			t.Log(err)
			violated, skippedRules, _ := rulesOf(t, err)
			if !slices.Equal(violated, tt.wantRules) || !slices.Equal(skippedRules, tt.wantSkipped) {
				t.Errorf("violated %v, skipped %v; want %v, %v\n%v", violated, skippedRules, tt.wantRules, tt.wantSkipped, err)
			}
			for _, s := range tt.wantText {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q:\n%v", s, err)
				}
			}
			if !reflect.DeepEqual(plan, Plan{}) {
				t.Errorf("a failed gate returned a plan: %+v", plan)
			}
		})
	}
}

// ciJobs are the jobs of a CI run of tesk-core's ci.yml on a push to dev, with the
// conclusions of Lint, of the gate "CI passed" and of the dev publish after it.
func ciJobs(lint, gate, publish string) []githubsim.WorkflowJob {
	return []githubsim.WorkflowJob{
		{Name: "PR title", Conclusion: "skipped"}, {Name: "Lint", Conclusion: lint}, {Name: "Test (Python 3.13)", Conclusion: "success"},
		{Name: "End-to-end test", Conclusion: "success"}, {Name: "Scan image (filer)", Conclusion: "success"},
		{Name: CIGateJob, Conclusion: gate}, {Name: "Publish image (filer)", Conclusion: publish},
	}
}

// retag moves the release to a new commit on dev with the given files (empty content
// leaves a file out), keeping every other rule satisfied.
func (tc *teskCore) retag(citationCFF, notesMD string) {
	files := map[string]string{"CITATION.cff": citationCFF}
	if notesMD != "" {
		files[NotesPath(tc.tag)] = notesMD
	}
	// A root commit, so that a file left out is really absent from its tree.
	tc.sha = tc.repo.AddCommit("chore: release "+tc.tag, nil, files)
	tc.repo.SetBranch("dev", tc.sha)
	tc.repo.SetBranch("main", tc.sha)
	tc.repo.AnnotatedTag(tc.tag, tc.sha, githubsim.ValidSignature())
	tc.runID = tc.repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: tc.sha, Conclusion: "success"})
}

// retagUnrun moves the release to a new commit that CI never ran for.
func (tc *teskCore) retagUnrun() {
	files := map[string]string{"CITATION.cff": validCitation(versionOf(tc.tag)), NotesPath(tc.tag): validNotes(versionOf(tc.tag))}
	tc.sha = tc.repo.CommitOnBranch("dev", "docs: typo", files)
	tc.repo.SetBranch("main", tc.sha)
	tc.repo.AnnotatedTag(tc.tag, tc.sha, githubsim.ValidSignature())
}

func TestReleasePlanRequestBudget(t *testing.T) {
	ctx := context.Background()
	tc := seedTeskCore(t, seedOpts{published: []string{}})
	tc.addReleases(200)
	c := tc.client(t)

	if _, err := Check(ctx, c, testRepo, tc.tag, Config{}); err != nil {
		t.Fatal(err)
	}
	cold := c.Stats()
	if cold.Requests > 12 {
		t.Errorf("release-plan with 200 releases made %d requests, want at most 12", cold.Requests)
	}
	if logged := len(tc.sim.Requests()); int64(logged) != cold.Requests {
		t.Errorf("client counted %d requests, the simulator saw %d", cold.Requests, logged)
	}
	t.Logf("release-plan, 200 releases, cold: %d requests", cold.Requests)

	before := tc.sim.RateLimit(testToken).Remaining
	if _, err := Check(ctx, c, testRepo, tc.tag, Config{}); err != nil {
		t.Fatal(err)
	}
	warm := c.Stats()
	if got := warm.Requests - cold.Requests; got != cold.Requests || warm.NotModified-cold.NotModified != got {
		t.Errorf("warm re-run: %d requests, %d not modified; want %d, all 304", got, warm.NotModified-cold.NotModified, cold.Requests)
	}
	if after := tc.sim.RateLimit(testToken).Remaining; after != before {
		t.Errorf("warm re-run consumed rate limit: %d → %d", before, after)
	}
	t.Logf("release-plan, 200 releases, warm ETag cache: %d requests, all 304, rate limit used: %d",
		warm.Requests-cold.Requests, before-tc.sim.RateLimit(testToken).Remaining)
}

func TestReleasePlanSurvivesTransientFaults(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		fault   githubsim.Fault
	}{
		{"502 on the release listing", "/repos/*/*/releases", githubsim.BadGateway(2)},
		{"secondary rate limit on the tag ref", "/repos/*/*/git/ref/tags/*", githubsim.SecondaryRateLimit(1, 0)},
		{"primary limit on the contents", "/repos/*/*/contents/*", githubsim.PrimaryRateLimit(1, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := seedTeskCore(t, seedOpts{})
			tc.sim.InjectFault(http.MethodGet, tt.pattern, tt.fault)
			c := tc.client(t)
			if _, err := Check(context.Background(), c, testRepo, tc.tag, Config{}); err != nil {
				t.Fatalf("ReleasePlan: %v", err)
			}
			if c.Stats().Retries == 0 {
				t.Errorf("no retries recorded")
			}
		})
	}
}

func TestReleasePlanFailsClosedOnOutage(t *testing.T) {
	tc := seedTeskCore(t, seedOpts{})
	tc.sim.InjectFault(http.MethodGet, "/repos/*/*/compare/*", githubsim.BadGateway(0))
	_, err := Check(context.Background(), tc.client(t), testRepo, tc.tag, Config{})
	var ge *GateError
	if err == nil || errors.As(err, &ge) || !strings.Contains(err.Error(), "GET /repos/elixir-cloud-aai/tesk-core/compare/") {
		t.Errorf("err = %v, want an API error naming the endpoint", err)
	}
}

// A run that did not succeed is judged by its jobs: when they cannot be read, the plan
// fails, never passes or blames CI.
func TestReleasePlanFailsClosedWhenTheJobsCannotBeRead(t *testing.T) {
	tc := seedTeskCore(t, seedOpts{})
	tc.repo.RerunWorkflowRun(tc.runID, "completed", "failure", ciJobs("success", "success", "failure")...)
	tc.sim.InjectFault(http.MethodGet, "/repos/*/*/actions/runs/*/jobs", githubsim.BadGateway(0))
	_, err := Check(context.Background(), tc.client(t), testRepo, tc.tag, Config{})
	var ge *GateError
	if err == nil || errors.As(err, &ge) || !strings.Contains(err.Error(), "jobs of workflow run") {
		t.Errorf("err = %v, want an API error naming the run's jobs", err)
	}
}

func TestReleasePlanWarnsOfDrafts(t *testing.T) {
	tc := seedTeskCore(t, seedOpts{})
	tc.sim.AddToken(testToken, githubsim.Token{PushAccess: true})
	tc.repo.AddRelease(githubsim.Release{TagName: tc.tag, Draft: true})
	plan, err := Check(context.Background(), tc.client(t), testRepo, tc.tag, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Warnings) != 1 || !strings.Contains(plan.Warnings[0], "a draft release of v0.11.0 exists") {
		t.Errorf("warnings = %v", plan.Warnings)
	}
}

func TestTokenNeverInOutput(t *testing.T) {
	ctx := context.Background()
	tc := seedTeskCore(t, seedOpts{})
	var outputs []string

	plan, err := Check(ctx, tc.client(t), testRepo, tc.tag, Config{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	outputs = append(outputs, plan.Text(), string(js))

	// Every kind of failure: a gate error, an outage, bad credentials, a bad repository.
	_, err = Check(ctx, tc.client(t), testRepo, "v9.9.9", Config{})
	outputs = append(outputs, err.Error())
	tc.sim.InjectFault("", "/repos/*/*/releases", githubsim.BadGateway(0))
	_, err = Check(ctx, tc.client(t), testRepo, tc.tag, Config{})
	outputs = append(outputs, err.Error())
	tc.sim.ClearFaults()
	const unknownToken = "ghp_unknown0SECRET0token"
	wrong, err := githubclient.NewClient(tc.sim.URL, unknownToken)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Check(ctx, wrong, testRepo, tc.tag, Config{})
	outputs = append(outputs, err.Error())
	_, err = Check(ctx, tc.client(t), "elixir-cloud-aai/tesk-core/x", tc.tag, Config{})
	outputs = append(outputs, err.Error())
	for i, out := range outputs {
		if strings.Contains(out, testToken) || strings.Contains(out, unknownToken) {
			t.Errorf("output %d contains a token:\n%s", i, out)
		}
	}
}

func TestReleasePlanRejectsBadRepository(t *testing.T) {
	tc := seedTeskCore(t, seedOpts{})
	for _, repo := range []string{"", "tesk-core", "a/b/c", "../x", "owner/..", "-a/b"} {
		if _, err := Check(context.Background(), tc.client(t), repo, tc.tag, Config{}); err == nil ||
			!strings.Contains(err.Error(), "want owner/name") {
			t.Errorf("repo %q: err = %v", repo, err)
		}
	}
	if n := len(tc.sim.Requests()); n != 0 {
		t.Errorf("%d requests sent for bad repository names", n)
	}
}
