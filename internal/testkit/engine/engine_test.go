package engine

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"
)

// rawQuery posts a query the way the SDK does, for cases the SDK cannot express.
func rawQuery(t *testing.T, e *Engine, token, query string) (int, map[string]any) {
	t.Helper()
	port, _ := e.SessionEnv()
	body, _ := json.Marshal(map[string]string{"query": query, "operationName": "Query"})
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+port+"/query", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(token, "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestContainerGraphIsRecorded(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnExec(ExecRule{ArgsContain: "pytest", Stdout: "3 passed\n"})
	c := e.Client(ctx)

	src := c.Directory().WithNewFile("pyproject.toml", "[project]\nname = \"x\"\n")
	ctr := c.Container().From("python:3.12").
		WithEnvVariable("PIP_NO_CACHE", "1").
		WithEnvVariable("PATH_EXTRA", "$PIP_NO_CACHE:bin", dagger.ContainerWithEnvVariableOpts{Expand: true}).
		WithSecretVariable("TOKEN", c.SetSecret("token", "s3cr3t")).
		WithMountedCache("/root/.cache/pip", c.CacheVolume("pip")).
		WithDirectory("/src", src).
		WithWorkdir("/src").
		WithExec([]string{"pytest", "-q"})
	out, err := ctr.Stdout(ctx)
	if err != nil {
		t.Fatalf("stdout: %v", err)
	}
	if out != "3 passed\n" {
		t.Errorf("stdout = %q, want the programmed output", out)
	}
	code, err := ctr.ExitCode(ctx)
	if err != nil || code != 0 {
		t.Errorf("exitCode = %d, %v; want 0", code, err)
	}

	g := e.Graph()
	execs := g.Execs()
	if len(execs) != 1 {
		t.Fatalf("execs = %d, want 1:\n%s", len(execs), g)
	}
	got := execs[0]
	want := Exec{
		Args:    []string{"pytest", "-q"},
		Env:     map[string]string{"PIP_NO_CACHE": "1", "PATH_EXTRA": "1:bin"},
		Secrets: []SecretUse{{Name: "token", Env: "TOKEN"}},
		Workdir: "/src",
		Image:   "python:3.12",
		Expect:  "SUCCESS",
		Stdout:  "3 passed\n",
		Runs:    1,
	}
	gotCore := got
	gotCore.Mounts, gotCore.Chain, gotCore.Requests = nil, "", 0
	if !reflect.DeepEqual(gotCore, want) {
		t.Errorf("exec =\n%+v\nwant\n%+v", gotCore, want)
	}
	wantMounts := []Mount{
		{Path: "/root/.cache/pip", Kind: "withMountedCache", Cache: "pip"},
		{Path: "/src", Kind: "withDirectory", Source: `directory.withNewFile(contents:"[project]\nname = \"x\"\n",path:"pyproject.toml")`},
	}
	if !reflect.DeepEqual(got.Mounts, wantMounts) {
		t.Errorf("mounts =\n%+v\nwant\n%+v", got.Mounts, wantMounts)
	}
	if got.Requests < 2 {
		t.Errorf("requests = %d; stdout and exitCode both needed the exec", got.Requests)
	}
	if imgs := g.Images(); !reflect.DeepEqual(imgs, []string{"python:3.12"}) {
		t.Errorf("images = %v", imgs)
	}
	if vols := g.CacheVolumes(); !reflect.DeepEqual(vols, []string{"pip"}) {
		t.Errorf("cache volumes = %v", vols)
	}
	if secs := g.Secrets(); !reflect.DeepEqual(secs, []Secret{{Name: "token"}}) {
		t.Errorf("secrets = %v", secs)
	}
	// A file the graph wrote reads back through the container, relative to the workdir.
	contents, err := ctr.File("pyproject.toml").Contents(ctx)
	if err != nil || !strings.Contains(contents, `name = "x"`) {
		t.Errorf("contents = %q, %v", contents, err)
	}
}

func TestDirectoryPassedByID(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnFile(FileRule{Path: "/out/wheel.txt", ChainContains: "build", Contents: "shipyard-1.0.whl"})
	c := e.Client(ctx)

	built := c.Container().From("python:3.12").
		WithExec([]string{"python", "-m", "build"}).
		Directory("/out")
	id, err := built.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Graph().Execs()) != 0 {
		t.Fatalf("an id must not evaluate the chain")
	}

	loaded := map[string]*dagger.Directory{
		"loadDirectoryFromID": c.LoadDirectoryFromID(dagger.DirectoryID(id)),
		"node":                dagger.Ref[*dagger.Directory](c, id),
		"same object":         built,
	}
	for name, dir := range loaded {
		t.Run(name, func(t *testing.T) {
			out, err := c.Container().From("alpine:3.20").
				WithMountedDirectory("/dist", dir).
				WithExec([]string{"cat", "/dist/wheel.txt"}).
				File("/dist/wheel.txt").Contents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The rule keyed on the producing chain still applies: the ID resolved back.
			if out != "shipyard-1.0.whl" {
				t.Errorf("contents = %q", out)
			}
		})
	}
	if _, err := dagger.Load[*dagger.Directory](ctx, c, id); err != nil {
		t.Errorf("dagger.Load: %v", err)
	}
	// Three loads of one directory are one consumer exec: the chains are equal.
	if n := len(e.Graph().ExecsWith("cat /dist/wheel.txt")); n != 1 {
		t.Errorf("consumer execs = %d, want 1 (equal chains)", n)
	}
	if n := len(e.Graph().ExecsWith("python -m build")); n != 1 {
		t.Errorf("producer execs = %d, want 1 (cached)", n)
	}
}

