package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/internal/wire"
)

const callToken = "ghp_callTestToken0SECRET0value000000"

// callWorld is a simulated GitHub holding cloudcoil/cloudcoil, which also answers
// anonymous reads, and the files a call is given: a token file and a cache folder.
type callWorld struct {
	sim       *githubsim.Server
	tokenFile string
	cacheDir  string
	head      string // main's head
}

func newCallWorld(t *testing.T) *callWorld {
	t.Helper()
	sim := githubsim.New(t, githubsim.WithAnonymousReads())
	sim.AddToken(callToken, githubsim.Token{PushAccess: true})
	repo := sim.AddRepo("cloudcoil", "cloudcoil")
	head := repo.CommitOnBranch("main", "init", map[string]string{"README.md": "hello\n"})
	w := &callWorld{sim: sim, tokenFile: filepath.Join(t.TempDir(), "token"), cacheDir: t.TempDir(), head: head}
	if err := os.WriteFile(w.tokenFile, []byte(callToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// readme is the arguments of FileAt for README.md on main.
const readme = `["cloudcoil", "cloudcoil", "README.md", "main"]`

// call runs `github call method` with stdin and the flags, and returns its exit code,
// its Answer (when stdout holds one) and stderr. The token never shows.
func (w *callWorld) call(t *testing.T, method, stdin string, flags ...string) (int, github.Answer, string) {
	t.Helper()
	args := append([]string{"call", "--api", w.sim.URL + "/"}, flags...)
	code, stdout, stderr := runWithInput(stdin, append(args, method)...)
	if strings.Contains(stdout+stderr, callToken) {
		t.Fatalf("the token is in the output:\n%s\n%s", stdout, stderr)
	}
	var answer github.Answer
	if stdout != "" {
		if err := json.Unmarshal([]byte(stdout), &answer); err != nil {
			t.Fatalf("stdout is not an Answer: %v\n%s", err, stdout)
		}
	}
	return code, answer, stderr
}

// readmeAt calls FileAt for README.md as the flags say and returns the content and the
// call's stats.
func (w *callWorld) readmeAt(t *testing.T, flags ...string) (string, github.Stats) {
	t.Helper()
	content, answer := w.readmeAnswer(t, flags...)
	return content, answer.Stats
}

// readmeAnswer calls FileAt for README.md as the flags say and returns the content and the
// whole answer.
func (w *callWorld) readmeAnswer(t *testing.T, flags ...string) (string, github.Answer) {
	t.Helper()
	code, answer, stderr := w.call(t, "FileAt", readme, flags...)
	if code != 0 || answer.Error != nil || len(answer.Results) != 2 {
		t.Fatalf("exit %d, answer %+v, stderr %s", code, answer, stderr)
	}
	var content []byte
	var found bool
	if err := json.Unmarshal(answer.Results[0], &content); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(answer.Results[1], &found); err != nil || !found {
		t.Fatalf("found %v, %v", found, err)
	}
	return string(content), answer
}

// cachePath is the cache file of callToken in the cache folder.
func (w *callWorld) cachePath(t *testing.T) string {
	t.Helper()
	seal, err := githubclient.NewCacheSeal(callToken)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(w.cacheDir, cacheFile(seal))
}

// cacheDirEntries are the names in the cache folder.
func (w *callWorld) cacheDirEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(w.cacheDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCallKeepsASealedETagCache: with a token and --cache-dir, the next call is answered
// by a 304 from the cache the last one left, kept in one file readable by its owner only.
// A stored cache whose answers were changed (as whoever can write the volume could do) is
// not replayed on GitHub's 304: every changed entry is dropped and fetched again, and the
// call answers what GitHub holds; the cache it saves is sealed again. A cache stored with another token is not used. A call without a token neither
// reads nor writes the cache.
func TestCallKeepsASealedETagCache(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	withCache := []string{"--token-file", w.tokenFile, "--cache-dir", w.cacheDir}

	cold, first := w.readmeAnswer(t, withCache...)
	if stats := first.Stats; cold != "hello\n" || stats.NotModified != 0 || stats.Requests == 0 || first.Notes != nil {
		t.Fatalf("cold call: %q, stats %+v, notes %q", cold, stats, first.Notes)
	}
	if names := w.cacheDirEntries(t); !slices.Equal(names, []string{filepath.Base(w.cachePath(t))}) {
		t.Fatalf("the cache folder holds %v, want the cache file alone (no temporary file left)", names)
	}
	info, err := os.Stat(w.cachePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("the cache file's mode is %v, want readable by its owner only", perm)
	}
	stored, err := os.ReadFile(w.cachePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(gunzipped(t, stored)), callToken) {
		t.Fatalf("the stored cache holds the token")
	}

	warm, warmAnswer := w.readmeAnswer(t, withCache...)
	if stats := warmAnswer.Stats; warm != cold || stats.NotModified == 0 || stats.NotModified != stats.Requests || warmAnswer.Notes != nil {
		t.Fatalf("warm call: %q, stats %+v, notes %q; want every request answered 304, nothing to note", warm, stats, warmAnswer.Notes)
	}

	// Change every stored answer, sealed as it is, by one bit.
	var doc map[string]any
	if err := json.Unmarshal(gunzipped(t, stored), &doc); err != nil {
		t.Fatal(err)
	}
	entries, _ := doc["entries"].([]any)
	if len(entries) == 0 {
		t.Fatalf("no entries in the stored cache: %v", doc)
	}
	for i, e := range entries {
		b, err := base64.StdEncoding.DecodeString(e.(string))
		if err != nil || len(b) == 0 {
			t.Fatalf("entry %d is not sealed bytes: %v", i, err)
		}
		b[len(b)/2] ^= 1
		entries[i] = b
	}
	tampered, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.cachePath(t), gzipped(t, tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	again, tamperedAnswer := w.readmeAnswer(t, withCache...)
	if again != cold || tamperedAnswer.Stats.NotModified != 0 {
		t.Fatalf("after tampering: %q with %d 304s, want %q fetched again", again, tamperedAnswer.Stats.NotModified, cold)
	}
	wantDropped := fmt.Sprintf("ETag cache: dropped %d stored answer(s) that fail their integrity check", len(entries))
	if len(tamperedAnswer.Notes) != 1 || !strings.HasPrefix(tamperedAnswer.Notes[0], wantDropped) {
		t.Errorf("after tampering, notes %q; want one starting %q", tamperedAnswer.Notes, wantDropped)
	}
	if resealed, stats := w.readmeAt(t, withCache...); resealed != cold || stats.NotModified == 0 {
		t.Fatalf("the re-sealed cache: %q with %d 304s", resealed, stats.NotModified)
	}

	// Another token keeps its own file: its first call starts cold, with nothing to note,
	// and leaves this token's file as it was. This token's file copied over the other's
	// (as whoever can write the volume could do) fails every stored entry's check there.
	const other = "ghp_callTestOtherToken0SECRET0000000"
	w.sim.AddToken(other, githubsim.Token{})
	otherFile := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(otherFile, []byte(other), 0o600); err != nil {
		t.Fatal(err)
	}
	mine, err := os.ReadFile(w.cachePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, a := w.readmeAnswer(t, "--token-file", otherFile, "--cache-dir", w.cacheDir); got != cold || a.Stats.NotModified != 0 || a.Notes != nil {
		t.Fatalf("another token's first call: %q with %d 304s, notes %q; want a full answer, nothing noted", got, a.Stats.NotModified, a.Notes)
	}
	if after, err := os.ReadFile(w.cachePath(t)); err != nil || !bytes.Equal(mine, after) {
		t.Errorf("another token's call changed this token's cache file (%v)", err)
	}
	otherSeal, err := githubclient.NewCacheSeal(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.cacheDir, cacheFile(otherSeal)), mine, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, a := w.readmeAnswer(t, "--token-file", otherFile, "--cache-dir", w.cacheDir); got != cold || a.Stats.NotModified != 0 {
		t.Fatalf("another token's call on a copied cache: %q with %d 304s, want a full answer", got, a.Stats.NotModified)
	} else if len(a.Notes) != 1 || !strings.Contains(a.Notes[0], "stored with another token") {
		t.Errorf("another token's call on a copied cache, notes %q; want the dropped answers noted", a.Notes)
	}

	// Without a token: no 304 from the stored cache, and the file untouched.
	before, err := os.ReadFile(w.cachePath(t))
	if err != nil {
		t.Fatal(err)
	}
	if got, stats := w.readmeAt(t, "--cache-dir", w.cacheDir); got != cold || stats.NotModified != 0 {
		t.Fatalf("anonymous call: %q with %d 304s", got, stats.NotModified)
	}
	if after, err := os.ReadFile(w.cachePath(t)); err != nil || !bytes.Equal(before, after) {
		t.Errorf("an anonymous call changed the stored cache (%v)", err)
	}
}

// TestCallNotesACacheItCannotUse: a cache file that is not an export, or a cache folder
// that cannot be read or written, costs full requests and is said in the answer's notes;
// the call still answers.
func TestCallNotesACacheItCannotUse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		cacheDir  func(t *testing.T, w *callWorld) string
		wantNotes []string
	}{
		{
			name: "not an export",
			cacheDir: func(t *testing.T, w *callWorld) string {
				if err := os.WriteFile(w.cachePath(t), []byte("not gzip"), 0o600); err != nil {
					t.Fatal(err)
				}
				return w.cacheDir
			},
			wantNotes: []string{"ETag cache not used, starting cold: github: import ETag cache: not a gzip-compressed export"},
		},
		{
			name: "a file, not a folder",
			cacheDir: func(t *testing.T, w *callWorld) string {
				file := filepath.Join(t.TempDir(), "file")
				if err := os.WriteFile(file, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				return file
			},
			wantNotes: []string{"ETag cache not read, starting cold: ", "ETag cache not saved, the next call starts cold: "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newCallWorld(t)
			got, a := w.readmeAnswer(t, "--token-file", w.tokenFile, "--cache-dir", tt.cacheDir(t, w))
			if got != "hello\n" {
				t.Fatalf("the call answered %q", got)
			}
			if len(a.Notes) != len(tt.wantNotes) {
				t.Fatalf("notes %q, want %d starting %q", a.Notes, len(tt.wantNotes), tt.wantNotes)
			}
			for i, want := range tt.wantNotes {
				if !strings.HasPrefix(a.Notes[i], want) {
					t.Errorf("note %d: %q, want it to start %q", i, a.Notes[i], want)
				}
			}
		})
	}
}

// TestCallWithoutATokenWritesNoCache: an anonymous call with --cache-dir answers, and
// leaves the folder empty: nothing could seal what it would store.
func TestCallWithoutATokenWritesNoCache(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	for range 2 {
		if got, stats := w.readmeAt(t, "--cache-dir", w.cacheDir); got != "hello\n" || stats.NotModified != 0 {
			t.Fatalf("anonymous call: %q, stats %+v", got, stats)
		}
	}
	if names := w.cacheDirEntries(t); len(names) != 0 {
		t.Errorf("an anonymous call wrote %v", names)
	}
}

// TestCallUsageErrors: a call the module got wrong exits 2 with the reason on stderr,
// prints no Answer and sends nothing.
func TestCallUsageErrors(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	for _, tt := range []struct {
		name, method, stdin, inStderr string
		flags                         []string
	}{
		{name: "an unknown method", method: "DeleteEverything", stdin: `[]`, inStderr: `"DeleteEverything" is not a method of github.Calls`},
		{name: "a method of API outside Calls", method: "WriteThenVerify", stdin: `[]`, inStderr: `"WriteThenVerify" is not a method of github.Calls`},
		{name: "too few arguments", method: "FileAt", stdin: `["cloudcoil", "cloudcoil"]`, inStderr: "FileAt takes 4 arguments after its context, got 2"},
		{name: "too many arguments", method: "BranchHead", stdin: `["cloudcoil", "cloudcoil", "main", "x"]`, inStderr: "BranchHead takes 3 arguments after its context, got 4"},
		{name: "stdin not JSON", method: "FileAt", stdin: `cloudcoil cloudcoil`, inStderr: "the arguments on stdin"},
		{name: "stdin not an array", method: "FileAt", stdin: `{"owner": "cloudcoil"}`, inStderr: "the arguments on stdin"},
		{name: "nothing on stdin", method: "FileAt", stdin: ``, inStderr: "the arguments on stdin"},
		{name: "an argument of the wrong type", method: "ReleasePage", stdin: `["cloudcoil", "cloudcoil", "100", 1]`, inStderr: "ReleasePage: argument 3"},
		{name: "a token with --via-loopback", method: "FileAt", stdin: readme, flags: []string{"--via-loopback", "--token-file", w.tokenFile}, inStderr: "drop --token-file"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			flags := append([]string{"--token-file", w.tokenFile, "--cache-dir", t.TempDir()}, tt.flags...)
			code, answer, stderr := w.call(t, tt.method, tt.stdin, flags...)
			if code != wire.ExitUsage || !strings.Contains(stderr, "github call: ") || !strings.Contains(stderr, tt.inStderr) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, wire.ExitUsage, tt.inStderr)
			}
			if answer.Error != nil || answer.Results != nil {
				t.Errorf("a usage error printed an Answer: %+v", answer)
			}
		})
	}
	t.Run("no method", func(t *testing.T) {
		t.Parallel()
		code, stdout, stderr := runWithInput(readme, "call", "--api", w.sim.URL+"/")
		if code != wire.ExitUsage || stdout != "" || !strings.Contains(stderr, "want one method of github.Calls") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
	})
	t.Cleanup(func() {
		if n := len(w.sim.Requests()); n != 0 {
			t.Errorf("usage errors sent %d requests", n)
		}
	})
}

// TestCallFailures: a call GitHub or the network failed exits 1 and still prints its
// Answer, the error as data: GitHub's answer, the sentinels it wraps, whether a write may
// have happened; and that data turns back into an error errors.Is tells apart.
func TestCallFailures(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, method, stdin string
		arrange             func(w *callWorld)
		status              int
		is                  error
		outcomeUnknown      bool
		inMessage           string
	}{
		{name: "a missing repository", method: "ReleasePage", stdin: `["cloudcoil", "gone", 100, 1]`,
			status: http.StatusNotFound, is: github.ErrNotFound, inMessage: "releases of cloudcoil/gone"},
		{name: "a branch that exists", method: "CreateBranch", stdin: `["cloudcoil", "cloudcoil", "main", "%HEAD%"]`,
			status: http.StatusUnprocessableEntity, is: github.ErrAlreadyExists, inMessage: "create branch main"},
		{name: "a refused write", method: "CreateBranch", stdin: `["cloudcoil", "cloudcoil", "feature", "%HEAD%"]`,
			arrange: func(w *callWorld) {
				w.sim.InjectFault(http.MethodPost, "/repos/*/*/git/refs", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusForbidden})
			},
			status: http.StatusForbidden, inMessage: "create branch feature"},
		{name: "a write whose answer is lost", method: "CreateBranch", stdin: `["cloudcoil", "cloudcoil", "feature", "%HEAD%"]`,
			arrange: func(w *callWorld) {
				w.sim.InjectFault(http.MethodPost, "/repos/*/*/git/refs", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusBadGateway, AfterEffect: true})
			},
			status: http.StatusBadGateway, outcomeUnknown: true, inMessage: "create branch feature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newCallWorld(t)
			if tt.arrange != nil {
				tt.arrange(w)
			}
			stdin := strings.ReplaceAll(tt.stdin, "%HEAD%", w.head)
			code, answer, stderr := w.call(t, tt.method, stdin, "--token-file", w.tokenFile, "--cache-dir", w.cacheDir)
			if code != wire.ExitFailure || !strings.Contains(stderr, "github call: ") {
				t.Fatalf("exit %d, stderr %q; want exit %d", code, stderr, wire.ExitFailure)
			}
			ce := answer.Error
			if ce == nil || answer.Results != nil {
				t.Fatalf("answer %+v, want the error and no results", answer)
			}
			if ce.API == nil || ce.API.StatusCode != tt.status || ce.OutcomeUnknown != tt.outcomeUnknown || !strings.Contains(ce.Message, tt.inMessage) {
				t.Errorf("error %+v (api %+v), want status %d, outcome unknown %v, message with %q", *ce, ce.API, tt.status, tt.outcomeUnknown, tt.inMessage)
			}
			if answer.Stats.Requests == 0 {
				t.Errorf("stats %+v: the request is not counted", answer.Stats)
			}
			err := ce.Err()
			var api *github.APIError
			if !errors.As(err, &api) || api.StatusCode != tt.status {
				t.Errorf("the crossed error %v carries no APIError of status %d", err, tt.status)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("the crossed error %v (is %v) is not %v", err, ce.Is, tt.is)
			}
			if tt.is == nil && len(ce.Is) != 0 {
				t.Errorf("is %v, want none", ce.Is)
			}
			if github.OutcomeUnknown(err) != tt.outcomeUnknown {
				t.Errorf("OutcomeUnknown(crossed) = %v, want %v", !tt.outcomeUnknown, tt.outcomeUnknown)
			}
		})
	}
}

func gunzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := out.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestTwoTokensKeepTheirOwnETagCaches: pull-request jobs (GITHUB_TOKEN) and release-plan,
// doctor and every check (CI_GITHUB_TOKEN) share one cache volume, and run one after the
// other in any order. Each token's calls keep their own sealed cache there: after each
// token's first, cold call, every call of either token is answered by 304s alone, however
// the two alternate; no file in the folder is named by, or holds, a token.
func TestTwoTokensKeepTheirOwnETagCaches(t *testing.T) {
	t.Parallel()
	w := newCallWorld(t)
	const other = "ghp_callTestCheckToken0SECRET0000000"
	w.sim.AddToken(other, githubsim.Token{})
	otherFile := filepath.Join(t.TempDir(), "other")
	if err := os.WriteFile(otherFile, []byte(other+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := []struct{ name, file string }{{"the pull request's token", w.tokenFile}, {"the checks' token", otherFile}}
	for round := 1; round <= 3; round++ {
		for _, tok := range tokens {
			got, a := w.readmeAnswer(t, "--token-file", tok.file, "--cache-dir", w.cacheDir)
			s := a.Stats
			switch {
			case got != "hello\n":
				t.Fatalf("round %d, %s: answered %q", round, tok.name, got)
			case round == 1 && s.NotModified != 0:
				t.Errorf("round %d, %s: %d 304s from a cache it never filled", round, tok.name, s.NotModified)
			case round > 1 && (s.Requests == 0 || s.NotModified != s.Requests):
				t.Errorf("round %d, %s: stats %+v, want every request answered 304 (the other token's call emptied this one's cache)", round, tok.name, s)
			}
			if round > 1 && a.Notes != nil {
				t.Errorf("round %d, %s: notes %q, want none", round, tok.name, a.Notes)
			}
		}
	}
	for _, name := range w.cacheDirEntries(t) {
		stored, err := os.ReadFile(filepath.Join(w.cacheDir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range []string{callToken, other} {
			if strings.Contains(name, tok) || strings.Contains(string(gunzipped(t, stored)), tok) {
				t.Errorf("the cache file %s is named by or holds a token", name)
			}
		}
	}
}

// TestCallRemovesCacheFilesNoCallWillRead: GITHUB_TOKEN is a new token for every job, so
// the shared volume gains a file per pull-request job; a call that saves its cache removes
// the files no call is likely to read again (another token's, unused for a week, or beyond
// the newest maxCacheFiles; the one file all tokens shared before; a temporary file a run
// left), and leaves its own and every other file alone.
func TestCallRemovesCacheFilesNoCallWillRead(t *testing.T) {
	t.Parallel()
	now := time.Now()
	name := func(i int) string { return fmt.Sprintf("etags-%032x.json.gz", i+1) }
	tests := []struct {
		name        string
		files       map[string]time.Duration // name → age
		wantRemoved []string
	}{
		{
			name: "old files",
			files: map[string]time.Duration{
				name(0): 8 * 24 * time.Hour, name(1): time.Hour, "etags.json.gz": time.Minute,
				".etags-123": 2 * 24 * time.Hour, ".etags-456": time.Minute, "README": 30 * 24 * time.Hour,
			},
			wantRemoved: []string{name(0), "etags.json.gz", ".etags-123"},
		},
		{
			name: "too many files",
			files: func() map[string]time.Duration {
				m := map[string]time.Duration{}
				for i := range maxCacheFiles + 2 {
					m[name(i)] = time.Duration(i+1) * time.Minute
				}
				return m
			}(),
			// The call's own file is the newest of the maxCacheFiles kept.
			wantRemoved: []string{name(maxCacheFiles - 1), name(maxCacheFiles), name(maxCacheFiles + 1)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newCallWorld(t)
			for n, age := range tt.files {
				p := filepath.Join(w.cacheDir, n)
				if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
					t.Fatal(err)
				}
			}
			if _, a := w.readmeAnswer(t, "--token-file", w.tokenFile, "--cache-dir", w.cacheDir); a.Notes != nil {
				t.Errorf("notes %q", a.Notes)
			}
			var want []string
			for n := range tt.files {
				if !slices.Contains(tt.wantRemoved, n) {
					want = append(want, n)
				}
			}
			want = append(want, filepath.Base(w.cachePath(t)))
			slices.Sort(want)
			if got := w.cacheDirEntries(t); !slices.Equal(got, want) {
				t.Errorf("the folder holds\n%q\nwant\n%q", got, want)
			}
		})
	}
}
