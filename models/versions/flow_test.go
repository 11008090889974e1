package versions_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/models/upstreams"
	"dagger/shipyard/models/upstreams/upstreamstest"
	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

const token = versionstest.Token

// world is versionstest's world plus the ETag cache successive runs share, as successive
// scheduled runs share the one the GitHub command keeps.
type world struct {
	*versionstest.World
	cache   *githubclient.Cache
	perPage int
}

func newWorld(t *testing.T) *world {
	t.Helper()
	return &world{World: versionstest.New(t), cache: githubclient.NewCache(0)}
}

func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// client is a client of the simulated GitHub as tok ("" for anonymous), keeping its ETags
// in the world's cache.
func (w *world) client(t *testing.T, tok string) github.API {
	t.Helper()
	c, err := githubclient.NewClient(w.GitHub.URL, tok, githubclient.WithCache(w.cache), githubclient.WithSleep(noSleep))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (w *world) setup() versions.Config {
	return versions.Config{Flow: "model-versions", HasToken: true, PyPI: w.PyPI.Client()}
}

func (w *world) options(check bool) versions.Options {
	return versions.Options{Repo: versionstest.Repository, Check: check, PyPIURL: w.PyPI.URL(), ReleasesPerPage: w.perPage}
}

// run performs one run and returns its report and the requests the simulator saw.
func (w *world) run(t *testing.T, check bool) (versions.Report, []githubsim.Request) {
	t.Helper()
	before := len(w.GitHub.Requests())
	report, err := versions.Run(context.Background(), w.setup(), w.client(t, token), w.options(check))
	if err != nil {
		t.Fatalf("run: %v\nreport:\n%s", err, report.Text())
	}
	return report, w.GitHub.Requests()[before:]
}

// checkBranch asserts that the automation branch is main's head, then one commit with
// the plan's applied versions (when it applies any), then one commit per proposal adding
// that line; that its files agree with each other; and that main's other files and the
// cookiecutter comments are kept.
func (w *world) checkBranch(t *testing.T, plan upstreams.Updates) {
	t.Helper()
	var proposals []upstreams.Change
	for _, c := range plan.Changes {
		if c.Kind == upstreams.KindProposed {
			proposals = append(proposals, c)
		}
	}
	chain := []string{w.Repo.Branch(versions.Branch)} // newest first
	commits := len(proposals)
	if plan.HasEdits() {
		commits++
	}
	if commits == 0 && !plan.Empty() {
		commits = 1 // the commit without changes that carries what needs review
	}
	for range commits {
		parents := w.Repo.Parents(chain[len(chain)-1])
		if len(parents) != 1 {
			t.Fatalf("branch commit %s has parents %v, want one", chain[len(chain)-1], parents)
		}
		chain = append(chain, parents[0])
	}
	if base := chain[len(chain)-1]; base != w.Repo.Branch("main") {
		t.Fatalf("the branch's %d commits sit on %s, want main's head %s", commits, base, w.Repo.Branch("main"))
	}
	// Each proposal commit moves the matrix as its policy says: the retired lines leave,
	// the new one joins, nothing else moves.
	for i, c := range proposals {
		commit, parent := chain[len(proposals)-1-i], chain[len(proposals)-i]
		before, errB := upstreams.Parse([]byte(w.Repo.Files(parent)[upstreams.FilePath]))
		after, errA := upstreams.Parse([]byte(w.Repo.Files(commit)[upstreams.FilePath]))
		if errB != nil || errA != nil {
			t.Fatalf("proposal %s %s: %v %v", c.Integration, c.To, errB, errA)
		}
		got := after.Integrations[c.Integration].Versions
		var want []string
		for _, v := range before.Integrations[c.Integration].Versions {
			if !slices.ContainsFunc(c.Retires, func(r string) bool { return lineOf(r) == lineOf(v) }) {
				want = append(want, v)
			}
		}
		want = append(want, c.To)
		if !slices.Equal(got, want) {
			t.Errorf("proposal commit of %s: matrix %v, want %v", c.Integration, got, want)
		}
	}
	onBranch, onMain := w.Repo.Files(versions.Branch), w.Repo.Files("main")
	file, err := upstreams.Parse([]byte(onBranch[upstreams.FilePath]))
	if err != nil {
		t.Fatalf("upstreams.json on the branch: %v", err)
	}
	want := map[string]map[string]bool{} // integration → versions the branch adds
	retired := map[string]bool{}         // integration + line a proposal retires
	for _, c := range plan.Changes {
		for _, r := range c.Retires {
			retired[c.Integration+" "+lineOf(r)] = true
		}
	}
	add := func(name, v string) {
		if retired[name+" "+lineOf(v)] {
			return
		}
		if want[name] == nil {
			want[name] = map[string]bool{}
		}
		want[name][v] = true
	}
	for _, c := range plan.Changes {
		switch {
		case c.Kind == upstreams.KindPatch && c.Applied, c.Kind == upstreams.KindProposed:
			add(c.Integration, c.To)
		case c.Kind == upstreams.KindCloudcoil && file.Cloudcoil.Version != c.To:
			t.Errorf("cloudcoil.version %s, want %s", file.Cloudcoil.Version, c.To)
		}
	}
	skipped := map[string]bool{}
	for _, p := range plan.Problems {
		skipped[p.Integration] = true
	}
	for _, name := range file.Names() {
		in := file.Integrations[name]
		path := upstreams.CookiecutterPath(name)
		if skipped[name] {
			if onBranch[path] != onMain[path] {
				t.Errorf("%s was skipped but changed on the branch", path)
			}
			continue
		}
		if err := upstreams.CheckCookiecutter([]byte(onBranch[path]), *in); err != nil {
			t.Errorf("%s and %s disagree on the branch: %v", path, upstreams.FilePath, err)
		}
		for v := range want[name] {
			if !slices.Contains(in.Versions, v) {
				t.Errorf("%s: versions %v on the branch lack %s", name, in.Versions, v)
			}
		}
		if len(want[name]) == 0 && onBranch[path] != onMain[path] {
			t.Errorf("%s changed on the branch without a patch or proposal in the plan", path)
		}
		// The file's comments survive the edit.
		if first := strings.SplitN(onMain[path], "\n", 2)[0]; !strings.HasPrefix(onBranch[path], first) {
			t.Errorf("%s lost its leading comment %q", path, first)
		}
	}
	// The template's runtime and generation requirements follow an applied Cloudcoil
	// update within its minor; nothing else outside models/ changes.
	template, moved := upstreams.TemplatePyproject, false
	for _, c := range plan.Applied() {
		if c.Kind != upstreams.KindCloudcoil {
			continue
		}
		for _, req := range []string{`"cloudcoil>=` + c.To + `",`, `"cloudcoil[codegen,test]"`} {
			if !strings.Contains(onBranch[template], req) {
				t.Errorf("%s on the branch lacks %s…:\n%s", template, req, onBranch[template])
			}
		}
		moved = true
	}
	for p, content := range onMain {
		if !strings.HasPrefix(p, "models/") && (p != template || !moved) && onBranch[p] != content {
			t.Errorf("%s differs between main and the branch", p)
		}
	}
}

func TestModelVersionsScenario(t *testing.T) {
	w := newWorld(t)
	perRun := map[string]string{}
	count := func(log []githubsim.Request) string {
		nm := 0
		for _, r := range log {
			if r.NotModified {
				nm++
			}
		}
		return fmt.Sprintf("%d (%d answered 304)", len(log), nm)
	}

	// First run: cold cache, opens the pull request.
	r1, log1 := w.run(t, false)
	perRun["first"] = count(log1)
	if r1.Action != versions.ActionOpened || r1.PullRequest == nil || r1.PullRequest.Number != 1 {
		t.Fatalf("first run: action %s, pull request %+v\n%s", r1.Action, r1.PullRequest, r1.Text())
	}
	pulls := w.Repo.PullRequests()
	if len(pulls) != 1 || pulls[0].State != "open" || pulls[0].Head != versions.Branch || pulls[0].Base != "main" ||
		pulls[0].Title != r1.Plan.PRTitle() {
		t.Fatalf("pull requests after the first run: %+v", pulls)
	}
	for _, c := range r1.Plan.Changes {
		if !strings.Contains(pulls[0].Body, c.ReleaseURL) {
			t.Errorf("the body does not link %s's release %s", c.Integration, c.ReleaseURL)
		}
	}
	if !strings.Contains(pulls[0].Body, "Needs review") {
		t.Errorf("the body does not mark the updates that need review:\n%s", pulls[0].Body)
	}
	w.checkBranch(t, r1.Plan)
	body1 := pulls[0].Body
	// One commit for the applied updates and one per proposal (cert-manager, istio, keda,
	// knative-eventing, kubernetes), each a tree and a commit; then the ref and the pull
	// request.
	if got := versionstest.Writes(log1); strings.Join(got, "\n") != strings.Join(rebuildWrites(6, "POST /repos/cloudcoil/cloudcoil/git/refs", "POST /repos/cloudcoil/cloudcoil/pulls"), "\n") || r1.Requests.Writes != 14 {
		t.Errorf("first run writes %v (report %d), want 6 trees and commits, the ref and the pull request", got, r1.Requests.Writes)
	}
	if !strings.Contains(pulls[0].Body, "never merged automatically") || !strings.Contains(pulls[0].Body, "- [ ] review the commit of this pull request that moves the matrix of models/upstreams.json and models/istio/cookiecutter.yaml to 1.25.1") {
		t.Errorf("the body does not say the proposals need review:\n%s", pulls[0].Body)
	}

	// Second run: one more upstream release, and main moved on.
	w.Upstream["kubernetes/kubernetes"].AddRelease(githubsim.Release{TagName: "v1.32.3"})
	w.Repo.CommitOnBranch("main", "docs: contributing", map[string]string{"CONTRIBUTING.md": "Be kind.\n"})
	r2, log2 := w.run(t, false)
	perRun["second"] = count(log2)
	if r2.Action != versions.ActionUpdated || r2.PullRequest == nil || r2.PullRequest.Number != 1 || r2.Commit == "" {
		t.Fatalf("second run: action %s, pull request %+v, commit %q", r2.Action, r2.PullRequest, r2.Commit)
	}
	pulls = w.Repo.PullRequests()
	if len(pulls) != 1 || !strings.Contains(pulls[0].Body, "v1.32.3") || strings.Contains(body1, "v1.32.3") {
		t.Fatalf("after the second run: %d pull requests; body:\n%s", len(pulls), pulls[0].Body)
	}
	w.checkBranch(t, r2.Plan)
	if w.Repo.Files(versions.Branch)["CONTRIBUTING.md"] == "" {
		t.Errorf("the rebuilt branch is not on main's current head")
	}
	wantWrites := rebuildWrites(6,
		"PATCH /repos/cloudcoil/cloudcoil/git/refs/heads/automation/model-versions",
		"PATCH /repos/cloudcoil/cloudcoil/pulls/1")
	if got := versionstest.Writes(log2); strings.Join(got, "\n") != strings.Join(wantWrites, "\n") {
		t.Errorf("second run writes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantWrites, "\n"))
	}

	// Third run, nothing changed: no write, and every request a 304 that costs no rate limit.
	used := w.GitHub.RateLimit(token).Used
	r3, log3 := w.run(t, false)
	perRun["unchanged"] = count(log3)
	if r3.Action != versions.ActionUnchanged || len(versionstest.Writes(log3)) != 0 || r3.Requests.Writes != 0 {
		t.Fatalf("unchanged run: action %s, writes %v", r3.Action, versionstest.Writes(log3))
	}
	for _, req := range log3 {
		if !req.NotModified {
			t.Errorf("unchanged run: %s %s?%s answered %d, want 304", req.Method, req.Path, req.Query, req.Status)
		}
	}
	if r3.Requests.NotModified != r3.Requests.GitHub || r3.Requests.GitHub != int64(len(log3)) {
		t.Errorf("report counts %+v, simulator saw %d", r3.Requests, len(log3))
	}
	if now := w.GitHub.RateLimit(token).Used; now != used {
		t.Errorf("the unchanged run used %d of the rate limit", now-used)
	}

	// --check now: the plan again, no write, free as well.
	rc, logc := w.run(t, true)
	perRun["check"] = count(logc)
	if rc.Action != versions.ActionChecked || len(versionstest.Writes(logc)) != 0 || len(rc.Plan.Changes) != len(r3.Plan.Changes) {
		t.Errorf("check: action %s, writes %v, %d changes (run had %d)", rc.Action, versionstest.Writes(logc), len(rc.Plan.Changes), len(r3.Plan.Changes))
	}

	// The maintainers merge the branch, proposals included (here as their own commit on
	// main; Kubernetes' new minor among them). What is left needs a person: the Cloudcoil
	// migration. The pull request stays open, rebuilt as one commit without changes that
	// carries the checklist.
	merged := map[string]string{}
	for _, p := range r3.Files {
		merged[p] = w.Repo.Files(versions.Branch)[p]
	}
	w.Repo.CommitOnBranch("main", "Update model versions", merged)
	r4, log4 := w.run(t, false)
	perRun["merged"] = count(log4)
	pulls = w.Repo.PullRequests()
	if r4.Action != versions.ActionUpdated || pulls[0].State != "open" || len(pulls) != 1 {
		t.Fatalf("after the merge: action %s, pull requests %+v", r4.Action, pulls)
	}
	for _, want := range []string{"Needs review", "- [ ] migrate the template and the generator to Cloudcoil 0.6"} {
		if !strings.Contains(pulls[0].Body, want) {
			t.Errorf("the open pull request's body lacks %q:\n%s", want, pulls[0].Body)
		}
	}
	w.checkBranch(t, r4.Plan)
	if head := w.Repo.Branch(versions.Branch); len(w.Repo.Parents(head)) != 1 || w.Repo.Parents(head)[0] != w.Repo.Branch("main") ||
		len(w.Repo.Files(head)) != len(w.Repo.Files("main")) || r4.Plan.HasEdits() {
		t.Errorf("the branch should be one commit on main without file changes")
	}
	wantWrites = []string{
		"POST /repos/cloudcoil/cloudcoil/git/commits",
		"PATCH /repos/cloudcoil/cloudcoil/git/refs/heads/automation/model-versions",
		"PATCH /repos/cloudcoil/cloudcoil/pulls/1",
	}
	if got := versionstest.Writes(log4); strings.Join(got, "\n") != strings.Join(wantWrites, "\n") {
		t.Errorf("writes after the merge %v, want %v", got, wantWrites)
	}

	// The maintainers migrate to Cloudcoil 0.6: nothing is pending, so the pull request is
	// closed; the branch stays.
	done, err := upstreams.Parse([]byte(w.Repo.Files("main")[upstreams.FilePath]))
	if err != nil {
		t.Fatal(err)
	}
	done.Cloudcoil.Minor, done.Cloudcoil.Version = "0.6", "0.6.1"
	raw, err := done.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	w.Repo.CommitOnBranch("main", "Cloudcoil 0.6", map[string]string{upstreams.FilePath: string(raw)})
	r5, log5 := w.run(t, false)
	perRun["resolved"] = count(log5)
	pulls = w.Repo.PullRequests()
	if r5.Action != versions.ActionClosed || !r5.Plan.Empty() || pulls[0].State != "closed" || len(pulls) != 1 {
		t.Fatalf("nothing pending: action %s, plan %+v, pull requests %+v", r5.Action, r5.Plan, pulls)
	}
	if w.Repo.Branch(versions.Branch) == "" {
		t.Errorf("the branch was deleted; it should stay")
	}
	if got := versionstest.Writes(log5); len(got) != 1 || got[0] != "PATCH /repos/cloudcoil/cloudcoil/pulls/1" {
		t.Errorf("closing writes %v, want one PATCH", got)
	}

	// And after that, a run with nothing pending writes nothing and opens nothing.
	r6, log6 := w.run(t, false)
	perRun["after close"] = count(log6)
	if r6.Action != versions.ActionNone || len(versionstest.Writes(log6)) != 0 || len(w.Repo.PullRequests()) != 1 {
		t.Errorf("after closing: action %s, writes %v", r6.Action, versionstest.Writes(log6))
	}
	for _, req := range log6 {
		if !req.NotModified {
			t.Errorf("after closing: %s %s answered %d, want 304", req.Method, req.Path, req.Status)
		}
	}
	t.Logf("GitHub requests per run: %v (PyPI: 1 each)", perRun)
}

// lineOf is the minor line of an X.Y.Z version.
func lineOf(v string) string {
	parsed, err := upstreams.ParseVersion(v)
	if err != nil {
		return v
	}
	return parsed.Line().String()
}

// rebuildWrites are the writes of a branch rebuild of n commits with files (a tree and a
// commit each), then the given writes.
func rebuildWrites(n int, then ...string) []string {
	var out []string
	for range n {
		out = append(out, "POST /repos/cloudcoil/cloudcoil/git/trees", "POST /repos/cloudcoil/cloudcoil/git/commits")
	}
	return append(out, then...)
}

func TestModelVersionsCheckWritesNothing(t *testing.T) {
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			w := newWorld(t)
			report, log := w.run(t, true)
			if writes := versionstest.Writes(log); len(writes) != 0 {
				t.Fatalf("--check sent writes: %v", writes)
			}
			if w.Repo.Branch(versions.Branch) != "" || len(w.Repo.PullRequests()) != 0 {
				t.Fatalf("--check created a branch or a pull request")
			}
			out, err := report.Format(format)
			if err != nil {
				t.Fatal(err)
			}
			if format == "json" {
				var decoded struct {
					Check  bool   `json:"check"`
					Action string `json:"action"`
					Plan   struct {
						Changes []upstreams.Change `json:"changes"`
					} `json:"plan"`
				}
				if err := json.Unmarshal([]byte(out), &decoded); err != nil {
					t.Fatalf("JSON output: %v\n%s", err, out)
				}
				if !decoded.Check || decoded.Action != "checked" || len(decoded.Plan.Changes) != len(report.Plan.Changes) {
					t.Errorf("decoded %+v", decoded)
				}
				return
			}
			for _, c := range report.Plan.Changes {
				if line := c.Integration + ": " + c.From + " → " + c.To; !strings.Contains(out, line) {
					t.Errorf("text output lacks %q:\n%s", line, out)
				}
			}
			if !strings.Contains(out, "Check only") {
				t.Errorf("text output does not say nothing changed:\n%s", out)
			}
		})
	}
}

