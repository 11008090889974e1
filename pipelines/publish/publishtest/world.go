package publishtest

import (
	"archive/tar"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
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
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"dagger/shipyard/internal/testkit/engine"
)

// The identity the tests sign as: GitHub's OIDC token for tesk-core's CI workflow on dev.
const (
	Issuer         = "https://token.actions.githubusercontent.com"
	WorkflowRef    = "elixir-cloud-aai/tesk-core/.github/workflows/ci.yml@refs/heads/dev"
	Identity       = "https://github.com/" + WorkflowRef
	IdentityRegexp = `^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/ci\.yml@refs/heads/dev$`
)

// Secret names the graph's secrets carry in tests; the exec hook maps them to values.
const (
	RegistryPasswordSecret = "registry-password"
	OIDCTokenSecret        = "oidc-token"
	ExpiredTokenSecret     = "oidc-token-expired"
	// TokenRequestURLSecret and TokenRequestTokenSecret are GitHub Actions'
	// ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN (see TokenEndpoint).
	TokenRequestURLSecret   = "actions-id-token-request-url"
	TokenRequestTokenSecret = "actions-id-token-request-token"
)

// World is a registry, a Sigstore, the secrets and the images of one test.
type World struct {
	Registry *Registry
	Sigstore *Sigstore
	// Username and Password log in to the registry; Token is a valid OIDC token and
	// ExpiredToken one that expired.
	Username, Password, Token, ExpiredToken string
	// Secrets maps secret names (as the graph names them) to values.
	Secrets map[string]string

	bin, registryBin, githubBin string
	engine                      *engine.Engine

	// claims are the identity claims of the tokens this world issues.
	claims func(exp time.Time) map[string]any

	mu         sync.Mutex
	issued     []string
	files      []string
	served     map[string]string
	images     map[string]v1.Image
	violations []string
	runs       [][]string
	caches     map[string]string // cache volume key → its folder on this machine
	cacheRoot  string
}

// NewWorld starts a registry and a Sigstore and makes fresh secrets.
func NewWorld(t testing.TB) *World {
	t.Helper()
	bin, _ := binaries(t)
	w := &World{Username: "shipyard-bot", Password: RandomSecret(t, "dckr_pat_"), bin: bin, registryBin: registryBinary(t), githubBin: githubBinary(t), images: map[string]v1.Image{}}
	w.Registry = NewRegistry(t, w.Username, w.Password)
	w.Sigstore = StartSigstore(t)
	claims := func(exp time.Time) map[string]any {
		return map[string]any{
			"iss": Issuer, "sub": "repo:elixir-cloud-aai/tesk-core:ref:refs/heads/dev",
			"job_workflow_ref": WorkflowRef, "aud": "sigstore",
			"jti": RandomSecret(t, ""), "exp": exp.Unix(),
		}
	}
	w.claims = claims
	w.Token = Token(claims(time.Now().Add(30 * time.Minute)))
	w.ExpiredToken = Token(claims(time.Now().Add(-time.Minute)))
	w.Secrets = map[string]string{
		RegistryPasswordSecret: w.Password,
		OIDCTokenSecret:        w.Token,
		ExpiredTokenSecret:     w.ExpiredToken,
	}
	w.AllowFile(w.Sigstore.TrustedRoot)
	return w
}

// SecretValues are the values no output, error or recorded graph may contain.
func (w *World) SecretValues() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := append(append([]string{w.Password}, TokenSecrets(w.Token)...), TokenSecrets(w.ExpiredToken)...)
	if v := w.Secrets[TokenRequestTokenSecret]; v != "" {
		out = append(out, v)
	}
	if v := w.Secrets[TokenRequestURLSecret]; v != "" {
		out = append(out, URLSecret(v))
	}
	for _, token := range w.issued {
		out = append(out, TokenSecrets(token)...)
	}
	return out
}

