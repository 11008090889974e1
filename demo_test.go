package main

import (
	"context"
	"errors"
	"flag"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/demoworld/demoserver"
	"dagger/shipyard/internal/demoworld/teskdemo"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// --demo points the GitHub command at the demo server it starts, built from the module's
// source and bound to the command's container, and PyPI at a loopback forwarder of this
// process; without --demo nothing is started. (The engine double's service hostnames
// resolve nowhere, so here the forwarder reports the service's endpoint unreachable: it was
// given the started service's.)
func TestDemoPointsGitHubAtTheDemoServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, nil)
	m = openCall(t, m, "release-plan")
	c := m.clients.sdk
	m.clients.demoBuilder = c.Container().From("golang:1.26")
	m.clients.demoSource = c.Host().Directory(".", dagger.HostDirectoryOpts{Include: demo.Sources()})
	e.ExpectExecs("go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /shipyard-demo/demo-server " + demo.Package)

	e.ExpectExecs(flowexecs.GitHubTool)
	if cmd, err := m.githubCommand(ctx); err != nil || cmd.API != "https://api.github.com/" || len(e.Graph().Services()) != 0 {
		t.Fatalf("without --demo: %q, %v, services %+v", cmd.API, err, e.Graph().Services())
	}
	m.Demo = true
	cmd, err := m.githubCommand(ctx)
	services := e.Graph().Services()
	if err != nil || len(services) != 1 || !services[0].Started {
		t.Fatalf("--demo: %v, services %+v", err, services)
	}
	// The GitHub command reaches the demo's API bound to its container, through its own
	// forwarder; this process forwards to the demo's PyPI only.
	if cmd.API != "http://shipyard-demo:8080/" {
		t.Errorf("--demo: the GitHub command reaches %q", cmd.API)
	}
	_, err = m.demoPyPI(ctx)
	if err == nil || !regexp.MustCompile(`service at svc-[0-9a-f]+:8081 is not reachable`).MatchString(err.Error()) {
		t.Fatalf("--demo: err = %v", err)
	}
	if builds := e.Graph().ExecsWith("go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /shipyard-demo/"); len(builds) != 1 {
		t.Fatalf("the demo server was built %d times", len(builds))
	}
}

// A token has no use against the demo and would go to a server that is not GitHub: --demo
// refuses it before starting anything.
func TestDemoRefusesAToken(t *testing.T) {
	t.Parallel()
	m, e := newModule(t, nil)
	m.Demo = true
	m.GithubToken = m.engine().SetSecret("token", "ghp_demo0SECRET")
	_, err := m.ReleasePlan(context.Background(), "v0.11.0", "text", "ci.yml", "")
	if err == nil || !strings.Contains(err.Error(), "drop --github-token") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "ghp_demo0SECRET") || len(e.Graph().Services()) != 0 {
		t.Fatalf("err %v, services %+v", err, e.Graph().Services())
	}
}

var update = flag.Bool("update", false, "rewrite the README's demo output blocks from what the demos print")

// The README's Cloudcoil demo prints exactly what model-versions --check prints for the demo
// Cloudcoil repository and PyPI, served by the demo server's handlers. When model-versions'
// output changes on purpose, `go test -run TestReadmeCloudcoilDemoOutput -update .`
// rewrites the block.
func TestReadmeCloudcoilDemoOutput(t *testing.T) {
	w := demoserver.New(t)
	gh := httptest.NewServer(w.GitHubHandler())
	t.Cleanup(gh.Close)
	pypi := httptest.NewServer(w.PyPI)
	t.Cleanup(pypi.Close)
	// The --demo path itself, with the demo server's handlers served here: the GitHub
	// command reaches them as the demo service bound to its container, without a token or an
	// ETag cache, and PyPI is the demo's whatever --pypi-url says.
	e := engine.New(t, engine.StrictExecs())
	answerGitHub(t, e, "").Serve("shipyard-demo", gh.URL)
	c := e.Client(context.Background())
	m := mustNew(t)(New(nil, "cloudcoil/cloudcoil", nil, "", "docker.io", "elixircloud", "", nil, nil, true))
	demoService := c.Container().WithExposedPort(demo.GitHubPort).AsService()
	m.clients = clients{sdk: c, dag: c, demo: &demo.Endpoints{GitHubAPI: gh.URL + "/", PyPI: pypi.URL + "/", Service: demoService}}
	got, err := m.ModelVersions(context.Background(), true, "text", "main", "https://pypi.org")
	if err != nil {
		t.Fatal(err)
	}
	checkReadmeBlock(t, cloudcoilDemoBlock, got)
}

