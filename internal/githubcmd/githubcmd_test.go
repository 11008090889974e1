package githubcmd_test

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/githubcmd"
	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/internal/wire"
)

// The command's build reads exactly the module's packages it is built from: one left out
// breaks the build in the engine, one too many rebuilds it for a change it does not see.
func TestSourcesAreWhatTheCommandImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "../../cmd/github").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var want []string
	for _, p := range strings.Fields(string(out)) {
		if dir, ok := strings.CutPrefix(p, "dagger/shipyard/"); ok {
			want = append(want, dir+"/*.go")
		}
	}
	want = append(want, "go.mod", "go.sum")
	got := githubcmd.Sources()
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("Sources() = %q\nthe command is built from %q", got, want)
	}
}

// run answers every exec of the GitHub command with the outcome given, and records it.
func world(t *testing.T, stdout, stderr string, code int) (*engine.Engine, githubcmd.Command) {
	t.Helper()
	ctx := context.Background()
	e := engine.New(t)
	e.OnExec(engine.ExecRule{Match: func(x engine.Exec) bool { return len(x.Args) > 0 && x.Args[0] == "github" },
		Stdout: stdout, Stderr: stderr, ExitCode: code})
	c := e.Client(ctx)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tool := githubcmd.Build(c, c.Host().Directory(root), pins.DefaultGoImage, trust.ReleaseAt("github-token=https://api.github.com/ elixir-cloud-aai/tesk-core", trust.SecretOf("test-credential")))
	token := c.SetSecret("github-token", "ghp_notarealtoken")
	return e, githubcmd.Command{Tool: tool, API: "https://api.github.com/", Token: token}
}

// commitsAfterAnswer is what the command prints for a CommitsAfter call: c1 is on dev,
// with c2 after it, and the list is complete.
const commitsAfterAnswer = `{"results":[true,["c2"],true],"stats":{}}`

func TestACallRunsTheCommandWithTheTokenAsAFile(t *testing.T) {
	ctx := context.Background()
	e, gh := world(t, commitsAfterAnswer, "", 0)
	client := githubcmd.NewClient(gh)
	for range 2 {
		onDev, newer, complete, err := client.CommitsAfter(ctx, "elixir-cloud-aai", "tesk-core", "c1", "dev")
		if err != nil || !onDev || !slices.Equal(newer, []string{"c2"}) || !complete {
			t.Fatalf("CommitsAfter = %v %v %v, %v", onDev, newer, complete, err)
		}
	}
	runs := e.Graph().ExecsWith("github call")
	if len(runs) != 2 {
		t.Fatalf("%d runs of the command, want 2 (one per call, none from the cache)", len(runs))
	}
	if runs[0].Env["SHIPYARD_GITHUB_RUN"] == runs[1].Env["SHIPYARD_GITHUB_RUN"] {
		t.Errorf("both runs had the same nonce: the engine could answer the second from its cache")
	}
	x := runs[0]
	want := []string{"github", "call", "--api", "https://api.github.com/", "--token-file", "/run/secrets/github-token", "CommitsAfter"}
	if !slices.Equal(x.Args, want) {
		t.Errorf("args %q, want %q", x.Args, want)
	}
	if len(x.Secrets) != 1 || x.Secrets[0].Path != "/run/secrets/github-token" || x.Secrets[0].Env != "" {
		t.Errorf("the token reaches the command as %+v, want one secret file", x.Secrets)
	}
	builds := e.Graph().ExecsWith("go build")
	if len(builds) != 1 || !slices.Contains(builds[0].Args, githubcmd.Package) {
		t.Fatalf("builds: %+v", builds)
	}
	// Built, and run, in the module's own runtime container: no image is pulled for it, and
	// the Go caches are where the build mounts them whatever that container sets.
	b := builds[0]
	if b.Image != "" || !strings.Contains(b.Chain, "asModule") || !strings.Contains(b.Chain, "runtime") ||
		b.Env["GOMODCACHE"] != "/go/pkg/mod" || b.Env["GOCACHE"] != "/root/.cache/go-build" {
		t.Errorf("the command is built in image %q with %v, chain %s", b.Image, b.Env, b.Chain)
	}
	if x.Image != "" || !strings.Contains(x.Chain, "runtime") {
		t.Errorf("the command runs in image %q", x.Image)
	}
}

func TestFailedRunsOfACall(t *testing.T) {
	for _, tt := range []struct {
		name           string
		stdout, stderr string
		code           int
		wantErr        string
	}{
		{name: "the run fails without an answer", stderr: "github call: reading the token file: no such file\n", code: wire.ExitFailure, wantErr: "github call: reading the token file"},
		{name: "a usage error is Shipyard's bug", stderr: "github call: the arguments on stdin: EOF\n", code: wire.ExitUsage, wantErr: "usage error (a bug of Shipyard's, please report it): github call: the arguments on stdin"},
		{name: "output that is not JSON", stdout: "hello", wantErr: "reading the answer of github call CommitsAfter"},
		{name: "an answer with too few results", stdout: `{"results":[true],"stats":{}}`, wantErr: "github call CommitsAfter answered 1 results, want 3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, gh := world(t, tt.stdout, tt.stderr, tt.code)
			_, _, _, err := githubcmd.NewClient(gh).CommitsAfter(context.Background(), "o", "r", "c1", "dev")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			var ce *githubcmd.Error
			if tt.code != 0 && !errors.As(err, &ce) {
				t.Errorf("a failed run is not a githubcmd.Error: %T", err)
			}
		})
	}
}

// Without a token the command runs anonymously: no secret, no token file.
func TestAnonymousRunsMountNoSecret(t *testing.T) {
	e, gh := world(t, commitsAfterAnswer, "", 0)
	gh.Token = nil
	if _, _, _, err := githubcmd.NewClient(gh).CommitsAfter(context.Background(), "o", "r", "c1", "dev"); err != nil {
		t.Fatal(err)
	}
	x := e.Graph().ExecsWith("github call")[0]
	if len(x.Secrets) != 0 || slices.Contains(x.Args, "--token-file") {
		t.Errorf("an anonymous run: secrets %+v, args %q", x.Secrets, x.Args)
	}
}
