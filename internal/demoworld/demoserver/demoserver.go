// Package demoserver is the demo world behind `--demo`: in the GitHub simulator, answering
// reads without a token, the demo tesk-core repository (package teskdemo, also served over
// git by package gitserve) and a demo
// Cloudcoil generator repository (the real repository's layout with small made-up
// content, in cloudcoil/) with its upstreams' releases; in the PyPI simulator, Cloudcoil's
// releases. cmd/demo-server serves it; the module builds
// that command from its own source and runs it as a Dagger service (package demo), so the
// demo needs no server outside the engine. Tests seed the same world, so the README's
// sample output is checked against exactly what the service answers.
package demoserver

import (
	"bytes"
	"embed"
	"io"
	"io/fs"
	"log"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/gitserve"
	"dagger/shipyard/internal/demoworld/pypisim"
	"dagger/shipyard/internal/demoworld/teskdemo"
)

// World is the seeded simulators.
type World struct {
	GitHub *githubsim.Server
	PyPI   *pypisim.Server
	// Git serves the demo tesk-core repository over git, as GitHub's git host does: the
	// release fetches its tagged commit there.
	Git http.Handler
}

// New starts the GitHub simulator on a loopback port (closed when tb ends) and seeds both
// simulators. Seeding is deterministic: every start answers the same SHAs. opts add to the
// simulator's options (the served program opts out of the API description check, which
// only a test can act on).
func New(tb testing.TB, opts ...githubsim.Option) *World {
	opts = append([]githubsim.Option{githubsim.WithAnonymousReads()}, opts...)
	w := &World{GitHub: githubsim.New(tb, opts...), PyPI: pypisim.NewServer()}
	w.Git = gitserve.Handler(teskdemo.Seed(w.GitHub, teskdemo.Notes))
	w.seedCloudcoil(tb)
	return w
}

// The demo Cloudcoil repository.
const (
	CloudcoilOwner = "cloudcoil"
	CloudcoilName  = "cloudcoil"
)

//go:embed all:cloudcoil
var cloudcoilTree embed.FS

// upstreamReleases are the demo's upstream releases, oldest first: a patch and a new minor
// of cert-manager, a patch of KEDA, patches and a new minor (and its pre-release, never
// proposed) of Kubernetes.
var upstreamReleases = map[string][]string{
	"cert-manager/cert-manager": {"v1.16.2", "v1.16.3", "v1.17.0"},
	"kedacore/keda":             {"v2.16.0", "v2.16.1"},
	"kubernetes/kubernetes":     {"v1.31.4", "v1.32.0", "v1.31.5", "v1.32.1", "v1.33.0-rc.0", "v1.33.0"},
}

// cloudcoilReleases are Cloudcoil's releases on the demo PyPI: a patch of the pinned minor
// and a new minor.
var cloudcoilReleases = []string{"0.5.2", "0.5.3", "0.5.4", "0.6.0"}

func (w *World) seedCloudcoil(tb testing.TB) {
	files := map[string]string{}
	err := fs.WalkDir(cloudcoilTree, "cloudcoil", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(cloudcoilTree, p)
		files[strings.TrimPrefix(p, "cloudcoil/")] = string(b)
		return err
	})
	if err != nil {
		tb.Fatalf("the demo Cloudcoil repository: %v", err)
	}
	repo := w.GitHub.AddRepo(CloudcoilOwner, CloudcoilName)
	repo.CommitOnBranch("main", "feat: model sources", files)
	for _, full := range slices.Sorted(maps.Keys(upstreamReleases)) { // the same IDs every start
		owner, name, _ := strings.Cut(full, "/")
		r := w.GitHub.AddRepo(owner, name)
		for _, tag := range upstreamReleases[full] {
			r.AddRelease(githubsim.Release{TagName: tag, Prerelease: strings.Contains(tag, "-")})
		}
	}
	for _, v := range cloudcoilReleases {
		w.PyPI.AddRelease("cloudcoil", v)
	}
}

// GitHubHandler answers as the GitHub simulator does, with the links in its answers
// (pagination, API URLs) naming the address the request was sent to: a Dagger service's
// hostname is known only to its clients.
func (w *World) GitHubHandler() http.Handler { return rebasing(w.GitHub.URL) }

// rebasing proxies to target and replaces target in the answer's headers and body with
// the scheme and host the client addressed.
func rebasing(target string) http.Handler {
	u, err := url.Parse(target)
	if err != nil {
		panic(err) // the simulator's own httptest URL
	}
	const publicHeader = "X-Demo-Public-Base"
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Header.Set(publicHeader, "http://"+pr.In.Host)
			pr.Out.Header.Del("Accept-Encoding") // the body is rewritten as text
		},
		ModifyResponse: func(resp *http.Response) error {
			public := resp.Request.Header.Get(publicHeader)
			for _, values := range resp.Header {
				for i, v := range values {
					values[i] = strings.ReplaceAll(v, target, public)
				}
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			body = bytes.ReplaceAll(body, []byte(target), []byte(public))
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
			return nil
		},
	}
}

// Program lets the simulators, written for tests, run in a program: a failure ends it.
type Program struct{ testing.TB }

func (Program) Helper()                           {}
func (Program) Cleanup(func())                    {}
func (Program) Name() string                      { return "demo-server" }
func (Program) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (Program) Fatal(args ...any)                 { log.Fatal(args...) }
func (Program) Errorf(format string, args ...any) { log.Printf(format, args...) }
func (Program) Logf(format string, args ...any)   { log.Printf(format, args...) }
