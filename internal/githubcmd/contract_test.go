package githubcmd_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/githubexec"
	"dagger/shipyard/internal/trust"
)

const simToken = "ghp_contracttoken4f9a2c7e1b"

var epoch = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// state is a simulated GitHub with something for every call to read, built the same way
// each time, so two of them answer the same requests alike.
type state struct {
	sim             *githubsim.Server
	repo            *githubsim.Repo
	base, mid, head string // main: base ← mid; dev: mid ← … ← head
	midTree         string
	midEntries      []github.TreeEntry
	releaseID       int64
	draftID         int64
	runID           int64
}

func newState(t *testing.T, opts ...githubsim.Option) *state {
	t.Helper()
	sim := githubsim.New(t, append([]githubsim.Option{githubsim.WithClock(func() time.Time { return epoch })}, opts...)...)
	sim.AddToken(simToken, githubsim.Token{PushAccess: true})
	r := sim.AddRepo("octo", "demo")
	s := &state{sim: sim, repo: r}
	s.base = r.CommitOnBranch("main", "first", map[string]string{"README.md": "hello\n", "docs/a.md": "a\n", "docs/b.md": "b\n"})
	s.mid = r.CommitOnBranch("main", "second", map[string]string{"README.md": "hello again\n"})
	r.SetBranch("dev", s.mid)
	r.MergePullRequest(githubsim.MergedPull{Title: "fix: the docs", Author: "octocat", Base: "dev", Files: map[string]string{"docs/c.md": "c\n"}})
	r.MergePullRequest(githubsim.MergedPull{Title: "feat: a flag", Author: "dependabot[bot]", Base: "dev", Files: map[string]string{"flag.txt": "on\n"}})
	s.head = r.Branch("dev")
	r.SetBranch("feature", s.head)
	r.AnnotatedTag("v1.0.0", s.base, githubsim.Verification{Verified: false, Reason: "unsigned"})
	r.LightweightTag("v0.9.0", s.base)
	s.releaseID = r.AddRelease(githubsim.Release{TagName: "v1.0.0", TargetCommitish: "main", Name: "v1.0.0", Body: "first", CreatedAt: epoch, PublishedAt: epoch})
	s.draftID = r.AddRelease(githubsim.Release{TagName: "v1.1.0", TargetCommitish: "dev", Name: "v1.1.0", Draft: true, CreatedAt: epoch})
	r.AddWorkflow("ci.yml", "CI")
	s.runID = r.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: s.head, Status: "completed", Conclusion: "failure", RunAttempt: 1, RunNumber: 7, CreatedAt: epoch,
		Jobs: []githubsim.WorkflowJob{{Name: "Lint", Conclusion: "success"}, {Name: "CI passed", Conclusion: "success"}, {Name: "Publish image (filer)", Conclusion: "failure"}}})
	r.AddPullRequest(githubsim.PullRequest{Title: "feat: more", Body: "why", Head: "feature", Base: "main", State: "open", CreatedAt: epoch, UpdatedAt: epoch})
	r.AddRuleset(githubsim.Ruleset{Name: "tags", Target: "tag", Include: []string{"refs/tags/v*"}, Rules: []string{"deletion", "update"}})
	r.AddRuleset(githubsim.Ruleset{Name: "main", Target: "branch", Include: []string{"~DEFAULT_BRANCH"}, StatusChecks: []string{"lint"}})
	r.ProtectBranch("main", "ci")
	r.AddEnvironment(githubsim.Environment{Name: "release", Reviewers: []string{"octocat"}, Policy: "custom", Policies: []githubsim.DeploymentPolicy{{Name: "v*", Type: "tag"}}, Secrets: []string{"PYPI_TOKEN"}})
	r.AddSecret("DOCKER_TOKEN")
	r.AddOrgSecret("ORG_TOKEN")
	r.SetVariable("REGISTRY", "docker.io")
	r.AddAttestation(attestationBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64)))
	// What the writes build on, read as a caller would (the same requests on each state).
	local := localClient(t, sim.URL)
	var err error
	if s.midTree, err = local.CommitTree(context.Background(), "octo", "demo", s.mid); err != nil {
		t.Fatal(err)
	}
	if s.midEntries, _, err = local.Tree(context.Background(), "octo", "demo", s.midTree); err != nil {
		t.Fatal(err)
	}
	sim.ResetLog()
	return s
}