// TokenSecrets are the secret material of a token of this world: its signature and its
// random jti claim. Its other claims are not secret: Fulcio writes them into every
// certificate, so every bundle a flow passes on carries them, and their base64 shares
// short runs with the token's (`":"https:`). A token without its signature is no
// credential, and a leaked token leaks both.
func TokenSecrets(token string) []string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return []string{token}
	}
	out := []string{parts[2]}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		JTI string `json:"jti"`
	}
	if err == nil && json.Unmarshal(payload, &claims) == nil && claims.JTI != "" {
		out = append(out, claims.JTI)
	}
	return out
}

// URLSecret is the secret material of a URL: its path and query. Its scheme, host and port
// are not secret, and the local registry's address (in every output) may share their bytes.
func URLSecret(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return raw
	}
	return u.RequestURI()
}

// TokenEndpoint serves GitHub Actions' identity token endpoint: with the bearer token in
// the Authorization header, GET <url>&audience=sigstore answers {"value": <JWT>}, a fresh
// token of this world's identity that expires lifetime after it is issued, as GitHub's
// expire about five minutes after. The URL and bearer token become the secrets
// TokenRequestURLSecret and TokenRequestTokenSecret; Requests counts the tokens issued.
func (w *World) TokenEndpoint(t testing.TB, lifetime time.Duration) *TokenEndpoint {
	t.Helper()
	te := &TokenEndpoint{Bearer: RandomSecret(t, "ghs_")}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "bearer "+te.Bearer || r.URL.Query().Get("audience") != "sigstore" {
			http.Error(rw, "bad token request", http.StatusUnauthorized)
			return
		}
		tok := Token(w.claims(time.Now().Add(lifetime)))
		w.mu.Lock()
		w.issued = append(w.issued, tok)
		te.requests++
		w.mu.Unlock()
		rw.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(rw, `{"count":%d,"value":%q}`, len(tok), tok)
	}))
	t.Cleanup(srv.Close)
	te.URL = srv.URL + "/_apis/distributedtask/hubs/build/plans/" + RandomSecret(t, "") + "/idtoken?api-version=2.0"
	te.w = w
	w.mu.Lock()
	w.Secrets[TokenRequestURLSecret] = te.URL
	w.Secrets[TokenRequestTokenSecret] = te.Bearer
	w.mu.Unlock()
	return te
}

// TokenEndpoint is the endpoint TokenEndpoint serves.
type TokenEndpoint struct {
	URL, Bearer string
	w           *World
	requests    int
}

// Fetch requests a token as a workflow step with curl would, for tests of what happens
// when a token is fetched long before it is used.
func (te *TokenEndpoint) Fetch(t testing.TB) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, te.URL+"&audience=sigstore", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "bearer "+te.Bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Value string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Value == "" {
		t.Fatalf("token endpoint: %v", err)
	}
	return out.Value
}

// SetSecret makes name a secret of the test with value (the graph names it, the exec hook
// mounts its value).
func (w *World) SetSecret(name, value string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.Secrets[name] = value
}

// Requests is the number of tokens issued so far.
func (te *TokenEndpoint) Requests() int {
	te.w.mu.Lock()
	defer te.w.mu.Unlock()
	return te.requests
}

// AllowFile lets the graph mount this host file into a supplychain exec (e.g. the trusted
// root, read with Host().File).
func (w *World) AllowFile(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.files = append(w.files, path)
}

// SBOMExec is the Trivy command that writes an image's CycloneDX SBOM, as a strict engine
// expects it.
const SBOMExec = "trivy image --cache-backend memory --format cyclonedx --output /out/"

// ServeSBOM makes Trivy's SBOM exec of image name succeed in e with contents as its output:
// the engine serves the file to a reader (an engine.FileRule), and a supplychain exec that
// mounts it reads the same contents. A test that builds its engine with ExpectExecs can
// call it per image.
func (w *World) ServeSBOM(e *engine.Engine, name, contents string) {
	path := "/out/" + name + ".cdx.json"
	e.ExpectExecs(SBOMExec + name + ".cdx.json")
	e.OnFile(engine.FileRule{Path: path, ChainContains: SBOMExec, Contents: contents})
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.served == nil {
		w.served = map[string]string{}
	}
	w.served[path] = contents
}