func TestExecFailure(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnExec(ExecRule{ArgsContain: "ruff", Stdout: "checked", Stderr: "E501 line too long\n", ExitCode: 2})
	c := e.Client(ctx)
	lint := c.Container().From("python:3.12").WithExec([]string{"ruff", "check", "."})

	_, err := lint.Sync(ctx)
	var execErr *dagger.ExecError
	if !errors.As(err, &execErr) {
		t.Fatalf("err = %v (%T), want *dagger.ExecError", err, err)
	}
	if execErr.ExitCode != 2 || !reflect.DeepEqual(execErr.Cmd, []string{"ruff", "check", "."}) ||
		execErr.Stdout != "checked" || execErr.Stderr != "E501 line too long" {
		t.Errorf("exec error = %+v", execErr)
	}
	if want := `process "ruff check ." did not complete successfully: exit code: 2`; execErr.Message() != want {
		t.Errorf("message = %q, want %q", execErr.Message(), want)
	}

	// expect: ANY lets a test read the exit code instead of failing.
	code, err := c.Container().From("python:3.12").
		WithExec([]string{"ruff", "check", "."}, dagger.ContainerWithExecOpts{Expect: dagger.ReturnTypeAny}).
		ExitCode(ctx)
	if err != nil || code != 2 {
		t.Errorf("exitCode with expect ANY = %d, %v; want 2", code, err)
	}

	// A failure is not cached: once fixed, the same chain runs again and succeeds.
	e.OnExec(ExecRule{ArgsContain: "ruff"})
	if _, err := lint.Sync(ctx); err != nil {
		t.Fatalf("re-run after fix: %v", err)
	}
	for _, ex := range e.Graph().ExecsWith("ruff") {
		if ex.Expect == "SUCCESS" && (ex.Runs != 2 || ex.ExitCode != 0) {
			t.Errorf("re-run exec: runs %d exit %d, want 2 runs ending in 0", ex.Runs, ex.ExitCode)
		}
	}
}

