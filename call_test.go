package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
)

// sessionSource hands the caller's tree (--source) to the session's client: the same
// files, read through the SDK; without a source it names what is missing.
func TestSessionSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, _ := newModule(t, map[string]string{"pyproject.toml": "[project]\nname = \"tesk-core\"\n"})
	c, src, err := m.sessionSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c != m.clients.sdk {
		t.Error("sessionSource made a second client instead of the session's")
	}
	got, err := src.File("pyproject.toml").Contents(ctx)
	if err != nil || !strings.Contains(got, `name = "tesk-core"`) {
		t.Errorf("pyproject.toml through the session = %q, %v", got, err)
	}

	m.Source = nil
	if _, _, err := m.sessionSource(ctx); err == nil || err.Error() != "source: no directory given" {
		t.Errorf("without a source: %v", err)
	}
}

// The model flows are set up like the release: at the call's trust level, logging each
// step on the call's stderr.
func TestModelEnvLogsLikeTheRelease(t *testing.T) {
	t.Parallel()
	m, _ := newModule(t, nil, engine.AllowSecretPlaintext())
	m.GithubToken = m.engine().SetSecret("github-token", "ghp_x")
	env, src, err := openCall(t, m, "update-repos").modelEnv(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d, err := functions.Of("update-repos")
	if err != nil {
		t.Fatal(err)
	}
	c := m.caller()
	c.Values = map[trust.Credential]trust.Secret{trust.GitHubToken: trust.SecretOf("ghp_x")}
	level, err := trust.Of("update-repos", d.Trust, c)
	if err != nil {
		t.Fatal(err)
	}
	if env.Log == nil || env.Trust != level || !level.Publishes() || src == nil {
		t.Errorf("modelEnv = log set %v, trust %v (want %v), source %v", env.Log != nil, env.Trust, level, src)
	}
}

// What a call holds, as the trust rule reads it: each credential with where it acts, and a
// dry run, never --demo by itself, as a rehearsal.
func TestCaller(t *testing.T) {
	t.Parallel()
	m, _ := newModule(t, nil)
	dag := m.engine()
	if c := m.caller(); len(c.Holds) != 0 || c.Rehearsal {
		t.Errorf("no credentials: %+v", c)
	}
	m.GithubToken, m.RegistryPassword = dag.SetSecret("t", "x"), dag.SetSecret("p", "y")
	m.Registry, m.Org = "registry.example", "org"
	signing := m.WithSigstore(dag.SetSecret("o", "z"), nil, nil, "https://fulcio.example", "", nil, nil, "", "", "")
	want := map[trust.Credential]string{
		trust.GitHubToken:      "https://api.github.com/ elixir-cloud-aai/tesk-core",
		trust.RegistryPassword: "registry.example/org",
		trust.IdentityToken:    "https://fulcio.example",
	}
	if c := signing.caller(); !maps.Equal(c.Holds, want) || c.Rehearsal {
		t.Errorf("every credential: %+v, want %v", c, want)
	}
	if !signing.rehearsing(true).caller().Rehearsal || signing.rehearsing(false).caller().Rehearsal {
		t.Error("a dry run is not a rehearsal, or every call is")
	}
	// --demo reads from the demo world, but a call that writes still writes: only a dry
	// run is a rehearsal.
	signing.Demo = true
	if c := signing.caller(); c.Rehearsal || !maps.Equal(c.Holds, want) {
		t.Errorf("--demo: %+v, want no rehearsal, holding %v", c, want)
	}
	if !signing.rehearsing(true).caller().Rehearsal {
		t.Error("--demo as a dry run is no rehearsal")
	}
}

// Every function whose helpers read its CLI name (for its trust level, platforms, tools)
// runs as a call: call finds the function from its method, so the call is leveled, and
// builds its tools, as its own declaration says; without it, the function fails only when
// it runs (no function is declared without a name).
func TestEveryFunctionOpensItsCall(t *testing.T) {
	s, err := modsurface.FromSource(".", "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	opened := callsOpened(t)
	for _, name := range s.Names() {
		fn := s.Functions[name]
		opens := opened[name]
		needs := fn.Reaches("fn") || fn.Reaches("level")
		switch {
		case !opens && needs:
			t.Errorf("%s (%s) reaches its call's function name (%v) without running as return call(m, func(m *Shipyard) …)", name, fn.File, fn.Uses)
		case opens && !needs:
			t.Errorf("%s (%s) runs as a call whose name nothing it reaches reads: drop its call", name, fn.File)
		}
	}
	if len(opened) < 35 {
		t.Errorf("found %d functions that open their call; the reader misses some", len(opened))
	}
}

// callsOpened is the set of functions of the root package (by CLI name) whose body is
// return call(m, func(m *Shipyard) …) (m.rehearsing(…) for a dry run): one statement, so
// nothing runs before the call's refusal (an undeclared function, --demo for one that
// writes), and the body's receiver is the call's module, not the one the method got.
func callsOpened(t *testing.T) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	opened := map[string]bool{}
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() || len(fn.Body.List) == 0 {
				continue
			}
			body, ok := callOpened(fn.Body.List[0])
			if !ok {
				continue
			}
			opened[modsurface.Kebab(fn.Name.Name)] = true
			if len(fn.Body.List) != 1 {
				t.Errorf("%s (%s): statements after return call(…)", fn.Name.Name, path)
			}
			if p := body.Type.Params.List; len(p) != 1 || len(p[0].Names) != 1 || p[0].Names[0].Name != "m" {
				t.Errorf("%s (%s): the call's body takes the call's module as m, shadowing the method's", fn.Name.Name, path)
			}
		}
	}
	return opened
}

