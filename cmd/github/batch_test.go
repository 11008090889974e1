package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/wire"
)

// batch runs `github batch` with requests on stdin and the flags, and returns its exit
// code, its BatchAnswer (when stdout holds one) and stderr. The token never shows.
func (w *callWorld) batch(t *testing.T, stdin string, flags ...string) (int, github.BatchAnswer, string) {
	t.Helper()
	args := append([]string{"batch", "--api", w.sim.URL + "/"}, flags...)
	code, stdout, stderr := runWithInput(stdin, args...)
	if strings.Contains(stdout+stderr, callToken) {
		t.Fatalf("the token is in the output:\n%s\n%s", stdout, stderr)
	}
	var out github.BatchAnswer
	if stdout != "" {
		if err := json.Unmarshal([]byte(stdout), &out); err != nil {
			t.Fatalf("stdout is not a BatchAnswer: %v\n%s", err, stdout)
		}
	}
	return code, out, stderr
}

// A batch answers each call as `github call` answers it alone, in the order asked: results,
// a file that is not there, errors as data (and the sentinels they wrap); it exits 0 when a
// call failed, shares one client's stats and saves the ETag cache once for all calls.
func TestBatchAnswersEachCallAsACallAlone(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	requests := []struct{ method, args string }{
		{"FileAt", readme},
		{"FileAt", `["cloudcoil", "cloudcoil", "NOPE.md", "main"]`},
		{"BranchHead", `["cloudcoil", "cloudcoil", "main"]`},
		{"ReleasePage", `["cloudcoil", "gone", 100, 1]`},
		{"CreateBranch", `["cloudcoil", "cloudcoil", "main", "` + w.head + `"]`},
	}
	var stdin []string
	var alone []github.Answer
	for _, r := range requests {
		stdin = append(stdin, `{"method": "`+r.method+`", "args": `+r.args+`}`)
		_, a, _ := w.call(t, r.method, r.args, "--token-file", w.tokenFile)
		alone = append(alone, a)
	}
	before := len(w.sim.Requests())
	code, out, stderr := w.batch(t, "["+strings.Join(stdin, ",")+"]", "--token-file", w.tokenFile, "--cache-dir", w.cacheDir)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if len(out.Answers) != len(requests) {
		t.Fatalf("%d answers for %d requests", len(out.Answers), len(requests))
	}
	failed := 0
	for i, got := range out.Answers {
		want := alone[i]
		gotJSON, _ := json.Marshal(github.Answer{Results: got.Results, Error: got.Error})
		wantJSON, _ := json.Marshal(github.Answer{Results: want.Results, Error: want.Error})
		if string(gotJSON) != string(wantJSON) {
			t.Errorf("%s %s: batch answered %s, alone %s", requests[i].method, requests[i].args, gotJSON, wantJSON)
		}
		if got.Error != nil {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d calls failed, want the missing repository's and the existing branch's", failed)
	}
	if err := out.Answers[3].Error.Err(); !errors.Is(err, github.ErrNotFound) {
		t.Errorf("the missing repository's error %v is not ErrNotFound", err)
	}
	if err := out.Answers[4].Error.Err(); !errors.Is(err, github.ErrAlreadyExists) {
		t.Errorf("the existing branch's error %v is not ErrAlreadyExists", err)
	}
	if sent := int64(len(w.sim.Requests()) - before); out.Stats.Requests != sent || sent < int64(len(requests)) {
		t.Errorf("stats %+v, the server saw %d requests", out.Stats, sent)
	}
	if entries := w.cacheDirEntries(t); len(entries) != 1 || entries[0] != filepath.Base(w.cachePath(t)) {
		t.Errorf("the cache folder holds %v, want the one sealed cache", entries)
	}
}

// A wrong batch calls nothing: it exits 2 and says which request is wrong.
func TestBatchUsageErrors(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	for _, tt := range []struct{ name, stdin, inStderr string }{
		{"not JSON", `FileAt`, "the requests on stdin"},
		{"not an array", `{"method": "FileAt"}`, "the requests on stdin"},
		{"no request", `[]`, "the requests on stdin: none"},
		{"an unknown method second", `[{"method": "FileAt", "args": ` + readme + `}, {"method": "DeleteEverything", "args": []}]`, `request 2: "DeleteEverything" is not a method of github.Calls`},
		{"wrong arguments", `[{"method": "BranchHead", "args": ["cloudcoil"]}]`, "request 1: BranchHead takes 3 arguments after its context, got 1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := w.batch(t, tt.stdin, "--token-file", w.tokenFile, "--cache-dir", t.TempDir())
			if code != wire.ExitUsage || !strings.Contains(stderr, "github batch: ") || !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, wire.ExitUsage, tt.inStderr)
			}
			if out.Answers != nil {
				t.Errorf("a usage error printed answers: %+v", out)
			}
		})
	}
	t.Run("a method as an argument", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runWithInput(`[]`, "batch", "--api", w.sim.URL+"/", "FileAt")
		if code != wire.ExitUsage || stdout != "" || !strings.Contains(stderr, "batch takes its calls on stdin") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	t.Cleanup(func() {
		if n := len(w.sim.Requests()); n != 0 {
			t.Errorf("usage errors sent %d requests", n)
		}
	})
}
