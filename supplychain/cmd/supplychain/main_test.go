package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"dagger/shipyard/supplychain/internal/testregistry"
	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/signing"
	"dagger/shipyard/supplychain/steps"
	"dagger/shipyard/supplychain/verify"
)

var keep = flag.String("keep", "", "write the trusted root, a signed image (OCI layout with its referrers) and the cosign commands to check them into this folder")

const (
	issuer      = "https://token.actions.githubusercontent.com"
	workflowRef = "elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0"
	identity    = "https://github.com/" + workflowRef
	identityRE  = `^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$`
	fulcioURL   = "https://fulcio.test.invalid"
	rekorURL    = "https://rekor.test.invalid"
)

func randomSecret(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 20)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return prefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

type world struct {
	t        *testing.T
	dir      string
	reg      *testregistry.Registry
	ss       *testsigstore.Sigstore
	user     string
	password string
	token    string
	secrets  []string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	w := &world{t: t, dir: t.TempDir(), ss: ss, user: "robot", password: randomSecret(t, "pw-")}
	w.reg = testregistry.New(t, testregistry.Options{ReferrersAPI: true, Username: w.user, Password: w.password})
	w.token = testsigstore.Token(map[string]any{
		"iss":              issuer,
		"sub":              "repo:elixir-cloud-aai/tesk-core:ref:refs/tags/v0.11.0",
		"job_workflow_ref": workflowRef,
		"nonce":            randomSecret(t, ""),
		"exp":              time.Now().Add(10 * time.Minute).Unix(),
	})
	w.secrets = []string{w.password, w.token}
	w.write("token", w.token+"\n")
	w.write("password", w.password+"\n")
	tr, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	w.write("trusted_root.json", string(tr))
	return w
}

func (w *world) write(name, content string) string {
	w.t.Helper()
	p := filepath.Join(w.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func (w *world) path(name string) string { return filepath.Join(w.dir, name) }

// plainHost is the test registry's host, which speaks plain HTTP on loopback.
func (w *world) plainHost() string {
	host, _, err := net.SplitHostPort(w.reg.Host)
	if err != nil {
		w.t.Fatal(err)
	}
	return host
}

func (w *world) auth() []remote.Option {
	opts, err := steps.Registry(w.user, w.password, w.plainHost())
	if err != nil {
		w.t.Fatal(err)
	}
	return opts
}

func (w *world) newSigner(f, r string, _ ...string) (*signing.Signer, error) {
	if f != fulcioURL || r != rekorURL {
		return nil, fmt.Errorf("unexpected URLs %s %s", f, r)
	}
	return &signing.Signer{CertificateProvider: w.ss, TransparencyLogs: []sign.Transparency{w.ss}}, nil
}

// run runs the command and checks that no secret appears in what it printed.
func (w *world) run(stdin string, args ...string) (int, string, string) {
	w.t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut, w.newSigner)
	for _, s := range w.secrets {
		noSecret(w.t, "stdout", out.String(), s)
		noSecret(w.t, "stderr", errOut.String(), s)
	}
	return code, out.String(), errOut.String()
}

// noSecret fails if text holds the secret or any 12-byte piece of it.
func noSecret(t *testing.T, where, text, secret string) {
	t.Helper()
	if i := leakedPiece(text, secret); i >= 0 {
		t.Errorf("%s holds secret bytes %d..%d", where, i, i+secretPiece)
	}
}

// secretPiece is the shortest run of a secret's bytes that counts as a leak.
const secretPiece = 12

// leakedPiece is the offset of the first secretPiece-byte run of secret found in text, or -1.
func leakedPiece(text, secret string) int {
	for i := 0; i+secretPiece <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+secretPiece]) {
			return i
		}
	}
	return -1
}

// urlSecrets is the secret material of a URL: its path and query. Its scheme, host and
// port are not secret, and another local server's address may share their bytes.
func urlSecrets(t *testing.T, raw string) []string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		t.Fatalf("token request URL %q: %v", raw, err)
	}
	return []string{u.RequestURI()}
}