// commandClient is a githubcmd.Client whose command the engine double runs for real
// against api, with token (none when "") and a cache volume when cache.
func commandClient(t *testing.T, api, token string, cache bool) (*githubcmd.Client, *engine.Engine, *githubexec.Runs) {
	t.Helper()
	ctx := context.Background()
	e := engine.New(t)
	var secrets map[string]string
	if token != "" {
		secrets = map[string]string{"github-token": token}
	}
	runs := githubexec.Answer(t, e, secrets)
	c := e.Client(ctx)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	level := trust.ReleaseAt("github-token="+api+" octo/demo", trust.SecretOf("test-credential"))
	cmd := githubcmd.Command{Tool: githubcmd.Build(c, c.Host().Directory(root), pins.DefaultGoImage, level), API: api}
	if token != "" {
		cmd.Token = c.SetSecret("github-token", token)
	}
	if cache {
		cmd.Cache = c.CacheVolume(level.CacheVolumeName(githubcmd.CacheVolume, pins.DefaultPins()))
	}
	return githubcmd.NewClient(cmd).WithWriteRetry(github.BackoffRetry(4, 0, nil)), e, runs
}

func localClient(t *testing.T, api string) *githubclient.Client {
	t.Helper()
	c, err := githubclient.NewClient(api, simToken)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// contractCases give the arguments after the context of each method of github.Calls.
var contractCases = map[string]func(s *state) []any{
	"LatestWorkflowRun": func(s *state) []any { return []any{"octo", "demo", "ci.yml", "push", "dev", s.head} },
	"WorkflowRunJobs":   func(s *state) []any { return []any{"octo", "demo", s.runID} },
	"IsAncestor":        func(s *state) []any { return []any{"octo", "demo", s.base, "dev"} },
	"FileAt":            func(s *state) []any { return []any{"octo", "demo", "README.md", "main"} },
	"DirAt":             func(s *state) []any { return []any{"octo", "demo", "docs", "dev"} },
	"CommitsAfter":      func(s *state) []any { return []any{"octo", "demo", s.mid, "dev"} },
	"BranchHead":        func(s *state) []any { return []any{"octo", "demo", "dev"} },
	"CommitTree":        func(s *state) []any { return []any{"octo", "demo", s.mid} },
	"Commit":            func(s *state) []any { return []any{"octo", "demo", s.head} },
	"CreateTree": func(s *state) []any {
		return []any{"octo", "demo", s.midTree, []github.TreeChange{{Path: "new.txt", Content: []byte("new\n")}, {Path: "docs/a.md", Delete: true}}}
	},
	"CreateCommit": func(s *state) []any { return []any{"octo", "demo", "a commit", s.midTree, []string{s.mid}} },
	"CreateBranch": func(s *state) []any { return []any{"octo", "demo", "topic", s.base} },
	"UpdateBranch": func(s *state) []any { return []any{"octo", "demo", "feature", s.mid, true} },
	"CompareFiles": func(s *state) []any { return []any{"octo", "demo", s.base, s.head} },
	"Tree":         func(s *state) []any { return []any{"octo", "demo", s.midTree} },
	"WriteTree": func(s *state) []any {
		files := []github.TreeFile{{Path: "README.md", Mode: "100644", Content: []byte("hello again\n")}, {Path: "gen/x.txt", Mode: "100644", Content: []byte("x\n")}}
		return []any{"octo", "demo", s.midTree, s.midEntries, files, github.TreeBatches{}}
	},
	"TagRef":   func(s *state) []any { return []any{"octo", "demo", "v1.0.0"} },
	"TagNames": func(s *state) []any { return []any{"octo", "demo"} },
	"GenerateNotes": func(s *state) []any {
		return []any{"octo", "demo", github.NotesRequest{TagName: "v1.1.0", PreviousTagName: "v1.0.0", TargetCommitish: "dev"}}
	},
	"OpenPullRequest": func(s *state) []any { return []any{"octo", "demo", "feature", "main"} },
	"CreatePullRequest": func(s *state) []any {
		return []any{"octo", "demo", github.NewPullRequest{Title: "chore: sync", Body: "b", Head: "dev", Base: "main"}}
	},
	"EditPullRequest": func(s *state) []any {
		title, state := "feat: renamed", "closed"
		return []any{"octo", "demo", 1, github.PullRequestEdit{Title: &title, State: &state}}
	},
	"Releases":     func(s *state) []any { return []any{"octo", "demo"} },
	"ReleasePage":  func(s *state) []any { return []any{"octo", "demo", 1, 2} },
	"ReleaseByTag": func(s *state) []any { return []any{"octo", "demo", "v1.0.0"} },
	"CreateRelease": func(s *state) []any {
		return []any{"octo", "demo", github.NewRelease{TagName: "v1.2.0", TargetCommitish: s.head, Name: "v1.2.0", Body: "notes", MakeLatest: "true"}}
	},
	"PinnedReleases": func(s *state) []any { return []any{"octo", "demo"} },
	"ReleaseByID":    func(s *state) []any { return []any{"octo", "demo", s.draftID} },
	"EditRelease": func(s *state) []any {
		body, draft := "edited", false
		return []any{"octo", "demo", s.draftID, github.ReleaseEdit{Body: &body, Draft: &draft, MakeLatest: "false"}}
	},
	"DeleteRelease":   func(s *state) []any { return []any{"octo", "demo", s.draftID} },
	"RepoPermissions": func(s *state) []any { return []any{"octo", "demo"} },
	"CreateOrgRepo": func(s *state) []any {
		return []any{"octo", github.NewRepository{Name: "fresh", Description: "new", Public: true, WithReadme: true}}
	},
	"ReplaceTopics":          func(s *state) []any { return []any{"octo", "demo", []string{"ci", "release"}} },
	"Rulesets":               func(s *state) []any { return []any{"octo", "demo", "tag"} },
	"BranchStatusChecks":     func(s *state) []any { return []any{"octo", "demo", "main"} },
	"ProtectionStatusChecks": func(s *state) []any { return []any{"octo", "demo", "main"} },
	"Environments":           func(s *state) []any { return []any{"octo", "demo"} },
	"DeploymentPolicies":     func(s *state) []any { return []any{"octo", "demo", "release"} },
	"SecretNames":            func(s *state) []any { return []any{"octo", "demo"} },
	"OrgSecretNames":         func(s *state) []any { return []any{"octo", "demo"} },
	"EnvironmentSecretNames": func(s *state) []any { return []any{"octo", "demo", "release"} },
	"Variables":              func(s *state) []any { return []any{"octo", "demo"} },
	"CreateAttestation": func(s *state) []any {
		return []any{"octo", "demo", []byte(attestationBundle("https://cyclonedx.org/bom", strings.Repeat("a", 64)))}
	},
	"Attestations": func(s *state) []any { return []any{"octo", "demo", "sha256:" + strings.Repeat("a", 64)} },
}

// attestationBundle is a Sigstore bundle's shape around an in-toto statement of the given
// predicate type and sha256 subject.
func attestationBundle(predicateType, subject string) string {
	st, _ := json.Marshal(map[string]any{
		"_type": "https://in-toto.io/Statement/v1", "predicateType": predicateType,
		"subject": []any{map[string]any{"name": "image", "digest": map[string]string{"sha256": subject}}},
	})
	b, _ := json.Marshal(map[string]any{
		"mediaType":    "application/vnd.dev.sigstore.bundle.v0.3+json",
		"dsseEnvelope": map[string]any{"payload": st, "payloadType": "application/vnd.in-toto+json", "signatures": []any{map[string]string{"sig": "MEUCIQ=="}}},
	})
	return string(b)
}

// outcome is what a call returned: its results and its error.
type outcome struct {
	results []any
	err     error
}

// invoke calls method of c with ctx and args.
func invoke(t *testing.T, c github.Calls, method string, args []any) outcome {
	t.Helper()
	in := []reflect.Value{reflect.ValueOf(context.Background())}
	for _, a := range args {
		in = append(in, reflect.ValueOf(a))
	}
	out := reflect.ValueOf(c).MethodByName(method).Call(in)
	var o outcome
	for _, v := range out[:len(out)-1] {
		o.results = append(o.results, v.Interface())
	}
	o.err, _ = out[len(out)-1].Interface().(error)
	return o
}

// sentinelErrors are the errors a caller tells apart with errors.Is.
var sentinelErrors = map[string]error{
	"ErrNotFound": github.ErrNotFound, "ErrAlreadyExists": github.ErrAlreadyExists, "ErrNotFastForward": github.ErrNotFastForward,
	"ErrNotAllowed": github.ErrNotAllowed, "ErrNotProtected": github.ErrNotProtected, "ErrRefused": github.ErrRefused,
	"context.Canceled": context.Canceled,
}

// sameError fails t unless got tells a caller everything want does.
func sameError(t *testing.T, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Fatalf("error %v through the command, %v in process", got, want)
	}
	if want == nil {
		return
	}
	if got.Error() != want.Error() {
		t.Errorf("message %q through the command, %q in process", got, want)
	}
	for name, s := range sentinelErrors {
		if errors.Is(got, s) != errors.Is(want, s) {
			t.Errorf("errors.Is(err, %s) = %v through the command, %v in process", name, errors.Is(got, s), errors.Is(want, s))
		}
	}
	for name, f := range map[string]func(error) bool{"NoAccess": github.NoAccess, "OutcomeUnknown": github.OutcomeUnknown, "IsAlreadyExists": github.IsAlreadyExists} {
		if f(got) != f(want) {
			t.Errorf("%s = %v through the command, %v in process", name, f(got), f(want))
		}
	}
	var ga, wa *github.APIError
	errors.As(got, &ga)
	errors.As(want, &wa)
	if !reflect.DeepEqual(ga, wa) {
		t.Errorf("APIError %+v through the command, %+v in process", ga, wa)
	}
}

