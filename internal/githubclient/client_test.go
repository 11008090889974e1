package githubclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

const token = "ghp_test0SECRET0token0value"

// fakeClock is shared by the simulator and the client: sleeping advances it, so waits
// are measured instead of spent.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	slept []time.Duration
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.slept = append(c.slept, d)
	c.now = c.now.Add(d)
	return ctx.Err()
}

func (c *fakeClock) Slept() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.slept...)
}

type fixture struct {
	sim   *githubsim.Server
	repo  *githubsim.Repo
	clock *fakeClock
	c     *Client
}

func setup(t testing.TB, push bool, opts ...Option) *fixture {
	t.Helper()
	clock := newFakeClock()
	sim := githubsim.New(t, githubsim.WithClock(clock.Now))
	sim.AddToken(token, githubsim.Token{PushAccess: push})
	repo := sim.AddRepo("octo", "demo")
	c, err := NewClient(sim.URL, token, append([]Option{WithSleep(clock.Sleep), WithClock(clock.Now)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{sim: sim, repo: repo, clock: clock, c: c}
}

func TestIdempotentRetries(t *testing.T) {
	s := func(n int) time.Duration { return time.Duration(n) * time.Second }
	tests := []struct {
		name      string
		fault     githubsim.Fault
		wantSlept []time.Duration
		wantErr   string // substring of the message; "" means success
	}{
		{"502 twice then 200", githubsim.BadGateway(2), []time.Duration{s(1), s(2)}, ""},
		{"secondary rate limit honours Retry-After", githubsim.SecondaryRateLimit(1, s(7)), []time.Duration{s(7)}, ""},
		{"secondary rate limit as 429", githubsim.Fault{Kind: githubsim.FaultSecondaryRateLimit, Status: 429, Times: 1, RetryAfter: s(2)}, []time.Duration{s(2)}, ""},
		{"secondary rate limit without Retry-After waits a minute", githubsim.Fault{Kind: githubsim.FaultSecondaryRateLimit, Times: 1, RetryAfter: -1}, []time.Duration{time.Minute}, ""},
		{"primary limit waits for X-RateLimit-Reset", githubsim.PrimaryRateLimit(1, s(30)), []time.Duration{s(30)}, ""},
		{"budget of attempts spent", githubsim.BadGateway(0), []time.Duration{s(1), s(2), s(4)},
			"GET /repos/octo/demo/releases: gave up after 4 attempt(s) and 7s of waiting: 502 Bad Gateway"},
		{"reset beyond the longest wait", githubsim.PrimaryRateLimit(1, time.Hour), nil,
			"GET /repos/octo/demo/releases: gave up after 1 attempt(s) and 0s of waiting: primary rate limit exhausted until 2025-06-01T13:00:00Z (retrying would mean waiting 1h0m0s more"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, false)
			f.repo.AddRelease(githubsim.Release{TagName: "v1.0.0"})
			f.sim.InjectFault(http.MethodGet, "/repos/*/*/releases", tt.fault)
			got, err := f.c.Releases(context.Background(), "octo", "demo")
			if tt.wantErr == "" {
				if err != nil || len(got) != 1 || got[0].TagName != "v1.0.0" {
					t.Fatalf("Releases = %+v, %v", got, err)
				}
			} else {
				var re *RetryError
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &re) {
					t.Fatalf("err = %v, want a *RetryError containing %q", err, tt.wantErr)
				}
			}
			if slept := f.clock.Slept(); !reflect.DeepEqual(slept, tt.wantSlept) {
				t.Errorf("waited %v, want %v", slept, tt.wantSlept)
			}
			if sent, logged := f.c.Requests(), int64(len(f.sim.Requests())); sent != logged || sent != int64(len(tt.wantSlept)+1) {
				t.Errorf("client counted %d requests, simulator saw %d, want %d", sent, logged, len(tt.wantSlept)+1)
			}
		})
	}
}