func (w *world) publishArgs(cmd, image string) []string {
	args := []string{cmd, "--image", image,
		"--registry-username", w.user, "--registry-password-file", w.path("password"),
		"--oidc-token-file", w.path("token"), "--fulcio-url", fulcioURL, "--rekor-url", rekorURL,
		"--trusted-root", w.path("trusted_root.json"), "--plain-http", w.plainHost()}
	if cmd == "attest" {
		args = append(args,
			"--source-repository", "https://github.com/elixir-cloud-aai/tesk-core",
			"--source-ref", "refs/tags/v0.11.0",
			"--source-commit", strings.Repeat("e", 40),
			"--dockerfile", "containers/filer.Dockerfile",
			"--build-arg", "SETUPTOOLS_SCM_PRETEND_VERSION=0.11.0",
			"--base-image", "docker.io/library/python:3.12-alpine@sha256:"+strings.Repeat("a", 64),
			"--github-repository", "elixir-cloud-aai/tesk-core",
			"--github-workflow-ref", workflowRef,
			"--github-run-id", "42", "--github-run-attempt", "1",
			"--github-event-name", "push", "--github-runner-environment", "github-hosted")
	}
	return args
}

func (w *world) verifyArgs(image, idRE, iss string) []string {
	return []string{"verify", "--image", image,
		"--registry-username", w.user, "--registry-password-file", w.path("password"),
		"--trusted-root", w.path("trusted_root.json"), "--plain-http", w.plainHost(),
		"--certificate-identity-regexp", idRE, "--certificate-oidc-issuer", iss}
}

func TestCommandEndToEnd(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "elixircloud/tesk-core-filer", w.auth()...)
	unsigned, _ := w.reg.PushRandom(t, "elixircloud/tesk-core-filer", w.auth()...)

	outcomes := map[string]steps.Outcome{}
	for _, cmd := range []string{"attest", "sign"} {
		code, out, errOut := w.run("", w.publishArgs(cmd, d.String())...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
		}
		var o steps.Outcome
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("%s output %q: %v", cmd, out, err)
		}
		if !o.Created || o.Digest != d.DigestStr() || o.Identity != identity || o.Issuer != issuer || o.Referrer == "" {
			t.Errorf("%s outcome = %+v", cmd, o)
		}
		outcomes[cmd] = o
	}
	if outcomes["attest"].PredicateType != verify.SLSAPredicateType || outcomes["sign"].PredicateType != verify.CosignSignPredicateType {
		t.Errorf("predicate types: %+v", outcomes)
	}
	if strings.Contains(w.reg.Seen(), w.token[20:40]) {
		t.Error("the OIDC token reached the registry")
	}

	tests := []struct {
		name, image, idRE, iss string
		code                   int
	}{
		{"signed", d.String(), identityRE, issuer, 0},
		{"wrong identity", d.String(), `^https://github\.com/evil/.*$`, issuer, 1},
		{"unanchored identity", d.String(), `github\.com/elixir-cloud-aai/tesk-core/`, issuer, 2},
		{"wrong issuer", d.String(), identityRE, "https://accounts.google.com", 1},
		{"unsigned", unsigned.String(), identityRE, issuer, 1},
	}
	for _, tt := range tests {
		t.Run("verify "+tt.name, func(t *testing.T) {
			code, out, errOut := w.run("", w.verifyArgs(tt.image, tt.idRE, tt.iss)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d: %s", code, tt.code, errOut)
			}
			if tt.code != 0 {
				if want := map[int]string{1: "image not verified", 2: "not anchored"}[tt.code]; !strings.Contains(errOut, want) {
					t.Errorf("stderr = %q", errOut)
				}
				return
			}
			var res verify.Result
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatal(err)
			}
			if res.Digest != d.DigestStr() || len(res.Verified) != 2 {
				t.Fatalf("result = %+v", res)
			}
			for _, v := range res.Verified {
				if v.Identity != identity || v.Issuer != issuer || v.Bundle != nil {
					t.Errorf("verified = %+v, want no bundle without --with-bundles", v)
				}
			}
		})
	}

	// --with-bundles prints each verified bundle: the very bundles the registry holds. A
	// bundle's base64 JSON shares short runs with the token's claims (`":"https:` encodes
	// alike in both), which the certificate states in public anyway: what must not appear
	// is the token's own random claim (its nonce), and the password.
	all := w.secrets
	w.secrets = []string{w.password, tokenNonce(t, w.token)}
	code, out, errOut := w.run("", append(w.verifyArgs(d.String(), identityRE, issuer), "--with-bundles")...)
	w.secrets = all
	if code != 0 {
		t.Fatalf("verify --with-bundles: exit %d: %s", code, errOut)
	}
	var res verify.Result
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Verified {
		var b struct {
			MediaType string `json:"mediaType"`
		}
		if err := json.Unmarshal(v.Bundle, &b); err != nil || !strings.HasPrefix(b.MediaType, "application/vnd.dev.sigstore.bundle") {
			t.Errorf("%s: bundle %.80s (%v), want the Sigstore bundle", v.PredicateType, v.Bundle, err)
		}
	}

	// A re-run converges: same referrers, nothing signed.
	certs, entries := w.ss.Counts()
	for _, cmd := range []string{"attest", "sign"} {
		code, out, errOut := w.run("", w.publishArgs(cmd, d.String())...)
		if code != 0 {
			t.Fatalf("re-run %s: exit %d: %s", cmd, code, errOut)
		}
		var o steps.Outcome
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatal(err)
		}
		if o.Created || o.Referrer != outcomes[cmd].Referrer {
			t.Errorf("re-run %s = %+v", cmd, o)
		}
	}
	if c, e := w.ss.Counts(); c != certs || e != entries {
		t.Errorf("re-run signed again")
	}

	if *keep != "" {
		keepArtifacts(t, w, d)
	}
}