// effects are what the writes left in a state.
func effects(s *state) any {
	var created []string
	if r := s.sim.Repo("octo/fresh"); r != nil {
		created = append(created, r.FullName(), r.Description(), strings.Join(r.Topics(), ","), r.Branch(r.DefaultBranch()))
	}
	return []any{s.sim.Writes(), s.repo.Refs(), s.repo.Releases(), s.repo.PullRequests(), s.repo.Topics(), created, s.repo.Attestations()}
}

// Every method of github.Calls answers through the command exactly as the client in the
// command answers in process, against two GitHubs in the same state, and leaves them in
// the same state: a method added without a case here fails.
func TestEveryCallAnswersAsTheClientDoes(t *testing.T) {
	calls := reflect.TypeFor[github.Calls]()
	for name := range contractCases {
		if _, ok := calls.MethodByName(name); !ok {
			t.Errorf("contract case %s is not a method of github.Calls", name)
		}
	}
	forEachCall(t, func(t *testing.T, method string, argsOf func(*state) []any) {
		viaCommand, inProcess := newState(t), newState(t)
		if !reflect.DeepEqual(effects(viaCommand), effects(inProcess)) || viaCommand.midTree != inProcess.midTree {
			t.Fatal("the two GitHubs start in different states")
		}
		cmd, e, _ := commandClient(t, viaCommand.sim.URL, simToken, false)
		local := localClient(t, inProcess.sim.URL)
		got := invoke(t, cmd, method, argsOf(viaCommand))
		want := invoke(t, local, method, argsOf(inProcess))
		if want.err != nil {
			t.Fatalf("the case fails in process, so it proves little: %v", want.err)
		}
		sameError(t, got.err, want.err)
		if !reflect.DeepEqual(got.results, want.results) {
			gj, _ := json.Marshal(got.results)
			wj, _ := json.Marshal(want.results)
			t.Errorf("results through the command:\n%s\nin process:\n%s", gj, wj)
		}
		runs := e.Graph().ExecsWith("github call")
		if len(runs) != 1 || runs[0].Args[len(runs[0].Args)-1] != method || !strings.HasPrefix(runs[0].Stdin, "[") {
			t.Fatalf("runs of the command %+v, want one of %s with its arguments on stdin", runs, method)
		}
		if g, w := cmd.Stats(), local.Stats(); g != w {
			t.Errorf("stats through the command %+v, in process %+v", g, w)
		}
		if g, w := effects(viaCommand), effects(inProcess); !reflect.DeepEqual(g, w) {
			t.Errorf("the GitHubs differ after the call:\nthrough the command %+v\nin process %+v", g, w)
		}
	})
}