// SBOM is a CycloneDX JSON SBOM as Trivy writes one for image name.
func SBOM(name string) string {
	return `{"$schema":"http://cyclonedx.org/schema/bom-1.6.schema.json","bomFormat":"CycloneDX","specVersion":"1.6",` +
		`"serialNumber":"urn:uuid:3e671687-395b-41f5-a30f-a58921a69b79","version":1,` +
		`"metadata":{"component":{"type":"container","name":"` + name + `"}},` +
		`"components":[{"type":"library","name":"pip","version":"24.0","purl":"pkg:pypi/pip@24.0"}]}`
}

// Image is the image the engine "builds" for containers/<name>.Dockerfile.
func (w *World) Image(t testing.TB, name string) v1.Image {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	img, ok := w.images[name]
	if !ok {
		var err error
		if img, err = random.Image(1024, 2); err != nil {
			t.Fatal(err)
		}
		w.images[name] = img
	}
	return img
}

// PlatformImage is the image the engine "builds" for containers/<name>.Dockerfile on
// platform (os/arch): real random layers, with the platform in its config as buildkit
// writes it.
func (w *World) PlatformImage(t testing.TB, name, platform string) v1.Image {
	t.Helper()
	key := name + " (" + platform + ")"
	w.mu.Lock()
	img, ok := w.images[key]
	w.mu.Unlock()
	if ok {
		return img
	}
	p, err := v1.ParsePlatform(platform)
	if err != nil {
		t.Fatal(err)
	}
	base := w.Image(t, key)
	cf, err := base.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	if img, err = mutate.ConfigFile(base, cf); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.images[key] = img
	return img
}

// InstallPlatforms programs e, after Install, so that each image's build for each
// platform exports as PlatformImage(name, platform).
func (w *World) InstallPlatforms(t testing.TB, e *engine.Engine, platforms []string, names ...string) {
	t.Helper()
	for _, n := range names {
		for _, p := range platforms {
			e.OnExport(engine.ExportRule{Kind: "Container", ChainContains: PlatformBuild(n, p), Write: func(path string) error {
				return writeLayoutTar(w.PlatformImage(t, n, p), path)
			}})
			// Each platform image's SBOM is written from its own digest.
			target := n + "-" + strings.ReplaceAll(p, "/", "-")
			w.ServeSBOM(e, target, SBOM(target))
		}
	}
}

// WriteImage writes img as the OCI layout tar an export writes, for export rules of a
// test's own.
func (w *World) WriteImage(img v1.Image, path string) error { return writeLayoutTar(img, path) }

// PlatformBuild is how the engine double renders the build of containers/<name>.Dockerfile
// for platform in a chain.
func PlatformBuild(name, platform string) string {
	return `dockerfile:"containers/` + name + `.Dockerfile",platform:"` + platform + `"`
}

// IndexDigest is the digest of the index of name's platform images (PlatformImage), as a
// multi-platform push writes it for platforms in that order: what the registry command
// computes for them (push --dry-run).
func (w *World) IndexDigest(t testing.TB, name string, platforms []string) string {
	t.Helper()
	dir := t.TempDir()
	args := []string{"push", "--dry-run"}
	for i, p := range platforms {
		path := filepath.Join(dir, fmt.Sprintf("%d.oci.tar", i))
		if err := writeLayoutTar(w.PlatformImage(t, name, p), path); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--image", path, "--platform", p)
	}
	stdout, stderr, code := runSupplychain(context.Background(), w.registryBin, args, dir, "")
	var out struct{ Digest string }
	if err := json.Unmarshal([]byte(stdout), &out); code != 0 || err != nil || out.Digest == "" {
		t.Fatalf("registry %v: exit %d, %v: %s", args, code, err, stderr)
	}
	return out.Digest
}

// Digest is the digest of Image(name).
func (w *World) Digest(t testing.TB, name string) string {
	t.Helper()
	h, err := w.Image(t, name).Digest()
	if err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// Rebuild makes the next build of name (for every platform) another image, as a build that
// is not reproducible gives on a fresh engine.
func (w *World) Rebuild(name string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.images, name)
	for key := range w.images {
		if strings.HasPrefix(key, name+" (") { // its platform images
			delete(w.images, key)
		}
	}
}

