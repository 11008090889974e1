package registry

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// tagWith plans and applies tags as a release step would, failing the test
// on any error.
func tagWith(t *testing.T, reg *testRegistry, repo, digest string, tags ...string) ApplyReport {
	t.Helper()
	existing, err := ResolveTags(t.Context(), repo, tags, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanTags(tesk, repo, digest, tags, existing)
	if err != nil {
		t.Fatal(err)
	}
	report, err := ApplyTags(t.Context(), tesk, repo, digest, plan, reg.auth, always(true), append(reg.opts(), WithStillNewest(newest(true, "")))...)
	if err != nil {
		t.Fatal(err)
	}
	return report
}

func always(ok bool) StillLatest {
	return func(context.Context) (bool, error) { return ok, nil }
}

func newest(ok bool, why string) StillNewest {
	return func(context.Context, string) (bool, string, error) { return ok, why, nil }
}

func writtenTags(r ApplyReport) []string {
	var out []string
	for _, a := range r.Written {
		out = append(out, a.Tag)
	}
	return out
}

func manifestPUTs(writes []string) []string {
	var out []string
	for _, w := range writes {
		if strings.HasPrefix(w, "PUT ") && strings.Contains(w, "/manifests/") {
			out = append(out, w)
		}
	}
	return out
}

func TestApplyTagsVersionThenSameDigestIsANoOp(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)

	report := tagWith(t, reg, repo, d, "0.11.0")
	if got := writtenTags(report); !reflect.DeepEqual(got, []string{"0.11.0"}) {
		t.Errorf("written = %v", got)
	}
	if want := map[string]string{"0.11.0": d}; !equalMaps(reg.state(t, repo), want) {
		t.Fatalf("state = %v, want %v", reg.state(t, repo), want)
	}

	mark := reg.mark()
	report = tagWith(t, reg, repo, d, "0.11.0")
	if len(report.Written) != 0 || len(report.Kept) != 1 || report.Kept[0].Action != ActionKeep {
		t.Errorf("re-run report = %+v, want the version kept", report)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("re-run wrote %v", w)
	}
}

func TestRetaggingAVersionToAnotherDigestFailsAndChangesNothing(t *testing.T) {
	for _, tag := range []string{"0.11.0", "0.11.0rc1", "sha-0123abc"} {
		t.Run(tag, func(t *testing.T) {
			reg := newTestRegistry(t)
			repo := reg.repo("img")
			first := pushed(t, reg, repo)
			tagWith(t, reg, repo, first, tag, "dev")
			second := pushed(t, reg, repo)
			before := reg.state(t, repo)
			mark := reg.mark()

			existing, err := ResolveTags(t.Context(), repo, []string{tag, "dev"}, reg.auth, reg.opts()...)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := PlanTags(tesk, repo, second, []string{tag, "dev"}, existing)
			var ie *ImmutableTagError
			if !errors.As(err, &ie) {
				t.Fatalf("PlanTags error = %v, want an ImmutableTagError", err)
			}
			if ie.Published != first || ie.Wanted != second {
				t.Errorf("error names %s → %s, want %s → %s", ie.Published, ie.Wanted, first, second)
			}

			// A plan forged or edited on its way between jobs is refused too.
			forged := Tagging{Image: repo, Digest: second, Actions: []TagAction{{Tag: tag, Class: ie.Class, Action: ActionMove, From: first}}}
			if _, err := ApplyTags(t.Context(), tesk, repo, second, forged, reg.auth, nil, reg.opts()...); !errors.As(err, &ie) {
				t.Errorf("ApplyTags(forged) error = %v, want an ImmutableTagError", err)
			}
			if len(plan.Actions) != 0 {
				t.Errorf("refused plan has actions: %v", plan.Actions)
			}
			if w := reg.writesSince(mark); len(w) != 0 {
				t.Errorf("wrote %v", w)
			}
			if after := reg.state(t, repo); !equalMaps(after, before) {
				t.Errorf("state = %v, want %v", after, before)
			}
		})
	}
}