// forEachCall runs f, as a subtest, for each method of github.Calls with its contract
// case; a method without one fails.
func forEachCall(t *testing.T, f func(t *testing.T, method string, argsOf func(*state) []any)) {
	calls := reflect.TypeFor[github.Calls]()
	for i := range calls.NumMethod() {
		method := calls.Method(i).Name
		t.Run(method, func(t *testing.T) {
			argsOf, ok := contractCases[method]
			if !ok {
				t.Fatalf("github.Calls.%s has no contract case", method)
			}
			f(t, method, argsOf)
		})
	}
}

// An error crosses from the command as the client's caller sees it in process.
func TestErrorsCrossIntact(t *testing.T) {
	const readOnly = "ghp_readonlytoken77d1e0"
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		setup func(s *state)
		token string
		call  func(c github.API, s *state) error
		check func(t *testing.T, err error, s *state)
	}{
		{
			name: "404",
			call: func(c github.API, s *state) error {
				_, err := c.CommitTree(ctx, "octo", "demo", strings.Repeat("0", 40))
				return err
			},
			check: func(t *testing.T, err error, _ *state) {
				if !github.NoAccess(err) || github.StatusOf(err) != 404 {
					t.Errorf("NoAccess = %v, status %d: %v", github.NoAccess(err), github.StatusOf(err), err)
				}
			},
		},
		{
			name: "422 reference already exists",
			call: func(c github.API, s *state) error { return c.CreateBranch(ctx, "octo", "demo", "dev", s.base) },
			check: func(t *testing.T, err error, _ *state) {
				if !errors.Is(err, github.ErrAlreadyExists) || github.StatusOf(err) != 422 {
					t.Errorf("not ErrAlreadyExists: %v", err)
				}
			},
		},
		{
			name: "422 already_exists",
			call: func(c github.API, s *state) error {
				_, err := c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1.0.0", TargetCommitish: "main", Name: "again"})
				return err
			},
			check: func(t *testing.T, err error, _ *state) {
				if !github.IsAlreadyExists(err) {
					t.Errorf("not already_exists: %v", err)
				}
			},
		},
		{
			name: "403",
			setup: func(s *state) {
				s.sim.AddToken(readOnly, githubsim.Token{Lacks: []string{"secrets"}})
			},
			token: readOnly,
			call: func(c github.API, s *state) error {
				_, err := c.SecretNames(ctx, "octo", "demo")
				return err
			},
			check: func(t *testing.T, err error, _ *state) {
				if !github.NoAccess(err) || github.StatusOf(err) != 403 {
					t.Errorf("NoAccess = %v, status %d: %v", github.NoAccess(err), github.StatusOf(err), err)
				}
			},
		},
		{
			name: "403 naming the permission the token lacks",
			setup: func(s *state) {
				s.sim.AddToken(readOnly, githubsim.Token{Role: "admin"})
			},
			token: readOnly,
			call: func(c github.API, s *state) error {
				_, err := c.GenerateNotes(ctx, "octo", "demo", github.NotesRequest{TagName: github.ProbeTag, TargetCommitish: "main"})
				return err
			},
			check: func(t *testing.T, err error, _ *state) {
				if github.StatusOf(err) != 403 || github.AcceptedPermissionsOf(err) != "contents=write" {
					t.Errorf("status %d, accepted %q: %v", github.StatusOf(err), github.AcceptedPermissionsOf(err), err)
				}
			},
		},
		{
			name: "502 on a write that happened",
			setup: func(s *state) {
				s.sim.InjectFault("POST", "/repos/octo/demo/git/refs", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
			},
			call: func(c github.API, s *state) error { return c.CreateBranch(ctx, "octo", "demo", "topic", s.base) },
			check: func(t *testing.T, err error, s *state) {
				if !github.OutcomeUnknown(err) {
					t.Errorf("the outcome of a 502 on a write is known: %v", err)
				}
				if s.repo.Branch("topic") != s.base {
					t.Errorf("the write did not happen")
				}
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			viaCommand, inProcess := newState(t), newState(t)
			token := simToken
			if tt.token != "" {
				token = tt.token
			}
			if tt.setup != nil {
				tt.setup(viaCommand)
				tt.setup(inProcess)
			}
			cmd, _, _ := commandClient(t, viaCommand.sim.URL, token, false)
			local, err := githubclient.NewClient(inProcess.sim.URL, token)
			if err != nil {
				t.Fatal(err)
			}
			got, want := tt.call(cmd, viaCommand), tt.call(local, inProcess)
			if want == nil {
				t.Fatal("the case does not fail in process")
			}
			sameError(t, got, want)
			tt.check(t, got, viaCommand)
		})
	}
}