// Runs lists the argument lists of the supplychain and registry commands run so far.
func (w *World) Runs() [][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([][]string(nil), w.runs...)
}

// Install programs e: each containers/<name>.Dockerfile image exports as an OCI layout tar
// of Image(name) (and so reads, mounted with asTarball), Trivy's SBOM exec of each writes
// SBOM(name) (see ServeSBOM), and each `supplychain …`, `registry …` and `github …` exec
// runs the real command.
func (w *World) Install(t testing.TB, e *engine.Engine, names ...string) {
	t.Helper()
	w.mu.Lock()
	w.engine = e
	if w.cacheRoot == "" {
		w.cacheRoot, w.caches = t.TempDir(), map[string]string{}
	}
	w.mu.Unlock()
	for _, n := range names {
		e.OnExport(engine.ExportRule{Kind: "Container", ChainContains: "containers/" + n + ".Dockerfile", Write: func(path string) error {
			return writeLayoutTar(w.Image(t, n), path)
		}})
		w.ServeSBOM(e, n, SBOM(n))
	}
	e.OnExec(engine.ExecRule{
		Match: func(x engine.Exec) bool {
			return len(x.Args) > 0 && (x.Args[0] == "supplychain" || x.Args[0] == "registry" || x.Args[0] == "github")
		},
		Run: w.run,
	})
	t.Cleanup(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, v := range w.violations {
			t.Errorf("supplychain exec: %s", v)
		}
	})
}

func (w *World) violate(format string, args ...any) (string, string, int) {
	msg := fmt.Sprintf(format, args...)
	w.mu.Lock()
	w.violations = append(w.violations, msg)
	w.mu.Unlock()
	return "", "publishtest: " + msg, 125
}

// A violation is an exec that breaks a rule of the test: run refuses it and the test fails.
type violation struct{ msg string }

func (v *violation) Error() string { return v.msg }

func violationf(format string, args ...any) error {
	return &violation{msg: fmt.Sprintf(format, args...)}
}

// An exitError fails an exec as the command would, with its exit code.
type exitError struct {
	msg  string
	code int
}

func (e *exitError) Error() string { return e.msg }

// refuse answers an exec that cannot run: a violation fails the test too, an exitError
// exits with its code, and any other error is the harness's own (exit 125).
func (w *World) refuse(err error) (string, string, int) {
	var v *violation
	if errors.As(err, &v) {
		return w.violate("%s", v.msg)
	}
	var x *exitError
	if errors.As(err, &x) {
		return "", x.msg, x.code
	}
	return "", err.Error(), 125
}

// run runs the real command for an exec: each secret mount becomes a temporary file holding
// the secret's value, each allowed host file mount its host path, each container mounted
// as a tarball what its export writes, and the arguments naming them are rewritten. Secrets in arguments or variables are violations: they fail the test.
func (w *World) run(x engine.Exec) (string, string, int) {
	w.mu.Lock()
	secrets := maps.Clone(w.Secrets)
	w.mu.Unlock()
	if err := secretInTheOpen(x, secrets); err != nil {
		return w.refuse(err)
	}
	tmp, err := os.MkdirTemp("", "supplychain-exec-")
	if err != nil {
		return w.refuse(err)
	}
	defer os.RemoveAll(tmp)
	paths := map[string]string{} // path in the container → file on this machine
	if err := writeSecretFiles(x, secrets, tmp, paths); err != nil {
		return w.refuse(err)
	}
	if err := w.localMountedFiles(x, tmp, paths); err != nil {
		return w.refuse(err)
	}
	if err := w.cacheFolders(x, paths); err != nil {
		return w.refuse(err)
	}
	args := make([]string, 0, len(x.Args)-1)
	for _, a := range x.Args[1:] {
		if p, ok := paths[a]; ok {
			a = p
		}
		args = append(args, a)
	}
	w.mu.Lock()
	w.runs = append(w.runs, append([]string(nil), x.Args...))
	w.mu.Unlock()
	bin := w.bin
	switch x.Args[0] {
	case "registry":
		bin = w.registryBin
	case "github":
		bin = w.githubBin
	}
	return runSupplychain(context.Background(), bin, args, tmp, x.Stdin)
}