func TestInvalidQueryIsRefusedLikeTheEngine(t *testing.T) {
	e := New(t, AllowInvalidQueries())
	_, token := e.SessionEnv()
	status, body := rawQuery(t, e, token, `query Query {container{from(adress:"alpine"){id}}}`)
	if status != http.StatusUnprocessableEntity {
		t.Fatalf("status = %d, want 422", status)
	}
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		t.Fatalf("no errors in %v", body)
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	if ext["code"] != "GRAPHQL_VALIDATION_FAILED" {
		t.Errorf("extensions = %v", ext)
	}
	recorded := e.Errors()
	var iq *InvalidQueryError
	if len(recorded) != 1 || !errors.As(recorded[0], &iq) || !strings.Contains(iq.Error(), "adress") {
		t.Errorf("recorded errors = %v", recorded)
	}

	// Through the SDK the refusal is an error the caller sees.
	c := e.Client(context.Background())
	var resp dagger.Response
	err := c.Do(context.Background(), &dagger.Request{Query: `query Query {nope}`, OpName: "Query"}, &resp)
	if err == nil || !strings.Contains(err.Error(), "422") {
		t.Errorf("SDK error = %v, want the 422 refusal", err)
	}
}

func TestRefusedQueryDoesNotQuoteSecrets(t *testing.T) {
	e := New(t, AllowInvalidQueries())
	_, token := e.SessionEnv()
	cases := []string{
		`query Query {setSecret(name:"t", plaintext:"s3cr3t\"tail"){nope}}`,
		`query Query {setSecret(name:"t", plaintext: """s3cr3t
tail"""){nope}}`,
	}
	for _, q := range cases {
		if status, _ := rawQuery(t, e, token, q); status != http.StatusUnprocessableEntity {
			t.Fatalf("status = %d, want 422", status)
		}
	}
	for _, err := range e.Errors() {
		if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "tail") {
			t.Errorf("refusal quotes the secret: %v", err)
		}
	}
}

func TestWrongTokenIsUnauthorized(t *testing.T) {
	e := New(t)
	status, _ := rawQuery(t, e, "not-the-token", `query Query {version}`)
	if status != http.StatusUnauthorized {
		t.Errorf("status = %d, want 401", status)
	}
}

func TestSessionEnvConnects(t *testing.T) {
	e := New(t)
	port, token := e.SessionEnv()
	t.Setenv("DAGGER_SESSION_PORT", port)
	t.Setenv("DAGGER_SESSION_TOKEN", token)
	c, err := dagger.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	v, err := c.Version(context.Background())
	if err != nil || v != daggerVersion {
		t.Errorf("version = %q, %v", v, err)
	}
}

func TestIDArgumentTypeIsChecked(t *testing.T) {
	ctx := context.Background()
	e := New(t, AllowInvalidQueries())
	c := e.Client(ctx)
	dirID, err := c.Directory().ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, token := e.SessionEnv()
	cases := []struct {
		name, query, want string
	}{
		{"directory where a file is expected",
			`query Query {container{withFile(path:"/x", source:"` + string(dirID) + `"){id}}}`,
			"expected an ID of type File, got one of type Directory"},
		{"legacy loader of another type",
			`query Query {loadContainerFromID(id:"` + string(dirID) + `"){id}}`,
			"expected an ID of type Container"},
		{"foreign ID",
			`query Query {container{withDirectory(path:"/x", source:"Zm9v"){id}}}`,
			"invalid ID"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body := rawQuery(t, e, token, tc.query)
			errs, _ := body["errors"].([]any)
			if status != http.StatusOK || len(errs) == 0 {
				t.Fatalf("status %d body %v, want a GraphQL error", status, body)
			}
			if msg, _ := errs[0].(map[string]any)["message"].(string); !strings.Contains(msg, tc.want) {
				t.Errorf("message = %q, want it to contain %q", msg, tc.want)
			}
		})
	}
	if n := len(e.Errors()); n != len(cases) {
		t.Errorf("recorded errors = %d, want %d", n, len(cases))
	}
}