func TestTokenFaults(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "org/filer", w.auth()...)
	expired := testsigstore.Token(map[string]any{"iss": issuer, "sub": "x", "exp": time.Now().Add(-time.Minute).Unix(), "nonce": randomSecret(t, "")})
	garbage := randomSecret(t, "not-a-jwt-")
	badPayload := "eyJhbGciOiJub25lIn0." + randomSecret(t, "") + ".sig"
	w.secrets = append(w.secrets, expired, garbage, badPayload)
	tests := []struct {
		name, tokenFile, stdin, want string
	}{
		{"missing flag", "", "", "no token file"},
		{"missing file", w.path("nope"), "", "reading token file"},
		{"empty", w.write("empty", "\n"), "", "empty"},
		{"expired", w.write("expired", expired), "", "expired"},
		{"not a JWT", w.write("garbage", garbage), "", "not a JWT"},
		{"payload not JSON", w.write("bad", badPayload), "", "token payload"},
		{"expired on stdin", "-", expired, "expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, cmd := range []string{"attest", "sign"} {
				args := w.publishArgs(cmd, d.String())
				for i := range args {
					if args[i] == "--oidc-token-file" {
						args[i+1] = tt.tokenFile
					}
				}
				writes := w.reg.Writes()
				code, _, errOut := w.run(tt.stdin, args...)
				if code != 1 || !strings.Contains(errOut, tt.want) {
					t.Errorf("%s: exit %d, stderr %q; want 1 and %q", cmd, code, errOut, tt.want)
				}
				if n := w.reg.Writes() - writes; n != 0 {
					t.Errorf("%s: %d registry writes before failing", cmd, n)
				}
			}
		})
	}
	if c, e := w.ss.Counts(); c != 0 || e != 0 {
		t.Errorf("signing service called: %d certificates, %d entries", c, e)
	}
}

func TestTokenFromStdin(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "org/filer", w.auth()...)
	args := w.publishArgs("sign", d.String())
	for i := range args {
		if args[i] == "--oidc-token-file" {
			args[i+1] = "-"
		}
	}
	if code, _, errOut := w.run(w.token, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}