// cacheFolders records in paths a folder on this machine for each cache volume the exec
// mounts, the same folder for every exec that mounts the volume, as the engine keeps it.
func (w *World) cacheFolders(x engine.Exec, paths map[string]string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range x.Mounts {
		if m.Kind != "withMountedCache" {
			continue
		}
		dir, ok := w.caches[m.Cache]
		if !ok {
			if w.cacheRoot == "" {
				return violationf("cache volume %q mounted before the world was installed", m.Cache)
			}
			dir = filepath.Join(w.cacheRoot, fmt.Sprintf("cache-%d", len(w.caches)))
			if err := os.Mkdir(dir, 0o700); err != nil {
				return err
			}
			w.caches[m.Cache] = dir
		}
		paths[m.Path] = dir
	}
	return nil
}

// secretInTheOpen is a violation when a secret's value is in the exec's arguments or
// variables.
func secretInTheOpen(x engine.Exec, secrets map[string]string) error {
	joined := strings.Join(x.Args, " ")
	for name, v := range secrets {
		if strings.Contains(joined, v) {
			return violationf("secret %s is in the arguments", name)
		}
		for k, ev := range x.Env {
			if strings.Contains(ev, v) {
				return violationf("secret %s is in variable %s", name, k)
			}
		}
	}
	return nil
}

// writeSecretFiles writes the value of each secret the exec mounts into a file in tmp and
// records it in paths. A secret given as a variable, or not one of secrets, is a violation.
func writeSecretFiles(x engine.Exec, secrets map[string]string, tmp string, paths map[string]string) error {
	for i, s := range x.Secrets {
		if s.Env != "" {
			return violationf("secret %s is given as variable %s, not as a file", s.Name, s.Env)
		}
		v, ok := secrets[s.Name]
		if !ok {
			return violationf("secret %q is not one of the test's", s.Name)
		}
		p := filepath.Join(tmp, fmt.Sprintf("secret-%d", i))
		if err := os.WriteFile(p, []byte(v+"\n"), 0o600); err != nil {
			return err
		}
		paths[s.Path] = p
	}
	return nil
}

// localMountedFiles records in paths a file on this machine for each file the exec mounts:
// an allowed host file, the export of a container mounted as a tarball, or a file the
// graph made, written into tmp. Any other mounted file is a violation.
func (w *World) localMountedFiles(x engine.Exec, tmp string, paths map[string]string) error {
	w.mu.Lock()
	files := append([]string(nil), w.files...)
	served := maps.Clone(w.served)
	w.mu.Unlock()
	for i, m := range x.Mounts {
		if m.Kind != "withMountedFile" {
			continue
		}
		for _, f := range files {
			if strings.Contains(m.Source, f) {
				paths[m.Path] = f
			}
		}
		if strings.HasSuffix(m.Source, ".asTarball") || strings.Contains(m.Source, ".asTarball(") {
			p := filepath.Join(tmp, fmt.Sprintf("image-%d.tar", i))
			if err := w.exportMountedImage(m, p); err != nil {
				return err
			}
			paths[m.Path] = p
			continue
		}
		contents, found, err := graphFile(m, served)
		if err != nil {
			return violationf("mounted file %s: %v", m.Path, err)
		}
		if found {
			p := filepath.Join(tmp, fmt.Sprintf("file-%d", i))
			if err := os.WriteFile(p, []byte(contents), 0o600); err != nil {
				return err
			}
			paths[m.Path] = p
		}
		if _, ok := paths[m.Path]; !ok {
			return violationf("mounted file %s (%s) is not a file the test allowed", m.Path, m.Source)
		}
	}
	return nil
}