// cloudcoilDemoBlock is where the README shows the Cloudcoil demo's output: the text block
// right after the line running it.
const cloudcoilDemoBlock = "dagger call --demo --repo cloudcoil/cloudcoil model-versions --check\n```\n\n"

// checkReadmeBlock compares the text block that follows anchor in README.md with got, or
// with -update writes got there.
func checkReadmeBlock(t *testing.T, anchor, got string) {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	before, after, ok := strings.Cut(readme, anchor)
	if !ok {
		t.Fatalf("README.md has no %q", anchor)
	}
	body, ok := strings.CutPrefix(after, "```text\n")
	if !ok {
		t.Fatalf("README.md: no text block right after %q", anchor)
	}
	want, rest, ok := strings.Cut(body, "```")
	if !ok {
		t.Fatalf("README.md: the text block after %q is not closed", anchor)
	}
	got = strings.TrimSpace(got) + "\n"
	if *update {
		if err := os.WriteFile("README.md", []byte(before+anchor+"```text\n"+got+"```"+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if want != got {
		t.Errorf("README.md shows, after %q:\n%s\nthe demo prints:\n%s\n(if the change is intended: go test -run %s -update .)", anchor, want, got, t.Name())
	}
}

// The README's release demo prints exactly what release --dry-run prints with --demo: the
// gates through the demo's GitHub API, then the tagged commit through Dagger's git API from
// the demo's git host, with the demo service named as the fetch's host so the engine starts
// it, and the stop before the build. (The engine double answers the git fetch as the demo's
// git host would: gitserve's tests fetch from that host with the real git CLI.)
func TestReadmeReleaseDemoOutput(t *testing.T) {
	w := demoserver.New(t)
	gh := httptest.NewServer(w.GitHubHandler())
	t.Cleanup(gh.Close)
	git := httptest.NewServer(w.Git)
	t.Cleanup(git.Close)
	e := engine.New(t, engine.StrictExecs())
	answerGitHub(t, e, "").Serve("shipyard-demo", gh.URL)
	c := e.Client(context.Background())
	m := mustNew(t)(New(nil, teskdemo.Owner+"/"+teskdemo.Name, nil, "", "docker.io", "elixircloud", "", nil, nil, true))
	demoService := c.Container().WithExposedPort(demo.GitPort).AsService()
	m.clients = clients{sdk: c, dag: c, demo: &demo.Endpoints{GitHubAPI: gh.URL + "/", Git: git.URL + "/", Service: demoService}}
	sha := w.GitHub.Repo(teskdemo.Owner + "/" + teskdemo.Name).Tag(teskdemo.Tag)
	// The tag resolves to the commit only in a fetch that names the demo service as host.
	e.OnField(engine.FieldRule{Type: "GitRef", Field: "commit", ChainContains: "experimentalServiceHost", Value: sha})
	// The tree's root, as the git host serves it.
	var root []string
	for p := range w.GitHub.Repo(teskdemo.Owner + "/" + teskdemo.Name).Files(sha) {
		if dir, _, nested := strings.Cut(p, "/"); nested {
			p = dir + "/"
		}
		if !slices.Contains(root, p) {
			root = append(root, p)
		}
	}
	e.OnEntries(engine.DirRule{Path: ".", ChainContains: `commit(id:"` + sha + `")`, Entries: root})

	got, err := m.Release(context.Background(), teskdemo.Tag, true, "text", "ci.yml", "", "")
	if err != nil {
		t.Fatal(err)
	}
	refs := e.Graph().GitRefs()
	wantURL := git.URL + "/" + teskdemo.Owner + "/" + teskdemo.Name + ".git"
	if want := []engine.GitRef{{URL: wantURL, Kind: "commit", Name: sha}, {URL: wantURL, Kind: "tag", Name: teskdemo.Tag}}; !slices.Equal(refs, want) {
		t.Errorf("git refs %+v, want %+v: the tag, then its commit fetched, from the demo's git host", refs, want)
	}
	if !strings.Contains(got, sha) {
		t.Errorf("the report does not name the tagged commit %s:\n%s", sha, got)
	}
	checkReadmeBlock(t, releaseDemoBlock, got)
}

// releaseDemoBlock is where the README shows the release demo's output.
const releaseDemoBlock = "dagger call --demo release --tag v0.11.0 --dry-run\n```\n\n"

// With --demo the release runs only as a dry run, and no workflow job runs at all: each
// publishes, or scans what a job before it published. Each refuses before anything
// starts, given arguments it would otherwise accept: with demo.ErrWrites when its
// declaration says it writes (the module's boundary, for every such function), and the
// one that writes nothing, release-scan, with demo.ErrRelease.
func TestDemoReleaseRefusesToPublish(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const tag = teskdemo.Tag
	image := publish.Pushed{Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: "sha256:" + strings.Repeat("b", 64)}
	handoff := release.Handoff{Repo: teskdemo.Owner + "/" + teskdemo.Name, Tag: tag, Version: "0.11.0", Commit: strings.Repeat("a", 40), Images: []publish.Pushed{image}}
	pushed := mustJSON(t)(handoff.JSON())
	platform := mustJSON(t)(publish.PlatformHandoff{Repo: handoff.Repo, Tag: tag, Version: handoff.Version, Commit: handoff.Commit,
		PlatformPush: publish.PlatformPush{Platform: "linux/amd64", Images: []publish.Pushed{image}}}.JSON())
	platforms := "[" + strings.TrimSpace(platform) + "]"
	calls := []struct {
		fn   string
		call func(m *Shipyard) error
	}{
		{"release", func(m *Shipyard) error {
			_, err := m.Release(ctx, tag, false, "text", "ci.yml", "", "")
			return err
		}},
		{"release-push", func(m *Shipyard) error {
			_, err := m.ReleasePush(ctx, tag, "ci.yml", "", "")
			return err
		}},
		{"release-push-platform", func(m *Shipyard) error {
			_, err := m.ReleasePushPlatform(ctx, tag, "linux/amd64", "ci.yml", "", "")
			return err
		}},
		{"release-assemble", func(m *Shipyard) error {
			_, err := m.ReleaseAssemble(ctx, tag, platforms, "ci.yml")
			return err
		}},
		{"release-scan", func(m *Shipyard) error {
			_, err := m.ReleaseScan(ctx, pushed, "")
			return err
		}},
		{"release-scan", func(m *Shipyard) error { // the platform images, before their indexes exist
			_, err := m.ReleaseScan(ctx, platforms, "")
			return err
		}},
		{"release-publish", func(m *Shipyard) error {
			_, err := m.ReleasePublish(ctx, pushed, pushed, "json", "ci.yml", "")
			return err
		}},
		{"release-publish-release", func(m *Shipyard) error {
			_, err := m.ReleasePublishRelease(ctx, tag, "text", "ci.yml")
			return err
		}},
	}
	for _, c := range calls {
		m, e := newModule(t, nil)
		m.Demo = true
		err := c.call(m)
		d, derr := functions.Of(c.fn)
		if derr != nil {
			t.Fatal(derr)
		}
		want := demo.ErrRelease
		if d.Trust.Writes() {
			want = demo.ErrWrites
		}
		if !errors.Is(err, want) {
			t.Errorf("%s: err = %v, want %v", c.fn, err, want)
		}
		if len(e.Graph().Services()) != 0 || len(e.Graph().Execs()) != 0 {
			t.Errorf("%s: services %+v, execs %+v", c.fn, e.Graph().Services(), e.Graph().Execs())
		}
	}
}

// mustJSON returns a handoff's JSON, failing t if it cannot be rendered.
func mustJSON(t *testing.T) func(string, error) string {
	return func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// The demo's tag is fetched from the demo's git host only: --git-url would fetch another
// repository than the one the gates checked.
func TestDemoReleaseRefusesAGitURL(t *testing.T) {
	t.Parallel()
	w := demoserver.New(t)
	gh := httptest.NewServer(w.GitHubHandler())
	t.Cleanup(gh.Close)
	m, e := newModule(t, nil)
	m.Demo = true
	m.clients.demo = &demo.Endpoints{GitHubAPI: gh.URL + "/", Git: "http://demo:8082/"}
	_, err := m.Release(context.Background(), "v0.11.0", true, "text", "ci.yml", "", "https://github.com/elixir-cloud-aai/tesk-core.git")
	if err == nil || !strings.Contains(err.Error(), "drop --git-url") {
		t.Fatalf("err = %v", err)
	}
	if refs := e.Graph().GitRefs(); len(refs) != 0 {
		t.Fatalf("git refs %+v", refs)
	}
}

// The demo's dry run stops before a step the release declares: internal/demo cannot import
// the release, so it names the build step itself.
func TestDemoStopsBeforeTheReleaseBuild(t *testing.T) {
	t.Parallel()
	stop, err := demo.Release("release", true)
	if err != nil || stop.Before != release.StepBuild {
		t.Fatalf("demo.Release = %+v, %v; want a stop before %q", stop, err, release.StepBuild)
	}
}
