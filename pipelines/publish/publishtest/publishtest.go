// Package publishtest is the offline world the publishing tests run in: a real OCI registry
// (go-containerregistry's pkg/registry on 127.0.0.1, anonymous reads and authenticated
// writes, like a public Docker Hub repository), an offline Sigstore (the supplychain
// module's test Sigstore, served over Fulcio's and Rekor's HTTP APIs by its own process),
// and the rules that make the engine double run the real supplychain command for each
// `supplychain …` and `registry …` exec and write real OCI image tarballs for each
// Container.export (and each container an exec mounts as a tarball).
//
// The supplychain and registry commands and the test Sigstore are built once per test process from this
// repository's supplychain module; call Main from TestMain so the binaries are removed at
// the end.
package publishtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/githubexec"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	ggcrregistry "github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var (
	binOnce  sync.Once
	binDir   string
	binErr   error
	binMain  bool
	binMu    sync.Mutex
	binNames = struct{ supplychain, registry, sigstore string }{"supplychain", "registry", "testsigstore"}
)

// Main runs the tests of a package that uses this world and removes the binaries it built.
// Call it from TestMain: os.Exit(publishtest.Main(m)).
func Main(m *testing.M) int {
	// The GitHub command's runs (githubexec) need their binary too.
	return githubexec.Main(runFunc(func() int { return run(m) }))
}

// runFunc runs the tests as a *testing.M does.
type runFunc func() int

func (f runFunc) Run() int { return f() }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "shipyard-publishtest-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "publishtest: %v\n", err)
		return 1
	}
	binMu.Lock()
	binDir, binMain = dir, true
	binMu.Unlock()
	code := m.Run()
	_ = os.RemoveAll(dir)
	return code
}

// binaries builds the supplychain and registry commands and the test Sigstore once
// per process.
func binaries(t testing.TB) (supplychain, sigstore string) {
	t.Helper()
	binMu.Lock()
	ok := binMain
	binMu.Unlock()
	if !ok {
		t.Fatal("publishtest: call publishtest.Main from TestMain, so the binaries it builds are removed")
	}
	binOnce.Do(func() {
		root, err := corpus.FindRepoRoot()
		if err != nil {
			binErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir+string(filepath.Separator),
			"./cmd/supplychain", "./cmd/registry", "./internal/testsigstore/cmd/testsigstore")
		cmd.Dir = filepath.Join(root, "supplychain")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building the supplychain command: %v\n%s", err, out)
			return
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, binNames.supplychain), filepath.Join(binDir, binNames.sigstore)
}

// githubBinary is the module's GitHub command, as githubexec builds it.
func githubBinary(t testing.TB) string {
	t.Helper()
	return githubexec.Binary(t)
}

// registryBinary is the registry command binaries built.
func registryBinary(t testing.TB) string {
	t.Helper()
	binaries(t)
	return filepath.Join(binDir, binNames.registry)
}

// SupplychainSource is the supplychain module's folder, for publish.BuildTool in tests.
func SupplychainSource(t testing.TB) string {
	t.Helper()
	root, err := corpus.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "supplychain")
}