// exportMountedImage writes to p the image of the container mounted by m as a tarball, as
// the engine's export rules make it; one the test did not build is a violation.
func (w *World) exportMountedImage(m engine.Mount, p string) error {
	w.mu.Lock()
	e := w.engine
	w.mu.Unlock()
	ok, err := e.WriteExport("Container", p, m.Source)
	if err != nil {
		return &exitError{msg: fmt.Sprintf("publishtest: the image mounted at %s: %v", m.Path, err), code: 1}
	}
	if !ok {
		return violationf("mounted tarball %s (%s) is not an image the test built", m.Path, m.Source)
	}
	return nil
}

// graphFile is the contents of a file the graph made, mounted by m: one an exec wrote
// (Trivy's SBOM), as the test serves it when the mount's chain is that exec's, or one the
// graph wrote itself (the index's SBOM), whose contents are in the chain.
func graphFile(m engine.Mount, served map[string]string) (string, bool, error) {
	for out, contents := range served {
		if strings.Contains(m.Source, `"--format","cyclonedx"`) && strings.HasSuffix(m.Source, `.file(path:"`+out+`")`) {
			return contents, true, nil
		}
	}
	// A file a container was given, then read back: container…withNewFile(contents:…,
	// path:P).file(path:P).
	if i := strings.LastIndex(m.Source, ".withNewFile(contents:"); i > 0 && !strings.HasPrefix(m.Source, "directory.") {
		var contents string
		dec := json.NewDecoder(strings.NewReader(m.Source[i+len(".withNewFile(contents:"):]))
		if err := dec.Decode(&contents); err != nil {
			return "", false, fmt.Errorf("reading its contents from %s: %w", m.Source, err)
		}
		rest := m.Source[i+len(".withNewFile(contents:")+int(dec.InputOffset()):]
		if quoted, ok := strings.CutPrefix(rest, ",path:"); ok {
			quoted, _, _ = strings.Cut(quoted, ")")
			if rest == ",path:"+quoted+").file(path:"+quoted+")" {
				return contents, true, nil
			}
		}
	}
	if rest, ok := strings.CutPrefix(m.Source, "directory.withNewFile(contents:"); ok {
		var contents string
		if err := json.NewDecoder(strings.NewReader(rest)).Decode(&contents); err != nil {
			return "", false, fmt.Errorf("reading its contents from %s: %w", m.Source, err)
		}
		return contents, true, nil
	}
	return "", false, nil
}

// writeLayoutTar writes img as an OCI image layout in a tar file, as Container.export does.
func writeLayoutTar(img v1.Image, path string) error {
	dir, err := os.MkdirTemp("", "oci-layout-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendImage(img); err != nil {
		return err
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(out)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Name: filepath.ToSlash(rel), Mode: 0o644, Size: info.Size(), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// Keep writes what a person needs to check a signed image with cosign into dir (see
// KeepSigned), failing the test on any error.
func (w *World) Keep(t testing.TB, dir, repo, digest string) {
	t.Helper()
	if err := KeepSigned(dir, repo, digest, w.Sigstore.TrustedRoot); err != nil {
		t.Fatal(err)
	}
	t.Logf("kept the signed image and its trusted root in %s", dir)
}

// KeptPlatform is one platform image of a kept image index.
type KeptPlatform struct {
	Platform string // e.g. linux/arm64
	Digest   string
}

// keptBundles names the bundle files of a kept subject by the statement's predicate type.
var keptBundles = map[string]string{
	"https://slsa.dev/provenance/v1":      "provenance",
	"https://cyclonedx.org/bom":           "sbom",
	"https://sigstore.dev/cosign/sign/v1": "signature",
}

// KeepSigned writes what a person needs to check a published image with cosign into dir:
// the trusted root (a copy of trustedRoot) as trusted_root.json; image/, an OCI layout
// holding repo@digest tagged "signed" (for an image index: the index itself, its platform
// images and their blobs) and the referrers of the index and of each platform image; each
// bundle as <subject>.<kind>.sigstore.json (subject "index" or the platform, e.g.
// linux-arm64; kind provenance, sbom or signature); and README.txt with the commands for
// those digests. repo is reached over plain HTTP (a local test registry).
func KeepSigned(dir, repo, digest, trustedRoot string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tr, err := os.ReadFile(trustedRoot)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "trusted_root.json"), tr, 0o644); err != nil {
		return err
	}
	layoutDir := filepath.Join(dir, "image")
	if err := os.RemoveAll(layoutDir); err != nil {
		return err
	}
	lp, err := layout.Write(layoutDir, empty.Index)
	if err != nil {
		return err
	}
	d, err := name.NewDigest(repo+"@"+digest, name.Insecure)
	if err != nil {
		return err
	}
	subjects, platforms, err := keepSubject(lp, d)
	if err != nil {
		return err
	}
	referrers := 0
	for _, s := range subjects {
		n, err := keepReferrers(lp, dir, d.Context(), s)
		if err != nil {
			return err
		}
		referrers += n
	}
	return os.WriteFile(filepath.Join(dir, "README.txt"), []byte(KeepReadme(digest, platforms, referrers)), 0o644)
}