// TestModelVersionsReportOpensWithTheClientNotes: what the client noted while the run
// made its calls (an ETag cache it could not use) opens the report's notes, in the text
// the user reads too.
func TestModelVersionsReportOpensWithTheClientNotes(t *testing.T) {
	w := newWorld(t)
	gh := w.client(t, token)
	const note = "ETag cache not used, starting cold: planted"
	setup := w.setup()
	// The client has something to say only once it has made calls: the notes are read
	// after the run, not before.
	setup.ClientNotes = func() []string {
		if gh.Stats().Requests == 0 {
			return nil
		}
		return []string{note}
	}
	report, err := versions.Run(context.Background(), setup, gh, w.options(true))
	if err != nil {
		t.Fatalf("run: %v\nreport:\n%s", err, report.Text())
	}
	if len(report.Notes) == 0 || report.Notes[0] != note {
		t.Fatalf("notes %q, want them to open with %q", report.Notes, note)
	}
	if !strings.Contains(report.Text(), note) {
		t.Errorf("the text report lacks the client's note:\n%s", report.Text())
	}
}

// TestModelVersionsTokenNeverLeaks runs into failures of every kind and checks that the
// token appears in no error, no report and not in the ETag cache as it would be stored.
func TestModelVersionsTokenNeverLeaks(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(w *world) string // the token the run's client sends
	}{
		{"rejected token", func(*world) string { return token + "x" }},
		{"write refused", func(w *world) string {
			w.GitHub.InjectFault("POST", "/repos/*/*/pulls", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 422})
			return token
		}},
		{"outage", func(w *world) string {
			w.GitHub.InjectFault("", "/repos/*/*/git/trees", githubsim.BadGateway(0))
			return token
		}},
		{"success", func(*world) string { return token }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tok := tt.arrange(w)
			report, err := versions.Run(context.Background(), w.setup(), w.client(t, tok), w.options(false))
			js, _ := report.JSON()
			texts := []string{report.Text(), js}
			if err != nil {
				texts = append(texts, err.Error())
			}
			seal, serr := githubclient.NewCacheSeal(tok)
			if serr != nil {
				t.Fatal(serr)
			}
			stored, serr := w.cache.Export(seal)
			if serr != nil {
				t.Fatal(serr)
			}
			texts = append(texts, string(gunzip(t, stored)))
			for _, s := range texts {
				if strings.Contains(s, token) {
					t.Fatalf("the token leaked into:\n%s", s)
				}
			}
			if tt.name != "success" && err == nil {
				t.Errorf("want an error")
			}
		})
	}
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestModelVersionsConvergesAfterLostAnswers loses the answer of each write once, after
// GitHub applied it: the run reads back, does not repeat what happened, and ends with one
// pull request and the branch in place.
func TestModelVersionsConvergesAfterLostAnswers(t *testing.T) {
	for _, pattern := range []string{
		"/repos/*/*/pulls",
		"/repos/*/*/git/refs",
		"/repos/*/*/git/trees",
		"/repos/*/*/git/commits",
	} {
		t.Run(pattern, func(t *testing.T) {
			w := newWorld(t)
			w.GitHub.InjectFault("POST", pattern, githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
			report, _ := w.run(t, false)
			if report.Action != versions.ActionOpened || len(w.Repo.PullRequests()) != 1 {
				t.Fatalf("action %s, %d pull requests", report.Action, len(w.Repo.PullRequests()))
			}
			w.checkBranch(t, report.Plan)
			// A second run finds everything in place.
			again, log := w.run(t, false)
			if again.Action != versions.ActionUnchanged || len(versionstest.Writes(log)) != 0 {
				t.Errorf("re-run: action %s, writes %v", again.Action, versionstest.Writes(log))
			}
		})
	}
}

// TestModelVersionsAdoptsAndRepairs starts from states an earlier run or a person left:
// a pull request opened by hand from the automation branch, and a branch holding a stale
// commit plus a hand-made one.
func TestModelVersionsAdoptsAndRepairs(t *testing.T) {
	w := newWorld(t)
	main := w.Repo.Branch("main")
	w.Repo.SetBranch(versions.Branch, w.Repo.AddCommit("by hand", []string{main}, map[string]string{"models/upstreams.json": "{}\n", "NOTES.md": "x\n"}))
	w.Repo.AddPullRequest(githubsim.PullRequest{Title: "wip", Body: "by hand", Head: versions.Branch, Base: "main"})
	report, log := w.run(t, false)
	if report.Action != versions.ActionUpdated || report.PullRequest.Number != 1 || len(w.Repo.PullRequests()) != 1 {
		t.Fatalf("action %s, pull request %+v", report.Action, report.PullRequest)
	}
	if _, ok := w.Repo.Files(versions.Branch)["NOTES.md"]; ok {
		t.Errorf("the hand-made file survived the rebuild")
	}
	w.checkBranch(t, report.Plan)
	if got := w.Repo.PullRequests()[0]; got.Title != report.Plan.PRTitle() {
		t.Errorf("title %q, want %q", got.Title, report.Plan.PRTitle())
	}
	if !strings.Contains(strings.Join(versionstest.Writes(log), "\n"), "PATCH /repos/cloudcoil/cloudcoil/git/refs/heads/automation/model-versions") {
		t.Errorf("writes %v, want a forced move of the branch", versionstest.Writes(log))
	}
}

func TestModelVersionsErrorsNameTheFix(t *testing.T) {
	tests := []struct {
		name    string
		arrange func(w *world) versions.Options
		want    string
	}{
		{"not the generator repository", func(w *world) versions.Options {
			o := w.options(false)
			o.Repo = "cloudcoil/other"
			w.GitHub.AddRepo("cloudcoil", "other").CommitOnBranch("main", "init", map[string]string{"README.md": "x"})
			return o
		}, "models/upstreams.json not found at main"},
		{"missing base branch", func(w *world) versions.Options {
			o := w.options(false)
			o.Base = "trunk"
			return o
		}, "--base trunk: no such branch in cloudcoil/cloudcoil"},
		{"base is the automation branch", func(w *world) versions.Options {
			o := w.options(false)
			o.Base = versions.Branch
			return o
		}, "cannot be the automation branch"},
		{"bad repository name", func(w *world) versions.Options {
			o := w.options(false)
			o.Repo = "cloudcoil"
			return o
		}, `--repo "cloudcoil": want the Cloudcoil generator repository as owner/name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			opts := tt.arrange(w)
			_, err := versions.Run(context.Background(), w.setup(), w.client(t, token), opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			flowtest.RequireNamed(t, err, versions.DeclaredSteps(), versions.DeclaredSteps())
			if writes := w.GitHub.Writes(); len(writes) != 0 {
				t.Errorf("a failed run wrote %v", writes)
			}
		})
	}
}

// --base is a branch name from the caller: one git refuses (git check-ref-format) is
// refused in the options step, naming the flag, the value and the rule, before a single
// request; under refs/heads/ a name like ../tags/x would address a tag.
func TestModelVersionsRefusesABaseGitRefuses(t *testing.T) {
	tests := []struct{ base, rule string }{
		{"../tags/x", `contains ".."`},
		{"-main", "starts with -"},
		{"/main", "starts with /"},
		{"main/", "ends with /"},
		{"a//b", `contains "//"`},
		{"main.lock", `ends with ".lock"`},
		{"main.", `ends with "."`},
		{"main@{1}", `contains "@{"`},
		{"ma\x01in", "control character"},
		{"HEAD", `is "HEAD"`},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			w := newWorld(t)
			o := w.options(true)
			o.Base = tt.base
			_, err := versions.Run(context.Background(), w.setup(), w.client(t, token), o)
			for _, want := range []string{fmt.Sprintf("--base: branch %q", tt.base), tt.rule, "check options"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v, want it to say %q", err, want)
				}
			}
			if n := len(w.GitHub.Requests()); n != 0 {
				t.Errorf("%d requests sent, want none", n)
			}
		})
	}
}

// TestModelVersionsSkipsOnlyTheBrokenIntegration breaks one integration at a time: the run
// still updates the others and opens the pull request, and the output and the pull
// request name the skipped integration with its file and its fix.
func TestModelVersionsSkipsOnlyTheBrokenIntegration(t *testing.T) {
	tests := []struct {
		name        string
		integration string
		arrange     func(w *world)
		want        []string // in the problem: file, what, fix
	}{
		{"upstream repository gone", "keda", func(w *world) {
			w.Repo.CommitOnBranch("main", "rename", map[string]string{
				upstreams.FilePath: strings.Replace(w.Repo.Files("main")[upstreams.FilePath], `"kedacore/keda"`, `"kedacore/keda-gone"`, 1),
			})
		}, []string{"models/upstreams.json", "integrations.keda.repository kedacore/keda-gone: no such repository on GitHub", "fix the owner/name"}},
		{"cookiecutter missing", "istio", func(w *world) {
			files := w.Repo.Files("main")
			delete(files, "models/istio/cookiecutter.yaml")
			w.Repo.SetBranch("main", w.Repo.AddCommit("drop", nil, files))
		}, []string{"models/istio/cookiecutter.yaml", "does not exist at main", "add it, or remove integrations.istio"}},
		{"cookiecutter drifted", "kyverno", func(w *world) {
			w.Repo.CommitOnBranch("main", "drift", map[string]string{
				"models/kyverno/cookiecutter.yaml": strings.Replace(w.Repo.Files("main")["models/kyverno/cookiecutter.yaml"], "'1.13.2'", "'1.13.1'", 1),
			})
		}, []string{"models/kyverno/cookiecutter.yaml", "default_context.versions [1.13.1] differs", "back in step"}},
		{"entry breaks a rule", "velero", func(w *world) {
			w.Repo.CommitOnBranch("main", "typo", map[string]string{
				upstreams.FilePath: strings.Replace(w.Repo.Files("main")[upstreams.FilePath], `"vmware-tanzu/velero"`, `"vmware-tanzu"`, 1),
			})
		}, []string{"models/upstreams.json", "integrations.velero.repository", "the other integrations were updated without it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			tt.arrange(w)
			r, err := versions.Run(context.Background(), w.setup(), w.client(t, token), w.options(false))
			if err != nil {
				t.Fatalf("one broken integration stopped the run: %v", err)
			}
			if r.Action != versions.ActionOpened || !r.Plan.HasEdits() {
				t.Fatalf("action %s: the other integrations were not updated\n%s", r.Action, r.Text())
			}
			var problem *upstreams.Problem
			for i, p := range r.Plan.Problems {
				if p.Integration == tt.integration {
					problem = &r.Plan.Problems[i]
				}
			}
			if problem == nil || len(r.Plan.Problems) != 1 {
				t.Fatalf("problems %+v, want one for %s", r.Plan.Problems, tt.integration)
			}
			if got := problem.File + " " + problem.Problem + " " + problem.Fix; !strings.Contains(problem.File, tt.want[0]) ||
				!strings.Contains(got, tt.want[1]) || !strings.Contains(problem.Fix, tt.want[2]) {
				t.Errorf("problem %+v, want %q", *problem, tt.want)
			}
			for _, c := range r.Plan.Changes {
				if c.Integration == tt.integration {
					t.Errorf("the skipped integration still has a change: %+v", c)
				}
			}
			body := w.Repo.PullRequests()[0].Body
			if !strings.Contains(body, "## Skipped") || !strings.Contains(body, "**"+tt.integration+"** `"+problem.File+"`") || !strings.Contains(body, problem.Fix) {
				t.Errorf("the pull request body does not name the skipped integration:\n%s", body)
			}
			if text := r.Text(); !strings.Contains(text, "skipped "+tt.integration+": "+problem.File) {
				t.Errorf("the output does not name it:\n%s", text)
			}
			w.checkBranch(t, r.Plan)
		})
	}
}

// TestModelVersionsPagesOnlyAsFarAsNeeded lists releases two at a time: each repository is
// read up to the page that holds the last of its tracked versions, and the plan is the one
// a full listing gives.
func TestModelVersionsPagesOnlyAsFarAsNeeded(t *testing.T) {
	full := newWorld(t)
	want, _ := full.run(t, true)

	w := newWorld(t)
	w.perPage = 2
	got, _ := w.run(t, true)
	if a, b := got.Plan.Text(), want.Plan.Text(); a != b {
		t.Fatalf("plan with small pages:\n%s\nwith full pages:\n%s", a, b)
	}
	file, err := upstreams.Parse([]byte(w.Repo.Files("main")[upstreams.FilePath]))
	if err != nil {
		t.Fatal(err)
	}
	releases := upstreamstest.Releases()
	for _, scan := range got.Discovery {
		listing := releases[scan.Repository]
		last := -1 // position of the last tracked version in the newest-first listing
		for _, name := range scan.Integrations {
			for _, v := range file.Integrations[name].Versions {
				for i, rel := range listing {
					if got, ok := upstreams.ReleaseVersion(*file.Integrations[name], rel.Tag); ok && got.String() == v && !rel.Draft && !rel.Prerelease {
						last = max(last, i)
					}
				}
			}
		}
		wantPages := last/w.perPage + 1
		if last < 0 { // never listed: read to the end
			wantPages = (len(listing) + w.perPage - 1) / w.perPage
		}
		t.Logf("%s: %d of %d pages", scan.Repository, scan.Pages, (len(listing)+w.perPage-1)/w.perPage)
		if scan.Pages != wantPages || !scan.Complete {
			t.Errorf("%s: read %d pages (complete %v), want %d of %d", scan.Repository, scan.Pages, scan.Complete,
				wantPages, (len(listing)+w.perPage-1)/w.perPage)
		}
	}
}

// TestModelVersionsIsADeclaredFlow: each step logs, --check stops before the first writing
// step, and a failure names its step and what to do next.
func TestModelVersionsIsADeclaredFlow(t *testing.T) {
	w := newWorld(t)
	var logged []string
	setup := w.setup()
	setup.Log = func(format string, args ...any) { logged = append(logged, fmt.Sprintf(format, args...)) }
	if _, err := versions.Run(context.Background(), setup, w.client(t, token), w.options(true)); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"model-versions: check token", "model-versions: check options", "model-versions: read base", "model-versions: discover releases",
		"model-versions: read PyPI", "model-versions: plan", "model-versions: read edited files",
		"model-versions: lay out commits", "model-versions: dry run: stopping before sync branch, which writes",
	}
	if !slices.Equal(logged, want) {
		t.Errorf("--check logged\n%s\nwant\n%s", strings.Join(logged, "\n"), strings.Join(want, "\n"))
	}

	// A fault at each step that can fail fails that step, named once by the runner, with
	// its advice; a fault before the first writing step writes nothing. plan is pure, and
	// lay out commits fails only on what screen has already set aside as a problem: no
	// input reaches a failure of either.
	refuse := githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusUnprocessableEntity}
	failures := []struct {
		name, step, message string
		arrange             func(w *world, s *versions.Config, o *versions.Options)
	}{
		{"a run without a token", "check token", "CI_GITHUB_TOKEN", func(_ *world, s *versions.Config, _ *versions.Options) { s.HasToken = false }},
		{"a bad repository name", "check options", "--repo", func(_ *world, _ *versions.Config, o *versions.Options) { o.Repo = "cloudcoil" }},
		{"a missing base branch", "read base", "--base trunk", func(_ *world, _ *versions.Config, o *versions.Options) { o.Base = "trunk" }},
		{"GitHub refuses a listing of releases", "discover releases", "releases of", func(w *world, _ *versions.Config, _ *versions.Options) {
			w.GitHub.InjectFault(http.MethodGet, "/repos/kedacore/keda/releases", refuse)
		}},
		{"PyPI unreachable", "read PyPI", "check --pypi-url", func(_ *world, _ *versions.Config, o *versions.Options) { o.PyPIURL = "http://127.0.0.1:1/" }},
		{"GitHub refuses an edited file", "read edited files", "cookiecutter.yaml", func(w *world, _ *versions.Config, _ *versions.Options) {
			w.GitHub.InjectFault(http.MethodGet, "/repos/cloudcoil/cloudcoil/contents/models/*/cookiecutter.yaml", refuse)
		}},
		{"GitHub refuses the branch's tree", "sync branch", "create tree", func(w *world, _ *versions.Config, _ *versions.Options) {
			w.GitHub.InjectFault(http.MethodPost, "/repos/*/*/git/trees", refuse)
		}},
		{"GitHub refuses the pull request", "sync pull request", "open pull request", func(w *world, _ *versions.Config, _ *versions.Options) {
			w.GitHub.InjectFault(http.MethodPost, "/repos/*/*/pulls", refuse)
		}},
	}
	declared := versions.DeclaredSteps()
	var faulted []string
	for _, tt := range failures {
		faulted = append(faulted, tt.step)
	}
	unreachable := []string{"plan", "lay out commits"}
	if want := slices.DeleteFunc(slices.Clone(declared), func(s string) bool { return slices.Contains(unreachable, s) }); !slices.Equal(faulted, want) {
		t.Errorf("faults at %v, want one at each declared step but %v: %v", faulted, unreachable, want)
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			setup, opts := w.setup(), w.options(false)
			tt.arrange(w, &setup, &opts)
			tok := token
			if !setup.HasToken {
				tok = ""
			}
			_, err := versions.Run(context.Background(), setup, w.client(t, tok), opts)
			var fe *flow.Error
			if !errors.As(err, &fe) || fe.Flow != "model-versions" || fe.Step != tt.step || !strings.Contains(err.Error(), tt.message) {
				t.Fatalf("err = %v, want a failure of step %q saying %q", err, tt.step, tt.message)
			}
			flowtest.RequireNamed(t, err, declared, declared)
			if tt.step != "check token" && !strings.Contains(err.Error(), "\n  next: ") {
				t.Errorf("no advice: %v", err)
			}
			if writes := w.GitHub.Writes(); slices.Index(declared, tt.step) < slices.Index(declared, "sync branch") && len(writes) != 0 {
				t.Errorf("a failed run wrote %v", writes)
			}
		})
	}
}

// TestModelVersionsWithoutAClient: a run given no GitHub client fails its first step,
// named, rather than at the first request.
func TestModelVersionsWithoutAClient(t *testing.T) {
	w := newWorld(t)
	_, err := versions.Run(context.Background(), w.setup(), nil, w.options(true))
	var fe *flow.Error
	if !errors.As(err, &fe) || fe.Step != "check options" || !strings.Contains(err.Error(), "no GitHub client") {
		t.Fatalf("err = %v, want check options to refuse", err)
	}
}
