package release

import (
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

func TestPackageName(t *testing.T) {
	tests := []struct {
		name, pyproject, want, err string
	}{
		{name: "double quotes", pyproject: "[build-system]\nrequires = []\n\n[project]\nname = \"teskcore\"\nversion = \"1\"\n", want: "teskcore"},
		{name: "single quotes and a comment", pyproject: "[project]\nname = 'tesk-core'  # the distribution\n", want: "tesk-core"},
		{name: "name of another table first", pyproject: "[tool.poetry]\nname = \"other\"\n[project]\nname = \"teskcore\"\n", want: "teskcore"},
		{name: "no project table", pyproject: "[tool.setuptools]\nname = \"x\"\n", err: "no [project] name"},
		{name: "an array of tables is not the project", pyproject: "[[project]]\nname = \"x\"\n", err: "no [project] name"},
		{name: "dotted key", pyproject: "project.name = \"teskcore\"\n", want: "teskcore"},
		{name: "malformed TOML names file and line", pyproject: "[project]\nname = \"teskcore\n", err: "pyproject.toml:2:"},
		{name: "not a distribution name", pyproject: "[project]\nname = \"tesk core; rm -rf /\"\n", err: "is not a distribution name"},
	}
	for _, tt := range tests {
		got, err := PackageName(tt.pyproject)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %q, %v; want error %q", tt.name, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestReleaseDifference(t *testing.T) {
	plan := releasegate.Plan{Tag: "v0.11.0", Prerelease: true}
	body := Body{Title: "v0.11.0", Text: "Intro.\n\n## Commits\n\n* a\n"}
	tests := []struct {
		name     string
		existing github.Release
		want     []string
	}{
		{name: "same", existing: github.Release{Name: "v0.11.0", Body: "Intro.\r\n\r\n## Commits\r\n\r\n* a", Prerelease: true}},
		{name: "edited body", existing: github.Release{Name: "v0.11.0", Body: "Intro!\n", Prerelease: true}, want: []string{`the body differs from line 1: "Intro!", expected "Intro."`}},
		{name: "not a pre-release", existing: github.Release{Name: "v0.11.0", Body: body.Text}, want: []string{"pre-release false, expected true"}},
		{name: "a draft under another title", existing: github.Release{Name: "0.11.0", Body: body.Text, Prerelease: true, Draft: true}, want: []string{"it is a draft", `title "0.11.0", expected "v0.11.0"`}},
	}
	for _, tt := range tests {
		got := ReleaseDifference(tt.existing, plan, body)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestParseHandoff(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	digest := "sha256:" + strings.Repeat("a", 64)
	good := `{"repo":"o/r","tag":"v1.0.0","version":"1.0.0","commit":"` + commit + `","images":[{"name":"filer","repository":"docker.io/o/tesk-core-filer","digest":"` + digest + `"}]}`
	tests := []struct {
		name, data, err string
	}{
		{name: "good", data: good},
		{name: "unknown field", data: strings.Replace(good, `"repo"`, `"extra":1,"repo"`, 1), err: "unknown field"},
		{name: "short commit", data: strings.Replace(good, commit, "0123456", 1), err: "not a full commit SHA"},
		{name: "a tag instead of a digest", data: strings.Replace(good, digest, "latest", 1), err: "not one pushed image by digest"},
		{name: "no images", data: `{"repo":"o/r","tag":"v1.0.0","version":"1.0.0","commit":"` + commit + `","images":[]}`, err: "lists no pushed image"},
		{name: "not JSON", data: "digests: none", err: "reading the handoff"},
		{name: "a name twice", data: strings.Replace(good, `}]}`, `},{"name":"filer","repository":"docker.io/o/tesk-core-taskmaster","digest":"`+digest+`"}]}`, 1), err: "lists image filer twice"},
		{name: "a repository twice", data: strings.Replace(good, `}]}`, `},{"name":"taskmaster","repository":"docker.io/o/tesk-core-filer","digest":"`+digest+`"}]}`, 1), err: "lists repository docker.io/o/tesk-core-filer twice"},
	}
	for _, tt := range tests {
		h, err := ParseHandoff(tt.data)
		if tt.err == "" {
			if err != nil || h.Images[0].Ref() != "docker.io/o/tesk-core-filer@"+digest {
				t.Errorf("%s: %+v, %v", tt.name, h, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestHandoffTiedToImagesAndPush(t *testing.T) {
	const commit = "0123456789abcdef0123456789abcdef01234567"
	d1, d2 := "sha256:"+strings.Repeat("1", 64), "sha256:"+strings.Repeat("2", 64)
	target := publish.Target{Registry: "docker.io", Org: "o"}
	img := func(n string) publish.Artifact { return publish.Artifact{Name: n, Repository: "tesk-core-" + n} }
	images := []publish.Artifact{img("filer"), img("taskmaster")}
	h := Handoff{Repo: "o/r", Tag: "v1.0.0", Version: "1.0.0", Commit: commit, Images: []publish.Pushed{
		{Name: "filer", Repository: "docker.io/o/tesk-core-filer", Digest: d1},
		{Name: "taskmaster", Repository: "docker.io/o/tesk-core-taskmaster", Digest: d2},
	}}
	with := func(f func(h *Handoff)) Handoff {
		c := h
		c.Images = slices.Clone(h.Images)
		f(&c)
		return c
	}
	swapped := with(func(c *Handoff) {
		c.Images[0].Repository, c.Images[1].Repository = c.Images[1].Repository, c.Images[0].Repository
	})
	tests := []struct {
		name          string
		h, pushed     Handoff
		tied, samePsh string // error texts; "" means no error
	}{
		{"as pushed", h, h, "", ""},
		{"swapped repositories", swapped, h, "puts image filer in docker.io/o/tesk-core-taskmaster, but it is published to docker.io/o/tesk-core-filer", "is not what the push job pushed"},
		{"an image the source does not build", with(func(c *Handoff) { c.Images[1].Name = "api" }), h, "image api is not built from v1.0.0", "is not what the push job pushed"},
		{"another digest than pushed", with(func(c *Handoff) { c.Images[0].Digest = d2 }), h, "", "docker.io/o/tesk-core-filer@" + d2 + " (filer) is not what the push job pushed"},
		{"an image dropped", with(func(c *Handoff) { c.Images = c.Images[:1] }), h, "", "which the scan job's handoff lacks"},
		{"another commit", with(func(c *Handoff) { c.Commit = strings.Repeat("f", 40) }), h, "", "the push job's for o/r v1.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for what, pair := range map[string]struct {
				err  error
				want string
			}{
				"tiedTo":   {tt.h.tiedTo(target, images), tt.tied},
				"samePush": {tt.h.samePush(tt.pushed), tt.samePsh},
			} {
				if pair.want == "" && pair.err != nil || pair.want != "" && (pair.err == nil || !strings.Contains(pair.err.Error(), pair.want)) {
					t.Errorf("%s = %v, want %q", what, pair.err, pair.want)
				}
			}
		})
	}
}

func TestSameImages(t *testing.T) {
	plan := releasegate.Plan{Tag: "v1.0.0", Images: []releasegate.Image{{Name: "tesk-core-taskmaster"}, {Name: "tesk-core-filer"}}}
	img := func(n string) ci.Image { return ci.Image{Spec: ci.ImageSpec{Name: n, Repository: "tesk-core-" + n}} }
	if err := sameImages(plan, []ci.Image{img("filer"), img("taskmaster")}); err != nil {
		t.Error(err)
	}
	if err := sameImages(plan, []ci.Image{img("filer"), img("taskmaster"), img("api")}); err == nil || !strings.Contains(err.Error(), "builds tesk-core-api, tesk-core-filer, tesk-core-taskmaster") {
		t.Errorf("an extra image: %v", err)
	}
	if err := sameImages(plan, []ci.Image{img("filer")}); err == nil {
		t.Error("a missing image passed")
	}
}

func TestReportText(t *testing.T) {
	rep := Report{
		Repo: "elixir-cloud-aai/tesk-core", Tag: "v1.0.0", Version: "1.0.0", Commit: "abc", Failed: StepGHRelease,
		Images: []ImageReport{{
			Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: "sha256:1",
			Tags: []string{"1.0.0"}, LatestSkipped: "no longer the highest release: latest left on sha256:0",
			Scan: ScanRecord{Name: "filer", Passed: true}, Signature: "docker.io/elixircloud/tesk-core-filer@sha256:2",
			Attestation: "docker.io/elixircloud/tesk-core-filer@sha256:3",
		}},
		Release: GitHubRelease{Tag: "v1.0.0", Title: "v1.0.0", MakeLatest: "true", Body: "Intro.\n\n## Commits\n"},
	}
	want := "Release v1.0.0 of elixir-cloud-aai/tesk-core (version 1.0.0, commit abc)\n" +
		"  stopped at step publish-release; what was done so far:\n" +
		"  docker.io/elixircloud/tesk-core-filer@sha256:1\n" +
		"    tags:        1.0.0\n" +
		"    latest:      not moved: no longer the highest release: latest left on sha256:0\n" +
		"    scan:        passed\n" +
		"    attestation: docker.io/elixircloud/tesk-core-filer@sha256:3\n" +
		"    signature:   docker.io/elixircloud/tesk-core-filer@sha256:2\n" +
		"  GitHub release \"v1.0.0\" (pre-release no, make_latest true): -\n" +
		"    | Intro.\n    |\n    | ## Commits\n"
	if got := rep.Text(); got != want {
		t.Errorf("Text =\n%s\nwant\n%s", got, want)
	}
}

// TestGitTokenOnlyForGitHub: the GitHub token authenticates the fetch from GitHub's own
// URL, never one given with --git-url, which may be any host.
func TestGitTokenOnlyForGitHub(t *testing.T) {
	token := &dagger.Secret{}
	tests := []struct {
		name  string
		cfg   Config
		token bool
	}{
		{"GitHub's URL with a token", Config{Repo: "elixir-cloud-aai/tesk-core", GitHubToken: token}, true},
		{"another URL with a token", Config{Repo: "elixir-cloud-aai/tesk-core", GitURL: "https://git.example.org/tesk-core.git", GitHubToken: token}, false},
		{"GitHub's URL without a token", Config{Repo: "elixir-cloud-aai/tesk-core"}, false},
	}
	for _, tt := range tests {
		if got := tt.cfg.gitToken() != nil; got != tt.token {
			t.Errorf("%s: token given %t, want %t", tt.name, got, tt.token)
		}
	}
}