func TestSecretPlaintextStaysOut(t *testing.T) {
	ctx := context.Background()
	const plaintext = "s3cr3t-value"
	e := New(t)
	c := e.Client(ctx)
	secret := c.SetSecret("pypi-token", plaintext)
	ctr := c.Container().From("python:3.12").
		WithSecretVariable("TWINE_PASSWORD", secret).
		WithMountedSecret("/run/secrets/token", secret).
		WithExec([]string{"twine", "upload", "dist/*"})
	if _, err := ctr.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	ctrID, err := ctr.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	secretID, err := secret.ID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{string(ctrID), string(secretID)} {
		decoded, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(id, plaintext) || strings.Contains(string(decoded), plaintext) {
			t.Errorf("an ID carries the plaintext: %s", decoded)
		}
	}
	g := e.Graph()
	if strings.Contains(g.String(), plaintext) {
		t.Errorf("the recorded graph carries the plaintext:\n%s", g)
	}
	want := []SecretUse{{Name: "pypi-token", Path: "/run/secrets/token"}, {Name: "pypi-token", Env: "TWINE_PASSWORD"}}
	if got := g.Execs()[0].Secrets; !reflect.DeepEqual(got, want) {
		t.Errorf("secret uses = %+v, want %+v", got, want)
	}
	if _, err := secret.Plaintext(ctx); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("plaintext without permission: err = %v, want a refusal", err)
	}

	allowed := New(t, AllowSecretPlaintext())
	v, err := allowed.Client(ctx).SetSecret("t", plaintext).Plaintext(ctx)
	if err != nil || v != plaintext {
		t.Errorf("plaintext with permission = %q, %v", v, err)
	}
}

func TestHostDirectoryFixture(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	files := map[string]string{
		"pyproject.toml":        "[project]\nname = \"fixture\"\n",
		"src/fixture/a.py":      "print('a')\n",
		"docs/index.md":         "# docs\n",
		"node_modules/x/x.js":   "x",
		"src/fixture/.hidden":   "h",
		"src/fixture/b_test.py": "def test(): pass\n",
	}
	for p, data := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := New(t)
	c := e.Client(ctx)
	dir := c.Host().Directory(root, dagger.HostDirectoryOpts{Exclude: []string{"node_modules", "docs/**"}})

	runQueryCases(t, []queryCase{
		{"root entries", func() (any, error) { return dir.Entries(ctx) }, []string{"docs/", "pyproject.toml", "src/"}},
		{"sub entries", func() (any, error) { return dir.Entries(ctx, dagger.DirectoryEntriesOpts{Path: "src/fixture"}) },
			[]string{".hidden", "a.py", "b_test.py"}},
		{"real contents", func() (any, error) { return dir.File("pyproject.toml").Contents(ctx) }, files["pyproject.toml"]},
		{"glob", func() (any, error) { return dir.Glob(ctx, "**/*.py") }, []string{"src/fixture/a.py", "src/fixture/b_test.py"}},
		{"filter", func() (any, error) {
			return dir.Filter(dagger.DirectoryFilterOpts{Include: []string{"src/**/*_test.py"}}).Glob(ctx, "**/*.py")
		}, []string{"src/fixture/b_test.py"}},
		{"through a container", func() (any, error) {
			return c.Container().From("python:3.12").WithDirectory("/app", dir).WithWorkdir("/app").
				File("src/fixture/a.py").Contents(ctx)
		}, files["src/fixture/a.py"]},
		{"with a new file", func() (any, error) {
			return dir.WithNewFile("VERSION", "1.2.3").WithoutDirectory("src").Entries(ctx)
		}, []string{"VERSION", "docs/", "pyproject.toml"}},
	})

	if _, err := dir.File("missing.txt").Contents(ctx); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: err = %v", err)
	}
	if _, err := c.Host().Directory(filepath.Join(root, "absent")).Entries(ctx); err == nil {
		t.Errorf("absent host folder: no error")
	}
	want := HostPath{Kind: "directory", Path: root, Exclude: []string{"node_modules", "docs/**"}}
	hp := e.Graph().HostPaths()
	if !slices.ContainsFunc(hp, func(h HostPath) bool { return reflect.DeepEqual(h, want) }) {
		t.Errorf("host paths = %+v, want one %+v", hp, want)
	}
}

