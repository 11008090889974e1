package demoserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func get(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// Answers name the address the client used, in bodies and in pagination links, never the
// simulator's own loopback port; reads need no token.
func TestGitHubAnswersNameTheAddressUsed(t *testing.T) {
	t.Parallel()
	w := New(t)
	srv := httptest.NewServer(w.GitHubHandler())
	t.Cleanup(srv.Close)

	resp, body := get(t, srv.URL+"/repos/elixir-cloud-aai/tesk-core")
	var repo struct {
		URL string `json:"url"`
	}
	if err := json.Unmarshal([]byte(body), &repo); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v: %s", resp.StatusCode, err, body)
	}
	if repo.URL != srv.URL+"/repos/elixir-cloud-aai/tesk-core" || strings.Contains(body, w.GitHub.URL) {
		t.Fatalf("url %q (simulator at %s)", repo.URL, w.GitHub.URL)
	}
	if got, want := resp.Header.Get("Content-Length"), strconv.Itoa(len(body)); got != "" && got != want {
		t.Fatalf("Content-Length %s for %s bytes", got, want)
	}

	resp, _ = get(t, srv.URL+"/repos/kubernetes/kubernetes/releases?per_page=2")
	link := resp.Header.Get("Link")
	if !strings.Contains(link, srv.URL+"/repos/kubernetes/kubernetes/releases?") || strings.Contains(link, w.GitHub.URL) {
		t.Fatalf("Link %q", link)
	}
}

// The demo Cloudcoil repository has the real repository's layout, and the demo PyPI
// Cloudcoil's releases.
func TestCloudcoilDemo(t *testing.T) {
	t.Parallel()
	w := New(t)
	gh := httptest.NewServer(w.GitHubHandler())
	t.Cleanup(gh.Close)
	for _, p := range []string{"models/upstreams.json", "models/keda/cookiecutter.yaml", "models/keda/pyproject.toml",
		"models/keda/README.md", "cookiecutter/cookiecutter.json", "cookiecutter/models-%7B%7B%20cookiecutter.model_name%20%7D%7D/pyproject.toml",
		"cookiecutter/hooks/post_gen_project.sh", "Makefile", "pyproject.toml"} {
		if resp, body := get(t, gh.URL+"/repos/"+CloudcoilOwner+"/"+CloudcoilName+"/contents/"+p+"?ref=main"); resp.StatusCode != 200 {
			t.Errorf("the demo Cloudcoil repository lacks %s: %d %s", p, resp.StatusCode, body)
		}
	}
	for _, upstream := range []string{"kubernetes/kubernetes", "kedacore/keda", "cert-manager/cert-manager"} {
		if resp, body := get(t, gh.URL+"/repos/"+upstream+"/releases"); resp.StatusCode != 200 || !strings.Contains(body, `"tag_name"`) {
			t.Errorf("%s releases: %d %s", upstream, resp.StatusCode, body)
		}
	}
	srv := httptest.NewServer(w.PyPI)
	t.Cleanup(srv.Close)
	resp, body := get(t, srv.URL+"/pypi/cloudcoil/json")
	if resp.StatusCode != 200 || !strings.Contains(body, `"0.6.0"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}