// A write whose outcome the command could not know is read back by the module's client,
// which retries no further once the read proves it happened.
func TestWriteThenVerifyReadsBackThroughTheCommand(t *testing.T) {
	ctx := context.Background()
	s := newState(t)
	s.sim.InjectFault("POST", "/repos/octo/demo/git/refs", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
	cmd, e, _ := commandClient(t, s.sim.URL, simToken, false)
	err := cmd.WriteThenVerify(ctx,
		func(ctx context.Context) error { return cmd.CreateBranch(ctx, "octo", "demo", "topic", s.base) },
		func(ctx context.Context) (bool, error) {
			head, found, err := cmd.BranchHead(ctx, "octo", "demo", "topic")
			return found && head == s.base, err
		})
	if err != nil {
		t.Fatal(err)
	}
	if n := s.sim.Count("POST", "/repos/octo/demo/git/refs"); n != 1 {
		t.Errorf("%d writes, want 1: the read back proved the first happened", n)
	}
	if n := len(e.Graph().ExecsWith("github call")); n != 2 {
		t.Errorf("%d runs of the command, want 2 (the write, the read back)", n)
	}
}

// The client's stats add up what every run sent.
func TestStatsAddUpAcrossRuns(t *testing.T) {
	ctx := context.Background()
	s := newState(t)
	cmd, _, _ := commandClient(t, s.sim.URL, simToken, false)
	if _, _, err := cmd.BranchHead(ctx, "octo", "demo", "dev"); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Releases(ctx, "octo", "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.TagNames(ctx, "octo", "demo"); err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.Commit(ctx, "octo", "demo", strings.Repeat("0", 40)); err == nil {
		t.Fatal("an unknown commit was found")
	}
	got := cmd.Stats()
	if sent := int64(len(s.sim.Requests())); got.Requests != sent || sent < 4 {
		t.Errorf("stats %+v, the server saw %d requests", got, sent)
	}
}

// With a token and a cache volume, what one run read the next run asks again with its
// ETag, and the 304 costs nothing; the token never shows in what the engine records.
func TestTheETagCacheOutlivesARun(t *testing.T) {
	ctx := context.Background()
	s := newState(t)
	cmd, e, runs := commandClient(t, s.sim.URL, simToken, true)
	first, err := cmd.Releases(ctx, "octo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	second, err := cmd.Releases(ctx, "octo", "demo")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(first, second) {
		t.Errorf("the second read answered %+v, the first %+v", second, first)
	}
	if got := cmd.Stats(); got.NotModified != 1 {
		t.Errorf("stats %+v, want the second read answered 304", got)
	}
	log := s.sim.Requests()
	if last := log[len(log)-1]; !last.NotModified {
		t.Errorf("the last request %+v was not answered 304", last)
	}
	dirs := runs.CacheDirs()
	if len(dirs) != 1 {
		t.Fatalf("cache volumes %v, want one", dirs)
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) != 1 {
			t.Errorf("the cache volume holds %v (%v), want the ETag cache's file", entries, err)
		}
	}
	// A failed call writes to stderr too.
	if _, err := cmd.Commit(ctx, "octo", "demo", strings.Repeat("0", 40)); err == nil {
		t.Fatal("an unknown commit was found")
	}
	execs := e.Graph().ExecsWith("github call")
	if len(execs) != 3 {
		t.Fatalf("%d runs of the command, want 3", len(execs))
	}
	for _, x := range execs {
		for what, text := range map[string]string{"args": strings.Join(x.Args, " "), "stdin": x.Stdin, "stdout": x.Stdout, "stderr": x.Stderr, "env": strings.Join(slices.Collect(maps.Values(x.Env)), " ")} {
			if strings.Contains(text, simToken) {
				t.Errorf("the token is in the %s of %q", what, x.Args)
			}
		}
	}
}