func TestRulesProgramResults(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnExec(ExecRule{ArgsContain: "trivy", Stdout: "baseline"})
	e.OnExec(ExecRule{ArgsContain: "trivy", Image: "aquasec/trivy:0.58", Stdout: "pinned"})
	e.OnExec(ExecRule{Match: func(x Exec) bool { return x.Env["CI"] == "true" }, Stdout: "in ci"})
	e.OnFile(FileRule{Path: "report.json", ChainContains: "trivy", Contents: `{"Results":[]}`})
	e.OnEntries(DirRule{Path: "/out", Entries: []string{"a.whl", "b.tar.gz"}})
	e.OnField(FieldRule{Type: "GitRef", Field: "commit", Value: "0123456789abcdef0123456789abcdef01234567"})
	c := e.Client(ctx)

	trivy := func(image string) *dagger.Container {
		return c.Container().From(image).WithExec([]string{"trivy", "image", "--format", "json", "-o", "/scan/report.json", "x"})
	}
	runQueryCases(t, []queryCase{
		{"later rule wins when it matches", func() (any, error) { return trivy("aquasec/trivy:0.58").Stdout(ctx) }, "pinned"},
		{"earlier rule otherwise", func() (any, error) { return trivy("aquasec/trivy:latest").Stdout(ctx) }, "baseline"},
		{"predicate", func() (any, error) {
			return c.Container().From("alpine").WithEnvVariable("CI", "true").WithExec([]string{"env"}).Stdout(ctx)
		}, "in ci"},
		{"no rule", func() (any, error) { return c.Container().From("alpine").WithExec([]string{"true"}).Stdout(ctx) }, ""},
		{"file by path suffix in chain", func() (any, error) {
			return trivy("aquasec/trivy:latest").File("/scan/report.json").Contents(ctx)
		}, `{"Results":[]}`},
		{"unknown file after exec is empty", func() (any, error) {
			return c.Container().From("alpine").WithExec([]string{"make"}).File("/out/report.json").Contents(ctx)
		}, ""},
		{"entries", func() (any, error) {
			return c.Container().From("python:3.12").WithExec([]string{"build"}).Directory("/out").Entries(ctx)
		}, []string{"a.whl", "b.tar.gz"}},
		{"field rule", func() (any, error) { return c.Git("https://github.com/x/y").Tag("v1.0.0").Commit(ctx) },
			"0123456789abcdef0123456789abcdef01234567"},
	})
	refs := e.Graph().GitRefs()
	if !reflect.DeepEqual(refs, []GitRef{{URL: "https://github.com/x/y", Kind: "tag", Name: "v1.0.0"}}) {
		t.Errorf("git refs = %+v", refs)
	}
}

func TestFieldRuleInjectsFault(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	e.OnField(FieldRule{Type: "Container", Field: "publish", ChainContains: "flaky", Err: "registry: 503 Service Unavailable"})
	c := e.Client(ctx)
	_, err := c.Container().From("alpine").WithLabel("name", "flaky").Publish(ctx, "ttl.sh/x:1")
	if err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("publish err = %v, want the injected fault", err)
	}
	if _, err := c.Container().From("alpine").Publish(ctx, "ttl.sh/y:1"); err != nil {
		t.Errorf("unmatched publish: %v", err)
	}
}