func TestApplyTagsMovesDev(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	first := pushed(t, reg, repo)
	tagWith(t, reg, repo, first, "dev", "sha-1111111")
	second := pushed(t, reg, repo)

	report := tagWith(t, reg, repo, second, "dev", "sha-2222222")
	if got := writtenTags(report); !reflect.DeepEqual(got, []string{"sha-2222222", "dev"}) {
		t.Errorf("written = %v", got)
	}
	if report.Written[1].Action != ActionMove || report.Written[1].From != first {
		t.Errorf("dev action = %+v, want a move from %s", report.Written[1], first)
	}
	want := map[string]string{"dev": second, "sha-1111111": first, "sha-2222222": second}
	if got := reg.state(t, repo); !equalMaps(got, want) {
		t.Errorf("state = %v, want %v", got, want)
	}

	// Back to the first image, as a re-run of the older run would: refused without the
	// commit-order recheck, skipped and reported when it says no.
	plan, err := PlanTags(tesk, repo, first, []string{"sha-1111111", "dev"}, map[string]string{"sha-1111111": first, "dev": second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ApplyTags(t.Context(), tesk, repo, first, plan, reg.auth, nil, reg.opts()...); err == nil || !strings.Contains(err.Error(), "commit order on dev") {
		t.Errorf("dev moved without a recheck: %v", err)
	}
	var askedFrom string
	older := func(_ context.Context, from string) (bool, string, error) {
		askedFrom = from
		return false, "a newer commit", nil
	}
	report, err = ApplyTags(t.Context(), tesk, repo, first, plan, reg.auth, nil, append(reg.opts(), WithStillNewest(older))...)
	if err != nil || len(report.Skipped) != 1 || report.Skipped[0].Tag != "dev" || askedFrom != second {
		t.Errorf("report %+v, %v; recheck asked about %q", report, err, askedFrom)
	}
	if got := reg.state(t, repo); !equalMaps(got, want) {
		t.Errorf("state = %v, want %v", got, want)
	}
}

// dev is resolved with the immutable tags right before writing: a newer commit's run that
// moved dev after the plan was made makes the apply fail as concurrent, and dev stays on
// the newer image, where the plan's From would have let it move back.
func TestApplyTagsDevMovedSinceThePlan(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	first := pushed(t, reg, repo)
	tagWith(t, reg, repo, first, "dev", "sha-1111111")
	ours := pushed(t, reg, repo)
	existing, err := ResolveTags(t.Context(), repo, []string{"sha-2222222", "dev"}, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanTags(tesk, repo, ours, []string{"sha-2222222", "dev"}, existing)
	if err != nil {
		t.Fatal(err)
	}
	// Between our plan and our apply, the run of a newer commit moves dev.
	newer := pushed(t, reg, repo)
	tagWith(t, reg, repo, newer, "dev", "sha-3333333")
	before := reg.state(t, repo)
	mark := reg.mark()
	var askedFrom []string
	recheck := func(_ context.Context, from string) (bool, string, error) {
		askedFrom = append(askedFrom, from)
		return from == first, "dev is on a newer commit's image", nil // the commit order: only first is older
	}
	report, err := ApplyTags(t.Context(), tesk, repo, ours, plan, reg.auth, nil, append(reg.opts(), WithStillNewest(recheck))...)
	var ce *ConcurrentTagError
	if !errors.As(err, &ce) || ce.Tag != "dev" || ce.Planned != first || ce.Found != newer {
		t.Fatalf("ApplyTags = %+v, %v; want a ConcurrentTagError for dev (planned %s, found %s)", report, err, first, newer)
	}
	if w := manifestPUTs(reg.writesSince(mark)); len(w) != 0 || len(report.Written) != 0 {
		t.Errorf("wrote %v (report %v)", w, report.Written)
	}
	if after := reg.state(t, repo); !equalMaps(after, before) || after["dev"] != newer {
		t.Errorf("state = %v, want %v", after, before)
	}
	if len(askedFrom) != 0 {
		t.Errorf("the order recheck was asked about %v, after dev was found moved", askedFrom)
	}
}

// Creating dev is rechecked as moving it is: without the order recheck nothing is
// written, and a commit the recheck refuses (not on dev) leaves dev absent.
func TestApplyTagsCreatingDevNeedsItsRecheck(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)
	plan, err := PlanTags(tesk, repo, d, []string{"sha-1111111", "dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mark := reg.mark()
	if _, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, nil, reg.opts()...); err == nil || !strings.Contains(err.Error(), "commit order on dev") {
		t.Errorf("dev created without a recheck: %v", err)
	}
	if w := manifestPUTs(reg.writesSince(mark)); len(w) != 0 {
		t.Errorf("wrote %v without the recheck", w)
	}
	var askedFrom []string
	offDev := func(_ context.Context, from string) (bool, string, error) {
		askedFrom = append(askedFrom, from)
		return false, "commit 1111111 is not on the dev branch: dev left absent", nil
	}
	report, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, nil, append(reg.opts(), WithStillNewest(offDev))...)
	if err != nil || len(report.Skipped) != 1 || report.Skipped[0].Tag != "dev" || !slices.Equal(askedFrom, []string{""}) {
		t.Errorf("report %+v, %v; recheck asked about %q", report, err, askedFrom)
	}
	if got := reg.state(t, repo); got["dev"] != "" || got["sha-1111111"] != d {
		t.Errorf("state = %v, want sha-1111111 on %s and no dev", got, d)
	}
}

func TestApplyTagsLatestIsRecheckedBeforeItMoves(t *testing.T) {
	errGitHub := errors.New("releases unavailable")
	tests := []struct {
		name        string
		stillLatest StillLatest
		wantErr     bool
		wantSkipped bool
		wantWritten []string
	}{
		{name: "still the highest release", stillLatest: always(true), wantWritten: []string{"0.12.0", "latest"}},
		{name: "a higher release appeared", stillLatest: always(false), wantSkipped: true, wantWritten: []string{"0.12.0"}},
		{name: "the recheck fails", stillLatest: func(context.Context) (bool, error) { return false, errGitHub }, wantErr: true, wantWritten: []string{"0.12.0"}},
		{name: "no recheck given", stillLatest: nil, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := newTestRegistry(t)
			repo := reg.repo("img")
			old := pushed(t, reg, repo)
			tagWith(t, reg, repo, old, "0.11.0", "latest")
			d := pushed(t, reg, repo)

			existing, err := ResolveTags(t.Context(), repo, []string{"0.12.0", "latest"}, reg.auth, reg.opts()...)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := PlanTags(tesk, repo, d, []string{"0.12.0", "latest"}, existing)
			if err != nil {
				t.Fatal(err)
			}
			asked := false
			var hook StillLatest
			if tt.stillLatest != nil {
				hook = func(ctx context.Context) (bool, error) {
					// By now the version is written: latest moves last.
					if got := reg.state(t, repo)["0.12.0"]; got != d {
						t.Errorf("0.12.0 is on %q when latest is rechecked", got)
					}
					asked = true
					return tt.stillLatest(ctx)
				}
			}
			report, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, hook, reg.opts()...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ApplyTags error = %v, want error %v", err, tt.wantErr)
			}
			if tt.stillLatest != nil && !asked {
				t.Error("stillLatest was not asked")
			}
			if errors.Is(err, errGitHub) != (tt.name == "the recheck fails") {
				t.Errorf("error %v does not wrap the recheck's", err)
			}
			if got := writtenTags(report); !reflect.DeepEqual(got, tt.wantWritten) {
				t.Errorf("written = %v, want %v", got, tt.wantWritten)
			}
			if tt.wantSkipped != (len(report.Skipped) == 1 && report.Skipped[0].Tag == "latest") {
				t.Errorf("skipped = %+v", report.Skipped)
			}
			wantLatest := old
			if len(tt.wantWritten) == 2 {
				wantLatest = d
			}
			if got := reg.state(t, repo)["latest"]; got != wantLatest {
				t.Errorf("latest = %s, want %s", got, wantLatest)
			}
		})
	}
}