// keptSubject is an image or index whose referrers are kept; label names its bundle files.
type keptSubject struct{ label, digest string }

// keepSubject writes the image or index d into the layout, tagged "signed", and returns
// the subjects whose referrers to keep: an image, or an index and each of its platform
// images (which it also returns).
func keepSubject(lp layout.Path, d name.Digest) ([]keptSubject, []KeptPlatform, error) {
	desc, err := remote.Get(d)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s: %w", d, err)
	}
	signed := layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": "signed"})
	if !desc.MediaType.IsIndex() {
		img, err := desc.Image()
		if err != nil {
			return nil, nil, err
		}
		if err := lp.AppendImage(img, signed); err != nil {
			return nil, nil, err
		}
		return []keptSubject{{"image", d.DigestStr()}}, nil, nil
	}
	// The index itself, tagged: remote.Image of an index digest picks one platform's
	// image, and the index, whose referrers cosign reads through a tag, goes missing.
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, nil, err
	}
	if err := lp.AppendIndex(idx, signed); err != nil {
		return nil, nil, fmt.Errorf("writing the index into the layout: %w", err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, nil, err
	}
	subjects := []keptSubject{{"index", d.DigestStr()}}
	var platforms []KeptPlatform
	for _, md := range m.Manifests {
		if md.Platform == nil {
			return nil, nil, fmt.Errorf("%s: manifest %s has no platform", d, md.Digest)
		}
		p := KeptPlatform{Platform: md.Platform.String(), Digest: md.Digest.String()}
		platforms = append(platforms, p)
		subjects = append(subjects, keptSubject{strings.ReplaceAll(p.Platform, "/", "-"), p.Digest})
	}
	return subjects, platforms, nil
}

