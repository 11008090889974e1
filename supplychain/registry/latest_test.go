package registry

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestPlanLatest(t *testing.T) {
	const a = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	const b = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	tests := []struct {
		name    string
		targets []LatestImage
		current map[string]string
		want    []LatestMove
		wantErr string
	}{
		{name: "first release: created in both", targets: []LatestImage{{Repo: "r/f", Digest: a}, {Repo: "r/t", Digest: b}},
			want: []LatestMove{{Repo: "r/f", Digest: a, Action: ActionCreate}, {Repo: "r/t", Digest: b, Action: ActionCreate}}},
		{name: "moved in one, kept in the other", targets: []LatestImage{{Repo: "r/f", Digest: a}, {Repo: "r/t", Digest: b}}, current: map[string]string{"r/f": b, "r/t": b},
			want: []LatestMove{{Repo: "r/f", Digest: a, Action: ActionMove, From: b}, {Repo: "r/t", Digest: b, Action: ActionKeep}}},
		{name: "no images", wantErr: "no images"},
		{name: "a repository twice", targets: []LatestImage{{Repo: "r/f", Digest: a}, {Repo: "r/f", Digest: b}}, wantErr: "named twice"},
		{name: "a bad digest", targets: []LatestImage{{Repo: "r/f", Digest: "sha256:x"}}, wantErr: "r/f"},
		{name: "latest on a bad digest", targets: []LatestImage{{Repo: "r/f", Digest: a}}, current: map[string]string{"r/f": "x"}, wantErr: "latest is on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PlanLatest(tt.targets, tt.current)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || got != nil {
					t.Fatalf("PlanLatest = %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("PlanLatest = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}

// twoImages pushes an old and a new image to two repositories, with 0.11.0 and latest on
// the old ones when released is set.
func twoImages(t *testing.T, reg *testRegistry, released bool) (targets []LatestImage, old map[string]string) {
	t.Helper()
	old = map[string]string{}
	for _, n := range []string{"filer", "taskmaster"} {
		repo := reg.repo(n)
		if released {
			old[repo] = pushed(t, reg, repo)
			tagWith(t, reg, repo, old[repo], "0.11.0", "latest")
		}
		targets = append(targets, LatestImage{Repo: repo, Digest: pushed(t, reg, repo)})
	}
	return targets, old
}

func TestMoveLatestMovesEveryImage(t *testing.T) {
	reg := newTestRegistry(t)
	targets, _ := twoImages(t, reg, true)
	if _, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, nil, reg.opts()...); err == nil {
		t.Fatal("no stillLatest: want an error")
	}
	asked := 0
	report, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, func(context.Context) (bool, error) { asked++; return true, nil }, reg.opts()...)
	if err != nil {
		t.Fatal(err)
	}
	if asked != 1 {
		t.Errorf("stillLatest asked %d times, want once for the whole release", asked)
	}
	for _, tg := range targets {
		if got := reg.state(t, tg.Repo)["latest"]; got != tg.Digest {
			t.Errorf("%s: latest on %s, want %s", tg.Repo, got, tg.Digest)
		}
	}
	if len(report.Written) != 2 || report.Skipped != "" {
		t.Errorf("report %+v", report)
	}
	// A re-run keeps both.
	mark := reg.mark()
	if _, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, always(true), reg.opts()...); err != nil {
		t.Fatal(err)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("re-run wrote %v", w)
	}
}

func TestMoveLatestSkipsEveryImageWhenAHigherReleaseAppeared(t *testing.T) {
	reg := newTestRegistry(t)
	targets, old := twoImages(t, reg, true)
	mark := reg.mark()
	report, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, always(false), reg.opts()...)
	if err != nil || report.Skipped == "" || len(report.Written) != 0 {
		t.Fatalf("report %+v, %v", report, err)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}
	for repo, d := range old {
		if got := reg.state(t, repo)["latest"]; got != d {
			t.Errorf("%s: latest on %s, want it left on %s", repo, got, d)
		}
	}
}

// A failure writing the second image's latest puts the first one's back: latest moves in
// both images or in neither.
func TestMoveLatestFailureOnTheSecondImageMovesNeither(t *testing.T) {
	for _, released := range []bool{true, false} {
		name := "latest existed"
		if !released {
			name = "first release: latest did not exist"
		}
		t.Run(name, func(t *testing.T) {
			reg := newTestRegistry(t)
			targets, old := twoImages(t, reg, released)
			second := strings.TrimPrefix(targets[1].Repo, reg.host)
			reg.failFirst(100, func(r *http.Request) bool {
				return r.Method == http.MethodPut && r.URL.Path == "/v2"+second+"/manifests/latest"
			})
			report, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, always(true), reg.opts()...)
			if err == nil || !strings.Contains(err.Error(), "no image moved") {
				t.Fatalf("err = %v", err)
			}
			assertNoSecret(t, err, reg.auth)
			if len(report.Written) != 0 || !reflect.DeepEqual(report.RolledBack, []string{targets[0].Repo}) {
				t.Errorf("report %+v", report)
			}
			for _, tg := range targets {
				got, exists := reg.state(t, tg.Repo)["latest"]
				if want, had := old[tg.Repo]; got != want || exists != had {
					t.Errorf("%s: latest on %q (exists %v), want it left on %q", tg.Repo, got, exists, want)
				}
			}
			// The re-run finishes the move.
			reg.failFirst(0, nil)
			if _, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, always(true), reg.opts()...); err != nil {
				t.Fatal(err)
			}
			for _, tg := range targets {
				if got := reg.state(t, tg.Repo)["latest"]; got != tg.Digest {
					t.Errorf("after the re-run %s: latest on %s, want %s", tg.Repo, got, tg.Digest)
				}
			}
		})
	}
}

func TestMoveLatestNeedsEveryManifestBeforeWriting(t *testing.T) {
	reg := newTestRegistry(t)
	targets, _ := twoImages(t, reg, true)
	targets[1].Digest = "sha256:" + strings.Repeat("0", 64)
	mark := reg.mark()
	_, err := MoveLatest(t.Context(), tesk.Latest, targets, reg.auth, always(true), reg.opts()...)
	if err == nil || !strings.Contains(err.Error(), "fetch the manifest") {
		t.Fatalf("err = %v", err)
	}
	if w := reg.writesSince(mark); len(w) != 0 {
		t.Errorf("wrote %v", w)
	}
}