// callOpened is the body s runs as a call, when s is return call(m, func(m *Shipyard) …)
// or return call(m.rehearsing(…), func(m *Shipyard) …).
func callOpened(s ast.Stmt) (*ast.FuncLit, bool) {
	ret, ok := s.(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return nil, false
	}
	c, ok := ret.Results[0].(*ast.CallExpr)
	if !ok || !isIdent(c.Fun, "call") || len(c.Args) != 2 {
		return nil, false
	}
	body, ok := c.Args[1].(*ast.FuncLit)
	return body, ok
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// notDeclared opens a call from a method that no doc pragma declares.
func (m *Shipyard) notDeclared() (string, error) {
	return call(m, func(*Shipyard) (string, error) { return "ran", nil })
}

// call finds its function from the method that calls it (the error names that method,
// not call or a runtime frame), and refuses a method that no declaration names; the
// declaration is found by method. Run also with -gcflags=-l, inlining off.
func TestCallingFindsItsMethod(t *testing.T) {
	m, _ := newModule(t, nil)
	if out, err := m.notDeclared(); err == nil || !strings.Contains(err.Error(), "the method notDeclared is not a declared function") || out != "" {
		t.Errorf("notDeclared() = %q, %v: want the refusal, and its body not run", out, err)
	}
	d, err := functions.OfMethod("ScanDigests")
	if err != nil || d.Name != "scan-digests" {
		t.Errorf("OfMethod(ScanDigests) = %+v, %v", d, err)
	}
}

// naming puts the function's name at the start of its call's error, once: not on a flow of
// its own, not on a report returned as the error (which keeps its cause), not on nil.
func TestNaming(t *testing.T) {
	gate := errors.New("rule 7 (not-released)")
	for _, tc := range []struct {
		name, fn string
		err      error
		want     string
	}{
		{"a plain error", "doctor", errors.New("--repo: want owner/name"), "doctor: --repo: want owner/name"},
		{"a flow of its own", "sign", &flow.Error{Flow: "sign", Step: "sign", Err: errors.New("boom")}, "sign: boom"},
		{"a flow of its own, with a tag", "release", &flow.Error{Flow: "release v1.0.0", Step: "build", Err: errors.New("boom")}, "release v1.0.0: build: boom"},
		{"another function's flow", "release-push", &flow.Error{Flow: "release v1.0.0", Step: "build", Err: errors.New("boom")}, "release-push: release v1.0.0: build: boom"},
		{"a report", "release-plan", reportError{report: `{"ok": false}`, cause: gate}, `{"ok": false}`},
		{"a wrapped report", "doctor", fmt.Errorf("%w", reportError{report: "doctor: o/r (tesk-core): 1 failed"}), "doctor: o/r (tesk-core): 1 failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err
			(&Shipyard{fn: tc.fn}).naming(&err)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("the named error lost its identity: %v", err)
			}
		})
	}
	report := error(reportError{report: "{}", cause: gate})
	(&Shipyard{fn: "release-plan"}).naming(&report)
	if !errors.Is(report, gate) {
		t.Error("a report lost the error it is of")
	}
	var none error
	(&Shipyard{fn: "lint"}).naming(&none)
	if none != nil {
		t.Errorf("nil became %v", none)
	}
}

// Every input publishing's errors name is spelled as one of Shipyard's flags (or a
// function that sets it, with-sigstore's, with-platforms), so no error of a function says
// "the registry user name" where its user types --registry-username.
func TestEveryPublishingInputIsSpelledAsAFlag(t *testing.T) {
	for _, in := range publish.Inputs() {
		got := spelled(publish.InputErrorf("give %s", in)).Error()
		if !strings.HasPrefix(got, "give --") && !strings.HasPrefix(got, "give with-") {
			t.Errorf("%q is spelled %q, want a flag (--…) or a function (with-…)", in, got)
		}
	}
}