// RandomSecret returns a distinctive secret value, so a leak shows in a substring search.
func RandomSecret(t testing.TB, prefix string) string {
	t.Helper()
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// Token returns an OIDC identity token with the given claims, shaped like GitHub's (the test
// Sigstore reads it without checking a signature, as the command's own checks do).
func Token(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	// A signature as long and as random as a real one's, which no other text can share.
	sig := make([]byte, 64)
	_, _ = rand.Read(sig) // crypto/rand.Read never fails
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// Registry is a real OCI registry on 127.0.0.1: reads are anonymous (a public repository),
// writes need the login. It records every request and can fail chosen ones.
type Registry struct {
	Host               string
	Username, Password string

	mu     sync.Mutex
	seen   bytes.Buffer
	writes []string
	fault  *registryFault
}

type registryFault struct {
	match  func(*http.Request) bool
	status int
	left   int
}

// NewRegistry starts a registry (with the OCI referrers API) that stops with the test.
func NewRegistry(t testing.TB, username, password string) *Registry {
	t.Helper()
	r := &Registry{Username: username, Password: password}
	inner := ggcrregistry.New(ggcrregistry.WithReferrersSupport(true), ggcrregistry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		write := req.Method != http.MethodGet && req.Method != http.MethodHead
		r.mu.Lock()
		r.seen.WriteString(req.Method + " " + req.URL.String() + "\n")
		for k, vs := range req.Header {
			r.seen.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
		}
		r.seen.Write(body)
		r.seen.WriteString("\n")
		var fail *registryFault
		if r.fault != nil && r.fault.left > 0 && r.fault.match(req) {
			r.fault.left--
			fail = r.fault
		}
		r.mu.Unlock()

		user, pass, hasAuth := req.BasicAuth()
		if (hasAuth || write) && (user != r.Username || pass != r.Password) {
			w.Header().Set("WWW-Authenticate", `Basic realm="publishtest"`)
			http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
			return
		}
		if fail != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(fail.status)
			// DENIED, not UNKNOWN: go-containerregistry retries UNKNOWN with backoff.
			fmt.Fprint(w, `{"errors":[{"code":"DENIED","message":"injected registry failure: storage quota exceeded"}]}`)
			return
		}
		if write {
			r.mu.Lock()
			r.writes = append(r.writes, req.Method+" "+req.URL.Path)
			r.mu.Unlock()
		}
		inner.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.Host = strings.TrimPrefix(srv.URL, "http://")
	return r
}

// FailNext makes the next n requests that match answer status (and are not served).
func (r *Registry) FailNext(n, status int, match func(*http.Request) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fault = &registryFault{match: match, status: status, left: n}
}

// Seen is every request so far: line, headers, body.
func (r *Registry) Seen() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen.String()
}

// Writes lists the state-changing requests served so far ("METHOD path").
func (r *Registry) Writes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.writes...)
}

