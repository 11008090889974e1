package versions_test

import (
	"dagger/shipyard/internal/githubclient"

	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/models/versions"
	"dagger/shipyard/models/versions/versionstest"
)

// sealedRun is one model-versions --check run with the ETag cache kept in file.
func sealedRun(t *testing.T, w *versionstest.World, file string, tok versions.Token) versions.Report {
	t.Helper()
	setup := versions.Config{
		APIURL: w.GitHub.URL, Token: tok, Cache: versions.FileStore(file), PyPI: w.PyPI.Client(),
		ClientOptions: []githubclient.Option{githubclient.WithSleep(noSleep)},
	}
	report, err := versions.RunWithCache(context.Background(), setup, versions.Options{Repo: versionstest.Repository, Check: true, PyPIURL: w.PyPI.URL()})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, report.Text())
	}
	return report
}

// TestCachedBodiesAreSealed: a stored cache whose bodies were swapped (keys and ETags
// kept, as whoever can write the volume could do) is not replayed on GitHub's 304: every
// swapped entry is dropped and fetched again, and the run plans exactly what a cold run
// plans. A run without a token neither reads nor writes the store.
func TestCachedBodiesAreSealed(t *testing.T) {
	w := versionstest.New(t)
	file := filepath.Join(t.TempDir(), "etags")
	cold := sealedRun(t, w, file, versionstest.Token)
	stored, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	zr, err := gzip.NewReader(bytes.NewReader(stored))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.NewDecoder(zr).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	entries := doc["entries"].([]any)
	planted := []byte(`{"type":"file","encoding":"base64","content":"eyJwbGFudGVkIjogdHJ1ZX0K"}`)
	for _, e := range entries {
		e.(map[string]any)["body"] = planted
	}
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	if err := os.WriteFile(file, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	again := sealedRun(t, w, file, versionstest.Token)
	if again.Requests.NotModified != 0 {
		t.Errorf("%d answers replayed from the tampered cache", again.Requests.NotModified)
	}
	a, _ := json.Marshal(cold.Plan)
	b, _ := json.Marshal(again.Plan)
	if !bytes.Equal(a, b) {
		t.Errorf("plan after tampering\n%s\nwant the cold run's\n%s", b, a)
	}
	if notes := strings.Join(again.Notes, "\n"); !strings.Contains(notes, fmt.Sprintf("dropped %d stored answer(s)", len(entries))) {
		t.Errorf("notes: %s", notes)
	}
	warm := sealedRun(t, w, file, versionstest.Token)
	if warm.Requests.NotModified == 0 || len(warm.Notes) != 0 {
		t.Errorf("the re-sealed cache gave %d 304s, notes %q", warm.Requests.NotModified, warm.Notes)
	}

	// The simulator refuses anonymous reads, so this run fails at its first read; what
	// matters is that it left the store alone.
	before, _ := os.ReadFile(file)
	anonymous, _ := versions.RunWithCache(context.Background(), versions.Config{
		APIURL: w.GitHub.URL, Cache: versions.FileStore(file), PyPI: w.PyPI.Client(),
		ClientOptions: []githubclient.Option{githubclient.WithSleep(noSleep)},
	}, versions.Options{Repo: versionstest.Repository, Check: true, PyPIURL: w.PyPI.URL()})
	after, _ := os.ReadFile(file)
	if anonymous.Requests.NotModified != 0 || !bytes.Equal(before, after) || !strings.Contains(strings.Join(anonymous.Notes, "\n"), "not used without a token") {
		t.Errorf("an anonymous run used the store: %d 304s, changed %v, notes %q", anonymous.Requests.NotModified, !bytes.Equal(before, after), anonymous.Notes)
	}
}