// A cache the command cannot use is noted, once however many runs met it, and the calls
// still answer.
func TestClientNotesACacheItCannotUseOnce(t *testing.T) {
	ctx := context.Background()
	s := newState(t)
	cmd, _, runs := commandClient(t, s.sim.URL, simToken, true)
	if _, err := cmd.Releases(ctx, "octo", "demo"); err != nil {
		t.Fatal(err)
	}
	if notes := cmd.Notes(); notes != nil {
		t.Fatalf("notes %q after a cold run, want none", notes)
	}
	// Whoever can write the volume leaves something that is no cache, before each run.
	for range 2 {
		runs.SpoilCaches([]byte("no cache"))
		if _, err := cmd.Releases(ctx, "octo", "demo"); err != nil {
			t.Fatal(err)
		}
	}
	notes := cmd.Notes()
	if len(notes) != 1 || !strings.HasPrefix(notes[0], "ETag cache not used, starting cold: ") {
		t.Errorf("notes %q, want the unusable cache noted once", notes)
	}
	if got := cmd.Stats(); got.NotModified != 0 {
		t.Errorf("stats %+v: a spoiled cache answered 304s", got)
	}
}

// Without a token nothing seals the cache, so none is written even with a volume.
func TestNoTokenWritesNoCache(t *testing.T) {
	ctx := context.Background()
	s := newState(t, githubsim.WithAnonymousReads())
	cmd, _, runs := commandClient(t, s.sim.URL, "", true)
	for range 2 {
		if _, err := cmd.Releases(ctx, "octo", "demo"); err != nil {
			t.Fatal(err)
		}
	}
	if got := cmd.Stats(); got.NotModified != 0 || got.Requests != 2 {
		t.Errorf("stats %+v, want two full reads", got)
	}
	dirs := runs.CacheDirs()
	if len(dirs) != 1 {
		t.Fatalf("cache volumes %v, want the one mounted", dirs)
	}
	for _, dir := range dirs {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) != 0 {
			t.Errorf("the cache volume holds %v (%v), want nothing", entries, err)
		}
	}
}