// keepReferrers writes the referrers of s in repo into the layout and their bundles into
// dir, and returns how many there were.
func keepReferrers(lp layout.Path, dir string, repo name.Repository, s keptSubject) (int, error) {
	idx, err := remote.Referrers(repo.Digest(s.digest))
	if err != nil {
		return 0, fmt.Errorf("referrers of %s: %w", s.digest, err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return 0, err
	}
	for _, rd := range m.Manifests {
		ri, err := remote.Image(repo.Digest(rd.Digest.String()))
		if err != nil {
			return 0, err
		}
		if err := lp.AppendImage(ri); err != nil {
			return 0, err
		}
		if err := keepBundle(dir, s.label, ri, rd.Digest); err != nil {
			return 0, err
		}
	}
	return len(m.Manifests), nil
}

// keepBundle writes the Sigstore bundle the referrer ri (digest rd) carries into dir as
// <label>.<kind>.sigstore.json, when its predicate type is one of keptBundles.
func keepBundle(dir, label string, ri v1.Image, rd v1.Hash) error {
	mf, err := ri.Manifest()
	if err != nil {
		return err
	}
	layers, err := ri.Layers()
	if err != nil || len(layers) != 1 {
		return fmt.Errorf("referrer %s: %d layers, %v", rd, len(layers), err)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		return err
	}
	bundle, err := io.ReadAll(rc)
	rc.Close()
	if err != nil {
		return err
	}
	if kind := keptBundles[mf.Annotations["dev.sigstore.bundle.predicateType"]]; kind != "" {
		return os.WriteFile(filepath.Join(dir, label+"."+kind+".sigstore.json"), bundle, 0o644)
	}
	return nil
}

// KeepRepo is where the -keep README copies the kept image: a registry on this machine's
// loopback, which speaks plain HTTP.
const KeepRepo = "127.0.0.1:5000/elixircloud/tesk-core-filer"

// KeepReadme is README.txt of a -keep folder: the commands that check the kept image, on
// the index digest and on each platform image's. The local registry speaks plain HTTP,
// which oras must be told; the test Sigstore embeds an SCT in each certificate as Fulcio
// does, so no command turns certificate transparency off.
func KeepReadme(digest string, platforms []KeptPlatform, referrers int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Signed test image, published by Shipyard's publish-dev in a test (-keep).\n\n")
	fmt.Fprintf(&b, "digest:    %s (tagged \"signed\" in image/)\n", digest)
	digests := []string{digest}
	for _, p := range platforms {
		fmt.Fprintf(&b, "  %-12s %s\n", p.Platform+":", p.Digest)
		digests = append(digests, p.Digest)
	}
	// The SBOM example reads the first platform image's (linux/amd64 by default), the
	// image that holds packages; an index's SBOM lists only its platform images.
	sbomOf := digest
	if len(platforms) > 0 {
		sbomOf = platforms[0].Digest
	}
	fmt.Fprintf(&b, `identity:  %[2]s
issuer:    %[3]s
referrers: %[1]d (on the index and on each platform image: the cosign signature, the
           SLSA v1 provenance and the CycloneDX SBOM, each a Sigstore bundle v0.3)

The trust root is a test Sigstore with its own certificate transparency log: each
certificate carries a signed certificate timestamp, as Fulcio's do. Copy the layout,
with its referrers, to a local registry (plain HTTP), once it answers:

  crane registry serve --address 127.0.0.1:5000 &
  until crane catalog --insecure 127.0.0.1:5000 > /dev/null 2>&1; do sleep 0.2; done
  oras cp -r --to-plain-http --from-oci-layout ./image:signed %[4]s:signed

then verify with cosign v2.6, on the index and on each platform image's digest. The
signature is the bundle of cosign's sign predicate; cosign verify alone accepts any
valid bundle, so ask for that predicate type to know the signature is there:

  ID='%[5]s'
  ISSUER='%[3]s'
  for d in %[6]s; do
    for type in https://sigstore.dev/cosign/sign/v1 slsaprovenance1 cyclonedx; do
      cosign verify-attestation --new-bundle-format --offline --type "$type" \
        --trusted-root trusted_root.json \
        --certificate-identity-regexp "$ID" --certificate-oidc-issuer "$ISSUER" \
        %[4]s@"$d" > /dev/null || echo "FAILED: $type on $d"
    done
  done

A platform image's SBOM lists its packages (cosign download sbom reads only the old
.sbom tag attachment, so it finds nothing here):

  cosign verify-attestation --new-bundle-format --offline --type cyclonedx \
    --trusted-root trusted_root.json \
    --certificate-identity-regexp "$ID" --certificate-oidc-issuer "$ISSUER" \
    %[4]s@%[7]s | jq -r '.payload | @base64d | fromjson | .predicate.components[].name'

cosign tree lists the referrers only with --experimental-oci11:

  cosign tree --experimental-oci11 %[4]s:signed

Shipyard's verify reads images over HTTPS (plain HTTP only on loopback, and the
engine's loopback is not this machine's), so for it copy the layout to a registry
the engine reaches over HTTPS, e.g. a repository of your own on Docker Hub:

  oras cp -r --from-oci-layout ./image:signed docker.io/<you>/shipyard-demo:signed
  dagger call verify --image docker.io/<you>/shipyard-demo:signed \
    --identity "$ID" --issuer "$ISSUER" \
    --trusted-root trusted_root.json
`, referrers, Identity, Issuer, KeepRepo, IdentityRegexp, strings.Join(digests, " "), sbomOf)
	return b.String()
}