func TestApplyTagsRefusesWhenAnotherPublisherTaggedTheVersion(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	old := pushed(t, reg, repo)
	tagWith(t, reg, repo, old, "dev")
	ours := pushed(t, reg, repo)
	theirs := pushed(t, reg, repo)

	existing, err := ResolveTags(t.Context(), repo, []string{"0.11.0", "dev"}, reg.auth, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanTags(tesk, repo, ours, []string{"0.11.0", "dev"}, existing)
	if err != nil {
		t.Fatal(err)
	}
	// Between our plan and our apply, another publisher releases 0.11.0.
	tagWith(t, reg, repo, theirs, "0.11.0")
	before := reg.state(t, repo)
	mark := reg.mark()

	report, err := ApplyTags(t.Context(), tesk, repo, ours, plan, reg.auth, always(true), append(reg.opts(), WithStillNewest(newest(true, "")))...)
	var ce *ConcurrentTagError
	if !errors.As(err, &ce) {
		t.Fatalf("ApplyTags error = %v, want a ConcurrentTagError", err)
	}
	if ce.Tag != "0.11.0" || ce.Planned != "" || ce.Found != theirs {
		t.Errorf("ConcurrentTagError = %+v", ce)
	}
	if len(report.Written) != 0 {
		t.Errorf("written = %v", report.Written)
	}
	if w := manifestPUTs(reg.writesSince(mark)); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}
	if after := reg.state(t, repo); !equalMaps(after, before) {
		t.Errorf("state = %v, want %v", after, before)
	}
}