func TestPublishAndExport(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	img := c.Container().From("python:3.12-slim").WithExec([]string{"pip", "install", "shipyard"})
	ref1, err := img.Publish(ctx, "ghcr.io/acme/shipyard:1.0")
	if err != nil {
		t.Fatal(err)
	}
	ref2, err := img.Publish(ctx, "ghcr.io/acme/shipyard:1.0")
	if err != nil {
		t.Fatal(err)
	}
	if ref1 != ref2 || !strings.HasPrefix(ref1, "ghcr.io/acme/shipyard:1.0@sha256:") || len(ref1) != len("ghcr.io/acme/shipyard:1.0@sha256:")+64 {
		t.Errorf("refs = %q, %q; want one deterministic address@sha256:<64 hex>", ref1, ref2)
	}
	other, err := c.Container().From("python:3.12-slim").Publish(ctx, "ghcr.io/acme/shipyard:1.0")
	if err != nil || other == ref1 {
		t.Errorf("a different chain must publish a different digest: %q, %v", other, err)
	}
	if _, err := img.AsTarball().Export(ctx, "build/image.tar"); err != nil {
		t.Fatal(err)
	}
	if p, err := img.Directory("/usr").Export(ctx, "build/usr"); err != nil || p != "build/usr" {
		t.Errorf("directory export = %q, %v", p, err)
	}
	g := e.Graph()
	pubs := g.Publishes()
	if len(pubs) != 3 || pubs[0].Image != "python:3.12-slim" {
		t.Errorf("publishes = %+v", pubs)
	}
	exports := g.Exports()
	kinds := []string{}
	for _, x := range exports {
		kinds = append(kinds, x.Kind+" "+x.Path)
	}
	if !reflect.DeepEqual(kinds, []string{"File build/image.tar", "Directory build/usr"}) {
		t.Errorf("exports = %v", kinds)
	}
	if !strings.Contains(exports[0].Chain, "asTarball") {
		t.Errorf("tarball export chain = %s", exports[0].Chain)
	}
	// The exec was needed by both publishes and the exports, but ran once.
	if ex := g.ExecsWith("pip install"); len(ex) != 1 || ex[0].Runs != 1 || ex[0].Requests < 4 {
		t.Errorf("exec = %+v", ex)
	}
}

func TestDockerBuild(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	ctx2 := c.Directory().WithNewFile("Dockerfile", "FROM python:3.12\n").WithNewFile("app.py", "")
	img := ctx2.DockerBuild(dagger.DirectoryDockerBuildOpts{
		Dockerfile: "Dockerfile",
		Target:     "runtime",
		BuildArgs:  []dagger.BuildArg{{Name: "VERSION", Value: "1.2.3"}, {Name: "PY", Value: "3.12"}},
		Secrets:    []*dagger.Secret{c.SetSecret("npmrc", "//registry:_authToken=abc")},
	})
	if _, err := img.WithExec([]string{"shipyard", "--version"}).Sync(ctx); err != nil {
		t.Fatal(err)
	}
	builds := e.Graph().Builds()
	if len(builds) != 1 {
		t.Fatalf("builds = %+v", builds)
	}
	b := builds[0]
	if b.Dockerfile != "Dockerfile" || b.Target != "runtime" || !reflect.DeepEqual(b.Secrets, []string{"npmrc"}) ||
		!reflect.DeepEqual(b.BuildArgs, map[string]string{"VERSION": "1.2.3", "PY": "3.12"}) ||
		!strings.HasPrefix(b.Context, "directory.withNewFile") {
		t.Errorf("build = %+v", b)
	}
	ex := e.Graph().Execs()[0]
	if ex.Build == nil || ex.Build.BuildArgs["VERSION"] != "1.2.3" || ex.Image != "" {
		t.Errorf("exec on a built image = %+v", ex)
	}
}