func TestNotFoundIsAnswerNotRetry(t *testing.T) {
	f := setup(t, false)
	_, found, err := f.c.ReleaseByTag(context.Background(), "octo", "demo", "v9.9.9")
	if err != nil || found {
		t.Fatalf("ReleaseByTag = %v, %v; want not found", found, err)
	}
	if n := f.c.Requests(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}

func TestWritesAreNeverRetriedBlindly(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name       string
		fault      *githubsim.Fault
		existing   bool // a published release of the tag exists before the write
		wantWrites int
		wantReads  int // read-backs performed
		wantErr    error
		wantUnsure bool // the error leaves the outcome unknown
	}{
		{name: "clean write", wantWrites: 1},
		{name: "response lost after the write took effect: read back, do not repeat",
			fault: &githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true}, wantWrites: 1, wantReads: 1},
		{name: "502 before the write: read back proves it missing, write again",
			fault: &githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1}, wantWrites: 2, wantReads: 1},
		{name: "always 502: bounded, outcome reported unknown",
			fault: &githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502}, wantWrites: 4, wantReads: 3, wantUnsure: true},
		{name: "422 already exists is definite: no read-back",
			existing: true, wantWrites: 1, wantErr: github.ErrAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := setup(t, true)
			f.repo.CommitOnBranch("main", "c", nil)
			if tt.existing {
				f.repo.AddRelease(githubsim.Release{TagName: "v1.0.0"})
			}
			if tt.fault != nil {
				f.sim.InjectFault(http.MethodPost, "/repos/*/*/releases", *tt.fault)
			}
			reads := 0
			err := f.c.WriteThenVerify(ctx,
				func(ctx context.Context) error {
					_, err := f.c.CreateRelease(ctx, "octo", "demo", github.NewRelease{TagName: "v1.0.0", Name: "v1.0.0", MakeLatest: "true"})
					return err
				},
				func(ctx context.Context) (bool, error) {
					reads++
					_, found, err := f.c.ReleaseByTag(ctx, "octo", "demo", "v1.0.0")
					return found, err
				})
			switch {
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			case tt.wantUnsure && (err == nil || !github.OutcomeUnknown(err) || !strings.Contains(err.Error(), "still unknown after 4 attempt(s)")):
				t.Errorf("err = %v, want an unknown outcome after 4 attempts", err)
			case tt.wantErr == nil && !tt.wantUnsure && err != nil:
				t.Errorf("err = %v", err)
			}
			if got := len(f.sim.Writes()); got != tt.wantWrites {
				t.Errorf("%d writes sent, want %d", got, tt.wantWrites)
			}
			if reads != tt.wantReads {
				t.Errorf("%d read-backs, want %d", reads, tt.wantReads)
			}
			published := 0
			for _, r := range f.repo.Releases() {
				if r.TagName == "v1.0.0" && !r.Draft {
					published++
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tt.wantUnsure]; published != want {
				t.Errorf("%d published releases of the tag, want %d (never a duplicate)", published, want)
			}
		})
	}
}

func TestETagCacheServesUnchangedDataWithoutRateLimit(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	for i := range 150 {
		f.repo.AddRelease(githubsim.Release{TagName: fmt.Sprintf("v0.%d.0", i)})
	}
	first, err := f.c.Releases(ctx, "octo", "demo")
	if err != nil || len(first) != 150 {
		t.Fatalf("first listing: %d, %v", len(first), err)
	}
	before := f.sim.RateLimit(token)
	second, err := f.c.Releases(ctx, "octo", "demo")
	if err != nil || !reflect.DeepEqual(first, second) {
		t.Fatalf("cached listing differs: %v", err)
	}
	if after := f.sim.RateLimit(token); after.Remaining != before.Remaining {
		t.Errorf("remaining %d → %d: 304s must not consume rate limit", before.Remaining, after.Remaining)
	}
	log := f.sim.Requests()
	for _, r := range log[2:] {
		if !r.Conditional || !r.NotModified {
			t.Errorf("second run request %+v: want a conditional 304", r)
		}
	}
	if st := f.c.Stats(); st.Requests != 4 || st.NotModified != 2 {
		t.Errorf("stats %+v, want 4 requests, 2 not modified", st)
	}
	// A change is seen at once: the ETag no longer matches.
	f.repo.AddRelease(githubsim.Release{TagName: "v1.0.0"})
	third, err := f.c.Releases(ctx, "octo", "demo")
	if err != nil || len(third) != 151 || third[0].TagName != "v1.0.0" {
		t.Errorf("after a new release: %d releases, %v", len(third), err)
	}
}