func TestApplyTagsConvergesWhenAnotherRunWroteTheSame(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)
	plan, err := PlanTags(tesk, repo, d, []string{"0.11.0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tagWith(t, reg, repo, d, "0.11.0") // a parallel re-run got there first

	report, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, nil, reg.opts()...)
	if err != nil {
		t.Fatalf("ApplyTags: %v", err)
	}
	if len(report.Written) != 0 || len(report.Kept) != 1 {
		t.Errorf("report = %+v, want 0.11.0 kept", report)
	}
}

func TestApplyTagsNeedsThePushedDigest(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	pushed(t, reg, repo)
	plan, err := PlanTags(tesk, repo, digestA, []string{"dev"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mark := reg.mark()
	if _, err := ApplyTags(t.Context(), tesk, repo, digestA, plan, reg.auth, nil, reg.opts()...); err == nil {
		t.Error("tagged a digest the repository does not have")
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}
}

func TestApplyTagsFailingTagWriteReportsWhatWasWritten(t *testing.T) {
	reg := newTestRegistry(t)
	repo := reg.repo("img")
	d := pushed(t, reg, repo)
	plan, err := PlanTags(tesk, repo, d, []string{"0.11.0", "latest"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg.failFirst(100, func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.HasSuffix(r.URL.Path, "/manifests/latest")
	})
	report, err := ApplyTags(t.Context(), tesk, repo, d, plan, reg.auth, always(true), reg.opts()...)
	if err == nil {
		t.Fatal("ApplyTags succeeded against a failing registry")
	}
	assertNoSecret(t, err, reg.auth)
	if got := writtenTags(report); !reflect.DeepEqual(got, []string{"0.11.0"}) {
		t.Errorf("written = %v", got)
	}

	// The re-run keeps the version and finishes latest.
	reg.failFirst(0, nil)
	report = tagWith(t, reg, repo, d, "0.11.0", "latest")
	if got := writtenTags(report); !reflect.DeepEqual(got, []string{"latest"}) {
		t.Errorf("re-run wrote %v", got)
	}
	if want := map[string]string{"0.11.0": d, "latest": d}; !equalMaps(reg.state(t, repo), want) {
		t.Errorf("state = %v, want %v", reg.state(t, repo), want)
	}
}

// A plan that moves latest or dev is refused without the recheck it needs; one that only
// keeps them, or tags a version, needs none.
func TestRechecksFor(t *testing.T) {
	plan := func(actions ...TagAction) Tagging { return Tagging{Actions: actions} }
	latest := func(a Action) TagAction { return TagAction{Tag: tesk.Latest, Class: ClassMoving, Action: a} }
	dev := func(a Action) TagAction { return TagAction{Tag: tesk.BranchTag, Class: ClassMoving, Action: a} }
	version := TagAction{Tag: "1.2.3", Class: ClassVersion, Action: ActionCreate}
	tests := []struct {
		name        string
		plan        Tagging
		stillLatest StillLatest
		opts        []Option
		wantErr     string
	}{
		{name: "a version alone", plan: plan(version)},
		{name: "latest kept", plan: plan(version, latest(ActionKeep))},
		{name: "latest moved", plan: plan(version, latest(ActionMove)), stillLatest: always(true)},
		{name: "latest created without its recheck", plan: plan(latest(ActionCreate)), wantErr: "no stillLatest check"},
		{name: "dev created", plan: plan(dev(ActionCreate)), opts: []Option{WithStillNewest(newest(true, ""))}},
		{name: "dev created without its recheck", plan: plan(dev(ActionCreate)), opts: []Option{WithTransport(http.DefaultTransport)}, wantErr: "no recheck of the commit order on dev"},
		{name: "dev moved", plan: plan(dev(ActionMove)), opts: []Option{WithStillNewest(newest(true, ""))}},
		{name: "dev moved without its recheck", plan: plan(dev(ActionMove)), opts: []Option{WithTransport(http.DefaultTransport)}, wantErr: "no recheck of the commit order on dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rc, err := rechecksFor(tesk, tt.plan, tt.stillLatest, tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (rc.stillNewest != nil) != slices.ContainsFunc(tt.plan.Actions, func(a TagAction) bool { return a.Tag == tesk.BranchTag }) || (rc.stillLatest != nil) != (tt.stillLatest != nil) {
				t.Errorf("rechecks = %+v, want those given", rc)
			}
		})
	}
}

// skip asks only the recheck of the tag at hand, and leaves a tag unwritten exactly when
// its recheck says no.
func TestRechecksSkip(t *testing.T) {
	failed := errors.New("GitHub is down")
	asked := ""
	rc := rechecks{
		policy:      tesk,
		stillLatest: func(context.Context) (bool, error) { asked += "latest "; return false, nil },
		stillNewest: func(_ context.Context, from string) (bool, string, error) {
			asked += "dev "
			return from != "sha256:old", "dev has a newer commit", nil
		},
	}
	tests := []struct {
		a        TagAction
		skip     bool
		why      string
		wantAsks string
	}{
		{TagAction{Tag: "1.2.3", Action: ActionCreate}, false, "", ""},
		{TagAction{Tag: tesk.Latest, Action: ActionMove, From: "sha256:prev"}, true, "no longer the highest release: latest left on sha256:prev", "latest "},
		{TagAction{Tag: tesk.Latest, Action: ActionCreate}, true, "no longer the highest release: latest left absent", "latest "},
		{TagAction{Tag: tesk.BranchTag, Action: ActionCreate}, false, "", "dev "},
		{TagAction{Tag: tesk.BranchTag, Action: ActionMove, From: "sha256:old"}, true, "dev has a newer commit", "dev "},
		{TagAction{Tag: tesk.BranchTag, Action: ActionMove, From: "sha256:older"}, false, "", "dev "},
	}
	for _, tt := range tests {
		asked = ""
		skip, why, err := rc.skip(t.Context(), tt.a, tt.a.From)
		if err != nil || skip != tt.skip || why != tt.why || asked != tt.wantAsks {
			t.Errorf("skip(%s %s) = %v, %q, %v after asking %q; want %v, %q after asking %q", tt.a.Action, tt.a.Tag, skip, why, err, asked, tt.skip, tt.why, tt.wantAsks)
		}
	}
	rc.stillLatest = func(context.Context) (bool, error) { return false, failed }
	if _, _, err := rc.skip(t.Context(), TagAction{Tag: tesk.Latest, Action: ActionMove}, ""); !errors.Is(err, failed) || !strings.HasPrefix(err.Error(), "recheck latest: ") {
		t.Errorf("a failing recheck: %v", err)
	}
}