func TestServices(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	db := c.Container().From("postgres:16").
		WithEnvVariable("POSTGRES_PASSWORD", "test").
		WithExposedPort(5432).
		AsService(dagger.ContainerAsServiceOpts{Args: []string{"postgres"}})
	endpoint, err := db.Endpoint(ctx, dagger.ServiceEndpointOpts{Scheme: "postgres"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(endpoint, "postgres://svc-") || !strings.HasSuffix(endpoint, ":5432") {
		t.Errorf("endpoint = %q", endpoint)
	}
	if _, err := c.Container().From("python:3.12").
		WithServiceBinding("db", db).
		WithExec([]string{"pytest", "-m", "integration"}).Sync(ctx); err != nil {
		t.Fatal(err)
	}
	svcs := e.Graph().Services()
	if len(svcs) != 1 || svcs[0].Image != "postgres:16" || !reflect.DeepEqual(svcs[0].Args, []string{"postgres"}) ||
		!reflect.DeepEqual(svcs[0].Aliases, []string{"db"}) || !svcs[0].Started {
		t.Errorf("services = %+v", svcs)
	}
	ex := e.Graph().ExecsWith("pytest")
	if len(ex) != 1 || !strings.Contains(ex[0].Services["db"], "postgres:16") {
		t.Errorf("exec services = %+v", ex)
	}
}

func TestLeafDefaults(t *testing.T) {
	ctx := context.Background()
	e := New(t)
	c := e.Client(ctx)
	base := c.Container(dagger.ContainerOpts{Platform: "linux/arm64"}).From("alpine:3.20").
		WithEnvVariable("A", "1").WithEnvVariable("B", "2").WithWorkdir("/w").WithUser("app")
	runQueryCases(t, []queryCase{
		{"version", func() (any, error) { return c.Version(ctx) }, daggerVersion},
		{"default platform", func() (any, error) { return c.DefaultPlatform(ctx) }, dagger.Platform("linux/amd64")},
		{"platform", func() (any, error) { return base.Platform(ctx) }, dagger.Platform("linux/arm64")},
		{"env variable", func() (any, error) { return base.EnvVariable(ctx, "B") }, "2"},
		{"workdir", func() (any, error) { return base.Workdir(ctx) }, "/w"},
		{"user", func() (any, error) { return base.User(ctx) }, "app"},
		{"exit code", func() (any, error) { return base.WithExec([]string{"true"}).ExitCode(ctx) }, 0},
		{"stderr", func() (any, error) { return base.WithExec([]string{"true"}).Stderr(ctx) }, ""},
		{"env variables", func() (any, error) {
			vars, err := base.EnvVariables(ctx)
			if err != nil {
				return nil, err
			}
			var out []string
			for _, v := range vars {
				name, _ := v.Name(ctx)
				value, _ := v.Value(ctx)
				out = append(out, name+"="+value)
			}
			return out, nil
		}, []string{"A=1", "B=2"}},
		{"file name", func() (any, error) { return c.Directory().WithNewFile("x/y.txt", "").File("x/y.txt").Name(ctx) }, "y.txt"},
		{"file size", func() (any, error) { return c.File("a", "12345").Size(ctx) }, 5},
		{"file lines", func() (any, error) {
			return c.File("a", "1\n2\n3\n").Contents(ctx, dagger.FileContentsOpts{OffsetLines: 1, LimitLines: 1})
		}, "2\n"},
		{"up records the service", func() (any, error) {
			err := c.Container().From("nginx").WithDefaultArgs([]string{"nginx", "-g", "daemon off;"}).Up(ctx)
			var args []string
			for _, s := range e.Graph().Services() {
				if s.Image == "nginx" && s.Started {
					args = s.Args
				}
			}
			return args, err
		}, []string{"nginx", "-g", "daemon off;"}},
		{"sync returns the object", func() (any, error) {
			synced, err := base.Sync(ctx)
			if err != nil {
				return nil, err
			}
			return synced.Workdir(ctx)
		}, "/w"},
	})
	if _, err := base.Stdout(ctx); err == nil || !strings.Contains(err.Error(), "no command has been set") {
		t.Errorf("stdout without exec: err = %v", err)
	}
}

// queryCase is a query through the SDK and what the double answers it.
type queryCase struct {
	name string
	got  func() (any, error)
	want any
}

// runQueryCases runs each case as a subtest.
func runQueryCases(t *testing.T, cases []queryCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.got()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}
