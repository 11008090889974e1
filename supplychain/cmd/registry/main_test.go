package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/supplychain/wire"

	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
)

const (
	user     = "shipyard-bot"
	password = "dckr_pat_7qzv3n1w9x8c2b5m"
)

// world is a registry on 127.0.0.1 that wants the login for every request, and a folder.
type world struct {
	t    *testing.T
	host string
	dir  string
	pass string // the password file
}

func newWorld(t *testing.T) *world {
	t.Helper()
	inner := ggcrregistry.New(ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != user || p != password {
			w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		inner.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	w := &world{t: t, host: strings.TrimPrefix(srv.URL, "http://"), dir: t.TempDir()}
	w.pass = filepath.Join(w.dir, "password")
	if err := os.WriteFile(w.pass, []byte(password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return w
}

// image writes a random image for platform (none: no platform in its config) as an OCI
// layout folder and returns the folder and the image's digest.
func (w *world) image(name, platform string) (string, string) {
	w.t.Helper()
	img, err := random.Image(512, 1)
	if err != nil {
		w.t.Fatal(err)
	}
	if platform != "" {
		p, err := v1.ParsePlatform(platform)
		if err != nil {
			w.t.Fatal(err)
		}
		cf, err := img.ConfigFile()
		if err != nil {
			w.t.Fatal(err)
		}
		cf = cf.DeepCopy()
		cf.OS, cf.Architecture = p.OS, p.Architecture
		if img, err = mutate.ConfigFile(img, cf); err != nil {
			w.t.Fatal(err)
		}
	}
	dir := filepath.Join(w.dir, name)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		w.t.Fatal(err)
	}
	if err := lp.AppendImage(img); err != nil {
		w.t.Fatal(err)
	}
	h, err := img.Digest()
	if err != nil {
		w.t.Fatal(err)
	}
	return dir, h.String()
}

// run runs the command with the login and plain HTTP to the test registry.
func (w *world) run(args ...string) (int, string, string) {
	w.t.Helper()
	args = append(args, "--registry-username", user, "--registry-password-file", w.pass, "--plain-http", "127.0.0.1")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	if strings.Contains(stdout.String()+stderr.String(), password) {
		w.t.Fatalf("the password leaked: %s %s", stdout.String(), stderr.String())
	}
	return code, stdout.String(), stderr.String()
}

func (w *world) ok(out any, args ...string) {
	w.t.Helper()
	code, stdout, stderr := w.run(args...)
	if code != 0 {
		w.t.Fatalf("registry %v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		w.t.Fatalf("registry %v printed %q: %v", args, stdout, err)
	}
}

// TestCommandPublishesByTheRules runs each command against a real registry as the module
// runs them: a push by digest, an index of platform images (the dry run giving the same
// digest), its platforms, tag plans and their application, latest, and the refusals: a
// teskPolicy is tesk-core's tag policy, as the module passes it with --tag-policy.
const teskPolicy = `{"latest": "latest", "branchTag": "dev", "branch": "dev", "commitPrefix": "sha-"}`

// version tag that would move exits 3, a usage error 2.
func TestCommandPublishesByTheRules(t *testing.T) {
	w := newWorld(t)
	repo := w.host + "/org/filer"

	single, singleDigest := w.image("single", "")
	var pushed wire.Pushed
	w.ok(&pushed, "push", "--repository", repo, "--image", single)
	if pushed.Digest != singleDigest {
		t.Fatalf("pushed %s, want %s", pushed.Digest, singleDigest)
	}
	var dryImage struct{ Digest string }
	w.ok(&dryImage, "push", "--dry-run", "--image", single)
	if dryImage.Digest != singleDigest {
		t.Fatalf("a dry run of one image gave %s, want %s", dryImage.Digest, singleDigest)
	}

	amd, amdDigest := w.image("amd64", "linux/amd64")
	arm, armDigest := w.image("arm64", "linux/arm64")
	index := []string{"--image", amd, "--platform", "linux/amd64", "--image", arm, "--platform", "linux/arm64"}
	var dry, idx struct {
		Digest    string
		Platforms []struct{ Platform, Digest string }
	}
	w.ok(&dry, append([]string{"push", "--dry-run"}, index...)...)
	w.ok(&idx, append([]string{"push", "--repository", repo}, index...)...)
	if idx.Digest != dry.Digest || len(idx.Platforms) != 2 || idx.Platforms[0].Digest != amdDigest || idx.Platforms[1].Digest != armDigest {
		t.Fatalf("index %+v, dry run %+v", idx, dry)
	}
	// An image built for one platform but listed under another is refused.
	if code, _, stderr := w.run("push", "--repository", repo, "--image", amd, "--platform", "linux/arm64"); code != wire.ExitFailure || !strings.Contains(stderr, `says it is for "linux/amd64"`) {
		t.Errorf("a mislabelled platform image: exit %d: %s", code, stderr)
	}

	var plats []wire.Resolved
	w.ok(&plats, "platforms", "--image", repo+"@"+idx.Digest)
	if len(plats) != 1 || len(plats[0].Platforms) != 2 || plats[0].Platforms[1].Platform != "linux/arm64" {
		t.Fatalf("platforms %+v", plats)
	}

	var plans []json.RawMessage
	w.ok(&plans, "plan-tags", "--tag-policy", teskPolicy, "--image", repo+"@"+idx.Digest, "--tag", "0.11.0")
	var reports []struct{ Written []struct{ Tag string } }
	w.ok(&reports, "apply-tags", "--tag-policy", teskPolicy, "--plans", "["+string(plans[0])+"]")
	if len(reports) != 1 || len(reports[0].Written) != 1 {
		t.Fatalf("apply-tags %+v", reports)
	}
	var tags map[string]string
	w.ok(&tags, "tags", "--repository", repo, "--tag", "0.11.0", "--tag", "0.12.0")
	if len(tags) != 1 || tags["0.11.0"] != idx.Digest {
		t.Fatalf("tags %v", tags)
	}
	var digests []wire.Resolved
	w.ok(&digests, "digest", "--image", repo+":0.11.0")
	if digests[0].Digest != idx.Digest {
		t.Fatalf("digest %+v", digests)
	}

	// The version never moves: another digest is refused with exit 3, naming both.
	code, _, stderr := w.run("plan-tags", "--tag-policy", teskPolicy, "--image", repo+"@"+singleDigest, "--tag", "0.11.0")
	if code != wire.ExitMoved || !strings.Contains(stderr, idx.Digest) || !strings.Contains(stderr, "release a higher version") {
		t.Errorf("moving 0.11.0: exit %d: %s", code, stderr)
	}

	// latest: a higher version in the registry keeps it where it is; otherwise it moves.
	var latest struct {
		Written []string
		Skipped string
	}
	w.ok(&latest, "move-latest", "--tag-policy", teskPolicy, "--image", repo+"@"+singleDigest, "--higher", "0.11.0")
	if latest.Skipped == "" || len(latest.Written) != 0 {
		t.Errorf("latest with 0.11.0 out: %+v", latest)
	}
	var moved struct {
		Written []string
		Skipped string
	}
	w.ok(&moved, "move-latest", "--tag-policy", teskPolicy, "--image", repo+"@"+idx.Digest, "--higher", "0.12.0")
	if moved.Skipped != "" || len(moved.Written) != 1 {
		t.Errorf("latest: %+v", moved)
	}
	// Another system's policy names its own latest tag: that tag is written, not latest.
	w.ok(&moved, "move-latest", "--tag-policy", `{"latest": "stable"}`, "--image", repo+"@"+singleDigest)
	w.ok(&tags, "tags", "--repository", repo, "--tag", "stable", "--tag", "latest")
	if tags["stable"] != singleDigest || tags["latest"] != idx.Digest {
		t.Errorf("after moving stable: %v", tags)
	}
	if code, _, stderr := w.run("move-latest", "--tag-policy", `{"branchTag": "edge", "branch": "main"}`, "--image", repo+"@"+singleDigest); code != wire.ExitFailure || !strings.Contains(stderr, "names no latest tag") {
		t.Errorf("latest under a policy without one: exit %d: %s", code, stderr)
	}

	for _, args := range [][]string{
		{"push"},
		{"push", "--image", single},
		{"plan-tags", "--tag-policy", teskPolicy, "--image", repo, "--tag", "dev"},
		{"plan-tags", "--image", repo + "@" + singleDigest, "--tag", "dev"},
		{"plan-tags", "--tag-policy", `{"branchTag": "dev"}`, "--image", repo + "@" + singleDigest, "--tag", "dev"},
		{"apply-tags", "--tag-policy", teskPolicy, "--plans", "{"},
		{"apply-tags", "--plans", "[" + string(plans[0]) + "]"},
		{"move-latest", "--image", repo + "@" + singleDigest},
		{"tags", "--repository", repo, "extra"},
		{"nonsense"},
	} {
		if code, _, stderr := w.run(args...); code != wire.ExitUsage {
			t.Errorf("%v: exit %d, want %d: %s", args, code, wire.ExitUsage, stderr)
		}
	}
	var stdout, errOut bytes.Buffer
	if code := run(context.Background(), []string{"digest", "--image", repo + ":0.11.0", "--plain-http", "127.0.0.1:5000"}, &stdout, &errOut); code != wire.ExitUsage {
		t.Errorf("--plain-http with a port: exit %d: %s", code, errOut.String())
	}
}

// Without --plain-http, or with another host, the command never speaks plain HTTP, so the
// login never crosses a network in clear text.
func TestPlainHTTPOnlyWhereTheCallerSays(t *testing.T) {
	w := newWorld(t)
	for _, host := range []string{"", "10.87.0.1"} {
		args := []string{"digest", "--image", w.host + "/org/filer:latest", "--registry-username", user, "--registry-password-file", w.pass}
		if host != "" {
			args = append(args, "--plain-http", host)
		}
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), args, &stdout, &stderr); code != wire.ExitFailure || strings.Contains(stderr.String(), password) {
			t.Errorf("--plain-http %q: exit %d: %s", host, code, stderr.String())
		}
	}
}