func TestOperations(t *testing.T) {
	ctx := context.Background()
	f := setup(t, true)
	root := f.repo.CommitOnBranch("dev", "root", map[string]string{"CITATION.cff": "cff-version: 1.2.0\n", "docs/releases/1.0.0.md": "Notes.\n"})
	onMain := f.repo.CommitOnBranch("dev", "on main", nil)
	f.repo.SetBranch("main", onMain)
	ahead := f.repo.CommitOnBranch("dev", "ahead of main", nil)
	side := f.repo.AddCommit("side", []string{root}, nil)
	unrelated := f.repo.AddCommit("unrelated root", nil, nil)
	obj := f.repo.AnnotatedTag("v1.0.0", onMain, githubsim.Unverified("unknown_key"))
	f.repo.LightweightTag("v0.9.0", root)
	run := f.repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: onMain, Conclusion: "failure",
		Jobs: []githubsim.WorkflowJob{{Name: "Lint", Conclusion: "failure"}}})
	f.repo.RerunWorkflowRun(run, "completed", "failure",
		githubsim.WorkflowJob{Name: "Lint", Conclusion: "success"}, githubsim.WorkflowJob{Name: "CI passed", Conclusion: "success"},
		githubsim.WorkflowJob{Name: "Publish image (filer)", Conclusion: "failure"})
	f.repo.AddRelease(githubsim.Release{TagName: "v1.0.0", Draft: true})

	t.Run("TagRef", func(t *testing.T) {
		tests := []struct {
			tag       string
			want      github.Tag
			wantFound bool
		}{
			{"v1.0.0", github.Tag{Name: "v1.0.0", Kind: github.TagAnnotated, ObjectSHA: obj, TargetType: "commit", CommitSHA: onMain,
				Verification: github.Verification{Reason: "unknown_key"}}, true},
			{"v0.9.0", github.Tag{Name: "v0.9.0", Kind: github.TagLightweight, TargetType: "commit", CommitSHA: root}, true},
			{"v2.0.0", github.Tag{}, false},
		}
		for _, tt := range tests {
			got, found, err := f.c.TagRef(ctx, "octo", "demo", tt.tag)
			if err != nil || found != tt.wantFound || got != tt.want {
				t.Errorf("TagRef(%s) = %+v, %v, %v; want %+v", tt.tag, got, found, err, tt.want)
			}
		}
	})
	t.Run("IsAncestor", func(t *testing.T) {
		if _, err := f.c.IsAncestor(ctx, "octo", "demo", root, "no-such-branch"); err == nil {
			t.Errorf("IsAncestor on a missing branch: want an error")
		}
		for sha, want := range map[string]bool{root: true, onMain: true, ahead: false, side: false, unrelated: false} {
			if got, err := f.c.IsAncestor(ctx, "octo", "demo", sha, "main"); err != nil || got != want {
				t.Errorf("IsAncestor(%.7s, main) = %v, %v; want %v", sha, got, err, want)
			}
		}
	})
	t.Run("FileAt", func(t *testing.T) {
		if b, found, err := f.c.FileAt(ctx, "octo", "demo", "docs/releases/1.0.0.md", onMain); err != nil || !found || string(b) != "Notes.\n" {
			t.Errorf("existing file: %q, %v, %v", b, found, err)
		}
		if _, found, err := f.c.FileAt(ctx, "octo", "demo", "docs/releases/2.0.0.md", onMain); err != nil || found {
			t.Errorf("missing file: %v, %v", found, err)
		}
		if _, _, err := f.c.FileAt(ctx, "octo", "demo", "docs", onMain); err == nil || !strings.Contains(err.Error(), "not a file") {
			t.Errorf("directory: %v", err)
		}
	})
	t.Run("LatestWorkflowRun", func(t *testing.T) {
		got, found, err := f.c.LatestWorkflowRun(ctx, "octo", "demo", "ci.yml", "push", "dev", onMain)
		if err != nil || !found || got.ID != run || got.Attempt != 2 || got.Conclusion != "failure" || got.Status != "completed" {
			t.Errorf("re-run: %+v, %v, %v", got, found, err)
		}
		if _, found, err := f.c.LatestWorkflowRun(ctx, "octo", "demo", "ci.yml", "push", "dev", ahead); err != nil || found {
			t.Errorf("no run: %v, %v", found, err)
		}
		if _, _, err := f.c.LatestWorkflowRun(ctx, "octo", "demo", "nope.yml", "push", "dev", ahead); !errors.Is(err, github.ErrNotFound) {
			t.Errorf("unknown workflow: %v, want ErrNotFound", err)
		}
	})
	t.Run("WorkflowRunJobs", func(t *testing.T) {
		jobs, err := f.c.WorkflowRunJobs(ctx, "octo", "demo", run)
		if err != nil || len(jobs) != 3 {
			t.Fatalf("jobs of the re-run: %+v, %v", jobs, err)
		}
		if j := jobs[1]; j.Name != "CI passed" || j.Status != "completed" || j.Conclusion != "success" || j.ID == 0 ||
			!strings.HasSuffix(j.URL, fmt.Sprintf("/actions/runs/%d/job/%d", run, j.ID)) {
			t.Errorf("the gate job: %+v", j)
		}
		if jobs[0].Conclusion != "success" || jobs[2].Conclusion != "failure" {
			t.Errorf("the latest attempt's jobs: %+v", jobs)
		}
		many := make([]githubsim.WorkflowJob, 150)
		for i := range many {
			many[i] = githubsim.WorkflowJob{Name: fmt.Sprintf("Test %d", i), Conclusion: "success"}
		}
		big := f.repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev", HeadSHA: ahead, Jobs: many})
		if jobs, err := f.c.WorkflowRunJobs(ctx, "octo", "demo", big); err != nil || len(jobs) != 150 || jobs[149].Name != "Test 149" {
			t.Errorf("150 jobs over two pages: %d, %v", len(jobs), err)
		}
		if _, err := f.c.WorkflowRunJobs(ctx, "octo", "demo", run+1000); !errors.Is(err, github.ErrNotFound) {
			t.Errorf("unknown run: %v, want ErrNotFound", err)
		}
	})
	t.Run("drafts", func(t *testing.T) {
		all, err := f.c.Releases(ctx, "octo", "demo")
		if err != nil || len(all) != 1 || !all[0].Draft {
			t.Errorf("push token lists the draft: %+v, %v", all, err)
		}
		if _, found, err := f.c.ReleaseByTag(ctx, "octo", "demo", "v1.0.0"); err != nil || found {
			t.Errorf("draft by tag: %v, %v; want not found", found, err)
		}
	})
}