// TestTokenRequested: with the --oidc-token-request-* files, each step asks GitHub's token
// endpoint for its own token (audience sigstore, the bearer token as Authorization) right
// before it signs; the endpoint's URL and bearer token never show in the output.
func TestTokenRequested(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "org/filer", w.auth()...)
	bearer := "ghs_request_" + strings.Repeat("b", 24)
	var mu sync.Mutex
	var audiences []string
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "bearer "+bearer {
			http.Error(rw, "unauthorized", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		audiences = append(audiences, r.URL.Query().Get("audience"))
		mu.Unlock()
		fmt.Fprintf(rw, `{"count":1,"value":%q}`, w.token)
	}))
	defer srv.Close()
	requestURL := srv.URL + "/_apis/distributedtask/hubs/build/plans/1/jobs/2/idtoken?api-version=2.0"
	w.secrets = append(append(w.secrets, bearer), urlSecrets(t, requestURL)...)
	if err := os.WriteFile(w.path("request-url"), []byte(requestURL+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.path("request-token"), []byte(bearer+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	requested := func(cmd string) []string {
		var out []string
		args := w.publishArgs(cmd, d.String())
		for i := 0; i < len(args); i++ {
			if args[i] == "--oidc-token-file" {
				out = append(out, "--oidc-token-request-url-file", w.path("request-url"), "--oidc-token-request-token-file", w.path("request-token"))
				i++
				continue
			}
			out = append(out, args[i])
		}
		return out
	}
	for _, cmd := range []string{"attest", "sign"} {
		code, out, errOut := w.run("", requested(cmd)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
		}
		if !strings.Contains(out, `"identity": "https://github.com/`+workflowRef+`"`) {
			t.Errorf("%s: output %s lacks the token's identity", cmd, out)
		}
	}
	if len(audiences) != 2 || audiences[0] != "sigstore" || audiences[1] != "sigstore" {
		t.Errorf("token requests with audiences %q, want one per step with audience sigstore", audiences)
	}
	// The endpoint's host by another name, which --plain-http does not give: refused before
	// any request, as plain HTTP to any host --plain-http does not name.
	elsewhere := strings.Replace(requestURL, "127.0.0.1", "localhost", 1)
	w.secrets = append(w.secrets, urlSecrets(t, elsewhere)...)
	if err := os.WriteFile(w.path("request-url"), []byte(elsewhere+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := w.run("", requested("sign")...); code != 1 || !strings.Contains(errOut, "--plain-http does not name") || len(audiences) != 2 {
		t.Errorf("plain HTTP to a host --plain-http does not name: exit %d, %d requests, %s", code, len(audiences), errOut)
	}
	if code, _, errOut := w.run("", append(requested("sign"), "--oidc-token-file", w.path("token"))...); code != 2 || !strings.Contains(errOut, "not both") {
		t.Errorf("both token sources: exit %d, %s", code, errOut)
	}
	half := requested("sign")[:0:0]
	for _, a := range requested("sign") {
		if a != "--oidc-token-request-token-file" && a != w.path("request-token") {
			half = append(half, a)
		}
	}
	if code, _, errOut := w.run("", half...); code != 2 || !strings.Contains(errOut, "go together") {
		t.Errorf("the URL without the bearer token: exit %d, %s", code, errOut)
	}
}

// attest names the run's repository (GITHUB_REPOSITORY) as the source, whoever calls the
// command: a source repository that differs from it is refused before anything is signed
// or attached.
func TestAttestRefusesAnotherSourceRepository(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "elixircloud/tesk-core-filer", w.auth()...)
	args := w.publishArgs("attest", d.String())
	for i, a := range args {
		if a == "--source-repository" {
			args[i+1] = "https://github.com/attacker/tesk-core"
		}
	}
	code, _, errOut := w.run("", args...)
	if code != 1 || !strings.Contains(errOut, "source repository") || !strings.Contains(errOut, "elixir-cloud-aai/tesk-core") {
		t.Errorf("exit %d, stderr %q; want a refusal naming the run's repository", code, errOut)
	}
	refs, err := referrers.List(context.Background(), d, w.auth()...)
	if err != nil || len(refs) != 0 {
		t.Errorf("referrers after the refusal: %d (%v), want none", len(refs), err)
	}
}

func TestWrongRegistryPassword(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "org/filer", w.auth()...)
	wrong := randomSecret(t, "wrong-")
	w.secrets = append(w.secrets, wrong)
	w.write("password", wrong)
	for _, args := range [][]string{w.publishArgs("sign", d.String()), w.verifyArgs(d.String(), identityRE, issuer)} {
		code, _, errOut := w.run("", args...)
		if code != 1 || !strings.Contains(errOut, "UNAUTHORIZED") {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, errOut)
		}
	}
}

func TestUsage(t *testing.T) {
	w := newWorld(t)
	if err := os.WriteFile(w.path("report.json"), []byte(`{"SchemaVersion":2,"Results":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, 2, "usage:"},
		{"unknown command", []string{"publish"}, 2, "unknown command"},
		{"help", []string{"help"}, 0, ""},
		{"flag help", []string{"verify", "-h"}, 0, "-certificate-oidc-issuer"},
		{"sign without image", []string{"sign", "--oidc-token-file", w.path("token")}, 2, "--image is required"},
		{"verify without trusted root", []string{"verify", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--certificate-identity-regexp", "x", "--certificate-oidc-issuer", "y"}, 2, "--trusted-root"},
		{"verify without identity", []string{"verify", "--image", "r/x:1"}, 2, "identity"},
		{"verify with an unanchored identity", []string{"verify", "--image", "r/x:1", "--trusted-root", "t.json", "--certificate-identity-regexp", "release\\.yml", "--certificate-oidc-issuer", "y"}, 2, "not anchored"},
		{"bad build arg", []string{"attest", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--trusted-root", "t.json", "--build-arg", "NOEQUALS"}, 2, "KEY=VALUE"},
		{"bad base image", []string{"attest", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--trusted-root", "t.json", "--base-image", "alpine"}, 2, "NAME@sha256"},
		{"bad time", []string{"attest", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--trusted-root", "t.json", "--started-on", "yesterday"}, 2, "started-on"},
		{"sign without trusted root", []string{"sign", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--oidc-token-file", w.path("token")}, 2, "--trusted-root is required"},
		{"sbom with provenance flags", []string{"attest", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--trusted-root", "t.json", "--sbom", "bom.json", "--dockerfile", "x", "--source-commit", "y"}, 2, "--dockerfile, --source-commit do not apply"},
		{"sbom that is not CycloneDX", []string{"attest", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "--trusted-root", "t.json", "--sbom", w.path("report.json")}, 2, "not a CycloneDX JSON BOM"},
		{"stray argument", []string{"sign", "--image", "r/x@sha256:" + strings.Repeat("1", 64), "extra"}, 2, "unexpected arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := w.run("", tt.args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d (want %d), output %q, want %q", code, tt.code, out+errOut, tt.want)
			}
		})
	}
}

// keepArtifacts writes what a person needs to check the signed image with
// cosign: the trusted root, the image and its referrers as an OCI layout,
// the bundles, and the commands.
func keepArtifacts(t *testing.T, w *world, d name.Digest) {
	t.Helper()
	dir := *keep
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tr, err := os.ReadFile(w.path("trusted_root.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trusted_root.json"), tr, 0o644); err != nil {
		t.Fatal(err)
	}
	layoutDir := filepath.Join(dir, "image")
	if err := os.RemoveAll(layoutDir); err != nil {
		t.Fatal(err)
	}
	p, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		t.Fatal(err)
	}
	signed, err := remote.Image(d, w.auth()...)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.AppendImage(signed, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "signed"})); err != nil {
		t.Fatal(err)
	}
	refs, err := referrers.List(context.Background(), d, w.auth()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range refs {
		ri, err := remote.Image(d.Repository.Digest(r.Digest), w.auth()...)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.AppendImage(ri); err != nil {
			t.Fatal(err)
		}
		file := map[string]string{verify.SLSAPredicateType: "provenance.sigstore.json", verify.CosignSignPredicateType: "signature.sigstore.json"}[r.PredicateType]
		if err := os.WriteFile(filepath.Join(dir, file), r.Bundle, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	readme := keepReadme(d.DigestStr(), identity, issuer, identityRE, len(refs))
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte(readme), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept the signed image and its trusted root in %s", dir)
}

// keepReadme is README.txt of a -keep folder: the commands that check the kept image with
// cosign and this command. The test Sigstore embeds SCTs as Fulcio does, so the commands
// keep cosign's and this command's default of requiring one; the local registry speaks
// plain HTTP, which oras must be told.
func keepReadme(digest, identity, issuer, identityRE string, referrers int) string {
	return fmt.Sprintf(`Signed test image, made by TestCommandEndToEnd -keep.

digest:    %[1]s
identity:  %[2]s
issuer:    %[3]s
referrers: %[4]d (cosign signature and SLSA v1 provenance bundles)

The trust root is a test Sigstore, with its own certificate transparency log
(the certificates carry a signed certificate timestamp, as Fulcio's do). Copy
the layout, with its referrers, to a local registry (plain HTTP), then verify
with cosign v2.6:

  crane registry serve --address 127.0.0.1:5000 &
  until crane catalog --insecure 127.0.0.1:5000 > /dev/null 2>&1; do sleep 0.2; done
  oras cp -r --to-plain-http --from-oci-layout ./image:signed 127.0.0.1:5000/shipyard/demo:signed

  cosign verify --new-bundle-format --offline \
    --trusted-root trusted_root.json \
    --certificate-identity '%[2]s' \
    --certificate-oidc-issuer '%[3]s' \
    127.0.0.1:5000/shipyard/demo@%[1]s

  cosign verify-attestation --new-bundle-format --offline --type slsaprovenance1 \
    --trusted-root trusted_root.json \
    --certificate-identity '%[2]s' \
    --certificate-oidc-issuer '%[3]s' \
    127.0.0.1:5000/shipyard/demo@%[1]s

  supplychain verify --image 127.0.0.1:5000/shipyard/demo@%[1]s --plain-http 127.0.0.1 \
    --trusted-root trusted_root.json \
    --certificate-identity-regexp '%[5]s' \
    --certificate-oidc-issuer '%[3]s'
`, digest, identity, issuer, referrers, identityRE)
}

// TestPrintedCommandsNeedNoInsecureFlags checks the commands a person copies (the -keep
// README and this module's README): the local registry is plain HTTP, so every oras copy to
// it says so, and the test Sigstore's certificates carry SCTs, so nothing skips the check.
func TestPrintedCommandsNeedNoInsecureFlags(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"keep README.txt": keepReadme("sha256:"+strings.Repeat("a", 64), "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.0.0", issuer, identityRE, 2),
		"README.md":       string(doc),
	} {
		if problems := printedCommandProblems(text); len(problems) > 0 {
			t.Errorf("%s:\n%s", name, strings.Join(problems, "\n"))
		}
	}
}

// printedCommandProblems lists the lines of text that would fail against a plain-HTTP local
// registry or that turn off certificate transparency.
func printedCommandProblems(text string) []string {
	var out []string
	for i, line := range strings.Split(text, "\n") {
		switch {
		case strings.Contains(line, "oras cp") && strings.Contains(line, "127.0.0.1:") && !strings.Contains(line, "--to-plain-http"):
			out = append(out, fmt.Sprintf("line %d: oras cp to a plain-HTTP registry without --to-plain-http: %s", i+1, line))
		case strings.Contains(line, "--insecure-ignore-sct"), strings.Contains(line, "--min-scts 0"):
			out = append(out, fmt.Sprintf("line %d: certificate transparency turned off: %s", i+1, line))
		}
	}
	return out
}

// attest --sbom signs the CycloneDX SBOM, and verify --require https://cyclonedx.org/bom
// accepts the image only once it carries one.
func TestCommandSBOM(t *testing.T) {
	w := newWorld(t)
	d, _ := w.reg.PushRandom(t, "elixircloud/tesk-core-filer", w.auth()...)
	for _, cmd := range []string{"attest", "sign"} {
		if code, _, errOut := w.run("", w.publishArgs(cmd, d.String())...); code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, code, errOut)
		}
	}
	verifySBOM := append(w.verifyArgs(d.String(), identityRE, issuer), "--require", "https://cyclonedx.org/bom")
	if code, _, _ := w.run("", verifySBOM...); code != 1 {
		t.Fatalf("verify requiring an SBOM passed without one: exit %d", code)
	}
	bom := `{"bomFormat":"CycloneDX","specVersion":"1.6","version":1,"components":[]}`
	if err := os.WriteFile(w.path("bom.json"), []byte(bom), 0o600); err != nil {
		t.Fatal(err)
	}
	args := append(w.publishArgs("sign", d.String())[1:], "--sbom", w.path("bom.json"))
	code, out, errOut := w.run("", append([]string{"attest"}, args...)...)
	if code != 0 {
		t.Fatalf("attest --sbom: exit %d: %s", code, errOut)
	}
	var o steps.Outcome
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if !o.Created || o.PredicateType != "https://cyclonedx.org/bom" || o.Digest != d.DigestStr() || o.Identity != identity {
		t.Errorf("outcome %+v", o)
	}
	if code, out, errOut := w.run("", verifySBOM...); code != 0 || !strings.Contains(out, "https://cyclonedx.org/bom") {
		t.Errorf("verify requiring the SBOM: exit %d: %s%s", code, out, errOut)
	}
}

// TestSecretCheck: the check finds each kind of real secret material and nothing else; in
// particular a token endpoint on 127.0.0.1 shares its host and port prefix with the local
// registry, whose address is in every output.
func TestSecretCheck(t *testing.T) {
	bearer := "ghs_request_" + strings.Repeat("b", 24)
	token := testsigstore.Token(map[string]any{"iss": issuer, "nonce": randomSecret(t, "")})
	requestURL := "http://127.0.0.1:40567/_apis/distributedtask/hubs/build/plans/" + randomSecret(t, "") + "/idtoken?api-version=2.0"
	secrets := append([]string{bearer, token}, urlSecrets(t, requestURL)...)
	tests := []struct {
		name, text string
		leak       bool
	}{
		{"the registry's address", `{"image": "127.0.0.1:40123/org/filer@sha256:` + strings.Repeat("1", 64) + `"}`, false},
		{"the token endpoint's host alone", "asked http://127.0.0.1:40567/ for a token", false},
		{"the bearer token", "Authorization: bearer " + bearer, true},
		{"a piece of the bearer token", "using " + bearer[3:17], true},
		{"the identity token", "token " + token, true},
		{"the endpoint's URL", "GET " + requestURL, true},
		{"the endpoint's path", "GET " + requestURL[len("http://127.0.0.1:40567"):strings.Index(requestURL, "?")], true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found := false
			for _, s := range secrets {
				if leakedPiece(tt.text, s) >= 0 {
					found = true
				}
			}
			if found != tt.leak {
				t.Errorf("leak found = %v in %q, want %v", found, tt.text, tt.leak)
			}
		})
	}
}

// tokenNonce is the random nonce claim of a test token: the part of it no bundle can hold.
func tokenNonce(t *testing.T, token string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Nonce string `json:"nonce"`
	}
	if err != nil || json.Unmarshal(payload, &claims) != nil || len(claims.Nonce) < secretPiece {
		t.Fatalf("token without a nonce of %d bytes or more: %v", secretPiece, err)
	}
	return claims.Nonce
}