// Tags reads repo's tags and their digests with go-containerregistry directly, so the
// assertions do not depend on the code under test.
func (r *Registry) Tags(t testing.TB, repo string) map[string]string {
	t.Helper()
	rp, err := name.NewRepository(repo, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	tags, err := remote.List(rp)
	var terr *transport.Error
	if errors.As(err, &terr) && terr.StatusCode == http.StatusNotFound {
		return map[string]string{}
	}
	if err != nil {
		t.Fatalf("list %s: %v", repo, err)
	}
	out := make(map[string]string, len(tags))
	for _, tag := range tags {
		desc, err := remote.Head(rp.Tag(tag))
		if err != nil {
			t.Fatalf("head %s:%s: %v", repo, tag, err)
		}
		out[tag] = desc.Digest.String()
	}
	return out
}

// Referrers lists the referrers of repo@digest as "<artifactType> <predicate type>", read
// from each referrer's own manifest (the registry's index may not carry both).
func (r *Registry) Referrers(t testing.TB, repo, digest string) []string {
	t.Helper()
	d, err := name.NewDigest(repo+"@"+digest, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Referrers(d)
	if err != nil {
		t.Fatalf("referrers of %s: %v", d, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, desc := range m.Manifests {
		got, err := remote.Get(d.Context().Digest(desc.Digest.String()))
		if err != nil {
			t.Fatalf("referrer %s: %v", desc.Digest, err)
		}
		var man struct {
			ArtifactType string            `json:"artifactType"`
			Annotations  map[string]string `json:"annotations"`
			Subject      *v1.Descriptor    `json:"subject"`
		}
		if err := json.Unmarshal(got.Manifest, &man); err != nil {
			t.Fatal(err)
		}
		if man.Subject == nil || man.Subject.Digest.String() != digest {
			t.Fatalf("referrer %s has subject %v, want %s", desc.Digest, man.Subject, digest)
		}
		out = append(out, man.ArtifactType+" "+man.Annotations["dev.sigstore.bundle.predicateType"])
	}
	return out
}

// Index reads the image index at repo@digest, with go-containerregistry directly.
func (r *Registry) Index(t testing.TB, repo, digest string) *v1.IndexManifest {
	t.Helper()
	d, err := name.NewDigest(repo+"@"+digest, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(d)
	if err != nil {
		t.Fatalf("index %s: %v", d, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatalf("index %s: %v", d, err)
	}
	return m
}

// CopyReferrers attaches copies of the referrers of repo@from to repo@to, their subject
// rewritten: what an attacker who swapped an image would do with its signatures.
func (r *Registry) CopyReferrers(t testing.TB, repo, from, to string) {
	t.Helper()
	auth := remote.WithAuth(&authn.Basic{Username: r.Username, Password: r.Password})
	src, err := name.NewDigest(repo+"@"+from, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	target, err := remote.Get(src.Context().Digest(to), auth)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Referrers(src, auth)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, desc := range m.Manifests {
		got, err := remote.Get(src.Context().Digest(desc.Digest.String()), auth)
		if err != nil {
			t.Fatal(err)
		}
		var man map[string]any
		if err := json.Unmarshal(got.Manifest, &man); err != nil {
			t.Fatal(err)
		}
		man["subject"] = map[string]any{"mediaType": target.MediaType, "digest": target.Digest.String(), "size": target.Size}
		raw, err := json.Marshal(man)
		if err != nil {
			t.Fatal(err)
		}
		h, _, err := v1.SHA256(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Put(src.Context().Digest(h.String()), rawManifest{raw: raw, mt: got.MediaType}, auth); err != nil {
			t.Fatal(err)
		}
	}
}

type rawManifest struct {
	raw []byte
	mt  types.MediaType
}

func (m rawManifest) RawManifest() ([]byte, error)        { return m.raw, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return m.mt, nil }

// CopyImage writes the image at from (repo@digest) to toRepo by the same digest, with the
// login: what a job that pushed an image into another image's repository leaves.
func (r *Registry) CopyImage(t testing.TB, from, toRepo string) {
	t.Helper()
	auth := remote.WithAuth(&authn.Basic{Username: r.Username, Password: r.Password})
	src, err := name.NewDigest(from, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(src, auth)
	if err != nil {
		t.Fatalf("image %s: %v", from, err)
	}
	dst, err := name.NewDigest(toRepo+"@"+src.DigestStr(), name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(dst, img, auth); err != nil {
		t.Fatalf("copy %s to %s: %v", from, toRepo, err)
	}
}

// Push writes img to repo by digest with the login, as a release from elsewhere would.
func (r *Registry) Push(t testing.TB, repo string, img v1.Image) string {
	t.Helper()
	h, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	d, err := name.NewDigest(repo+"@"+h.String(), name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(d, img, remote.WithAuth(&authn.Basic{Username: r.Username, Password: r.Password})); err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// Tag points repo:tag at repo@digest with the login.
func (r *Registry) Tag(t testing.TB, repo, tag, digest string) {
	t.Helper()
	d, err := name.NewDigest(repo+"@"+digest, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	auth := remote.WithAuth(&authn.Basic{Username: r.Username, Password: r.Password})
	desc, err := remote.Get(d, auth)
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Tag(d.Context().Tag(tag), desc, auth); err != nil {
		t.Fatal(err)
	}
}

// Fault makes a Sigstore service answer with an HTTP error.
type Fault struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// Sigstore is the test Sigstore, running as its own process.
type Sigstore struct {
	URL         string
	TrustedRoot string // path of its trusted_root.json
}

// StartSigstore starts the test Sigstore; it stops when the test ends.
func StartSigstore(t testing.TB) *Sigstore {
	t.Helper()
	_, bin := binaries(t)
	cmd := exec.Command(bin, "--dir", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Closing its stdin stops it, also if this process dies first.
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("test Sigstore did not start: %v", err)
	}
	var s Sigstore
	if err := json.Unmarshal([]byte(line), &struct {
		URL         *string `json:"url"`
		TrustedRoot *string `json:"trustedRoot"`
	}{&s.URL, &s.TrustedRoot}); err != nil {
		t.Fatalf("test Sigstore said %q: %v", line, err)
	}
	return &s
}

// SetFaults makes Fulcio or Rekor fail (nil: works) until the next call.
func (s *Sigstore) SetFaults(t testing.TB, fulcio, rekor *Fault) {
	t.Helper()
	b, err := json.Marshal(map[string]*Fault{"fulcio": fulcio, "rekor": rekor})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(s.URL+"/test/faults", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("setting faults: status %d", resp.StatusCode)
	}
}

// Counts returns the certificates issued and log entries written so far.
func (s *Sigstore) Counts(t testing.TB) (certificates, entries int) {
	t.Helper()
	resp, err := http.Get(s.URL + "/test/counts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c struct{ Certificates, Entries int }
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c.Certificates, c.Entries
}

// runSupplychain runs the real command with args and returns what it printed.
func runSupplychain(ctx context.Context, bin string, args []string, home, stdin string) (stdout, stderr string, code int) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case errors.As(err, &ee):
		return out.String(), errOut.String(), ee.ExitCode()
	default:
		return out.String(), errOut.String() + "publishtest: " + err.Error(), 125
	}
}