// A method the command does not know is a usage error: the module wrote the call, so it
// is Shipyard's bug, not the user's.
func TestAnUnknownMethodIsShipyardsBug(t *testing.T) {
	s := newState(t)
	cmd, _, _ := commandClient(t, s.sim.URL, simToken, false)
	err := cmd.CallByName(context.Background(), "NoSuchMethod", []any{})
	var ce *githubcmd.Error
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "usage error (a bug of Shipyard's, please report it)") || !strings.Contains(err.Error(), "NoSuchMethod") {
		t.Errorf("err = %v (%T), want Shipyard's usage error", err, err)
	}
	if len(s.sim.Requests()) != 0 {
		t.Errorf("a usage error reached GitHub: %+v", s.sim.Requests())
	}
}

// github.IsWrite names exactly the calls that send GitHub anything but a read, as each
// call's contract case sends in process: the module marks a write's outcome unknown when
// the run that carried it is lost, and a write it does not know of would fail instead of
// being read back.
func TestIsWriteIsWhatEachCallSends(t *testing.T) {
	forEachCall(t, func(t *testing.T, method string, argsOf func(*state) []any) {
		s := newState(t)
		if o := invoke(t, localClient(t, s.sim.URL), method, argsOf(s)); o.err != nil {
			t.Fatalf("the case fails in process, so it proves little: %v", o.err)
		}
		if sent, declared := len(s.sim.Writes()) > 0, github.IsWrite(method); sent != declared {
			t.Errorf("%s sends %d writes, github.IsWrite says %v", method, len(s.sim.Writes()), declared)
		}
	})
	if github.IsWrite("NoSuchMethod") {
		t.Error("an unknown method is a write")
	}
}