func TestTokenNeverLeaks(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false, WithRetryPolicy(RetryPolicy{MaxAttempts: 2}))
	f.repo.CommitOnBranch("main", "c", nil)
	wrong, err := NewClient(f.sim.URL, token+"x", WithSleep(f.clock.Sleep))
	if err != nil {
		t.Fatal(err)
	}
	f.sim.InjectFault("", "/repos/*/*/compare/*", githubsim.BadGateway(0))
	closed := githubsim.New(t)
	closed.Close()
	offline, err := NewClient(closed.URL, token, WithSleep(f.clock.Sleep), WithRetryPolicy(RetryPolicy{MaxAttempts: 2}))
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	_, err = wrong.Releases(ctx, "octo", "demo")
	errs = append(errs, err)
	_, err = f.c.IsAncestor(ctx, "octo", "demo", "main", "main")
	errs = append(errs, err)
	_, _, err = f.c.LatestWorkflowRun(ctx, "octo", "demo", "ci.yml", "push", "dev", "abc")
	errs = append(errs, err)
	_, err = offline.Releases(ctx, "octo", "demo")
	errs = append(errs, err)
	_, err = NewClient(f.sim.URL, token+" \n")
	errs = append(errs, err)
	_, err = NewClient("http://user:"+token+"@example.org/", token)
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Errorf("case %d: want an error", i)
			continue
		}
		t.Logf("case %d: %v", i, err)
		if strings.Contains(err.Error(), token) || strings.Contains(fmt.Sprintf("%+v %#v", err, err), token) {
			t.Errorf("case %d: token in error: %v", i, err)
		}
	}
	if s := fmt.Sprintf("%v %+v %#v", f.c, f.c, f.c); strings.Contains(s, token) {
		t.Errorf("token in the formatted client")
	}
	for _, r := range f.sim.Requests() {
		if strings.Contains(r.Path+"?"+r.Query, token) {
			t.Errorf("token in a URL: %s?%s", r.Path, r.Query)
		}
	}
}

func TestNewClientRejectsBadInput(t *testing.T) {
	for _, base := range []string{"ftp://example.org/", "example.org", "http://", "://x"} {
		if _, err := NewClient(base, "t"); err == nil {
			t.Errorf("NewClient(%q) accepted", base)
		}
	}
	if c, err := NewClient("", ""); err != nil || c.gh.BaseURL.String() != github.DefaultBaseURL {
		t.Errorf("default base URL: %v", err)
	}
	if c, err := NewClient("https://ghe.example.org/api/v3", "t"); err != nil || c.gh.BaseURL.String() != "https://ghe.example.org/api/v3/" {
		t.Errorf("enterprise base URL: %v", err)
	}
}
