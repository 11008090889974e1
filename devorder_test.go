package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// A re-run of an older dev run's tag step must not move dev back: dev follows the newest
// commit of the dev branch, as latest follows the highest release.
func TestTagImagesNeverMovesDevBackToAnOlderCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	sim := githubsim.New(t, githubsim.WithAnonymousReads())
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	older := repo.CommitOnBranch("dev", "fix: retry uploads", map[string]string{"README.md": "1\n"})
	newer := repo.CommitOnBranch("dev", "feat: stream logs", map[string]string{"README.md": "2\n"})
	job := func() *Shipyard {
		m, _ := publishModule(t, w, true)
		m.GithubAPI = sim.URL + "/"
		m.GithubToken = nil // this simulator reads anonymously and knows no token
		return m
	}
	devOf := func(name string) string { return w.Registry.Tags(t, repoOf(w, name))["dev"] }

	// The older commit's run pushes and tags; then the newer commit's run does.
	oldDigests, err := job().PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job().TagImages(ctx, oldDigests, []string{"sha-" + older, "dev"}); err != nil {
		t.Fatal(err)
	}
	w.Rebuild("filer")
	w.Rebuild("taskmaster")
	newDigests, err := job().PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job().TagImages(ctx, newDigests, []string{"sha-" + newer, "dev"}); err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal([]byte(newDigests), &want); err != nil {
		t.Fatal(err)
	}
	if got := devOf("filer"); got != digestIn(want["filer"]) {
		t.Fatalf("dev on %s after the newer commit's run, want %s", got, want["filer"])
	}

	// "Re-run all jobs" of the older run: its commit tag is kept, dev stays on the newer image.
	out, err := job().TagImages(ctx, oldDigests, []string{"sha-" + older, "dev"})
	if err != nil {
		t.Fatalf("the re-run failed: %v", err)
	}
	for _, n := range []string{"filer", "taskmaster"} {
		if got := devOf(n); got != digestIn(want[n]) {
			t.Errorf("%s: the re-run of the older commit moved dev back to %s (want %s)", n, got, want[n])
		}
	}
	if !strings.Contains(out, "a newer commit of dev") {
		t.Errorf("the report does not say why dev stayed:\n%s", out)
	}

	// dev without the commit's tag has no place in the order: refused before any write.
	if _, err := job().TagImages(ctx, oldDigests, []string{"dev"}); err == nil || !strings.Contains(err.Error(), "sha-<full commit SHA>") {
		t.Errorf("dev alone: %v", err)
	}
	// A commit that is not on dev never moves it.
	feature := repo.CommitOnBranch("feature", "wip", map[string]string{"README.md": "3\n"})
	w.Rebuild("filer")
	w.Rebuild("taskmaster")
	featureDigests, err := job().PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out, err = job().TagImages(ctx, featureDigests, []string{"sha-" + feature, "dev"})
	if err != nil || devOf("filer") != digestIn(want["filer"]) || !strings.Contains(out, "is not on the dev branch") {
		t.Errorf("a commit off dev: dev on %s, %v\n%s", devOf("filer"), err, out)
	}
}

// Where dev does not exist yet, creating it is rechecked as moving it is: a commit that is
// not on the dev branch never creates dev, and one that is does.
func TestTagImagesCreatesDevOnlyForACommitOnDev(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	sim := githubsim.New(t, githubsim.WithAnonymousReads())
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	onDev := repo.CommitOnBranch("dev", "fix: retry uploads", map[string]string{"README.md": "1\n"})
	feature := repo.CommitOnBranch("feature", "wip", map[string]string{"README.md": "2\n"})
	job := func() *Shipyard {
		m, _ := publishModule(t, w, true)
		m.GithubAPI = sim.URL + "/"
		m.GithubToken = nil // this simulator reads anonymously and knows no token
		return m
	}
	devOf := func(name string) string { return w.Registry.Tags(t, repoOf(w, name))["dev"] }

	digests, err := job().PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := job().TagImages(ctx, digests, []string{"sha-" + feature, "dev"})
	if err != nil || devOf("filer") != "" || !strings.Contains(out, "is not on the dev branch") {
		t.Errorf("a commit off dev: dev on %q, %v\n%s", devOf("filer"), err, out)
	}
	if _, err := job().TagImages(ctx, digests, []string{"sha-" + onDev, "dev"}); err != nil {
		t.Fatal(err)
	}
	var want map[string]string
	if err := json.Unmarshal([]byte(digests), &want); err != nil {
		t.Fatal(err)
	}
	if got := devOf("filer"); got != digestIn(want["filer"]) {
		t.Errorf("a commit on dev: dev on %q, want %s", got, want["filer"])
	}
}

// With --github-token, the GitHub command reads dev's order as that token: given to it as a
// secret file (the test kit fails an exec that carries a secret in an argument or a
// variable), on a simulator that answers no anonymous read.
func TestTagImagesReadsDevOrderWithTheToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	const token = "ghp_tagimagesdevordertoken000000000000"
	sim := githubsim.New(t)
	sim.AddToken(token, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	onDev := repo.CommitOnBranch("dev", "fix: retry uploads", map[string]string{"README.md": "1\n"})
	m, _ := publishModule(t, w, true)
	m.GithubAPI = sim.URL + "/"
	w.SetSecret("github-token", token)
	m.GithubToken = m.engine().SetSecret("github-token", token)
	digests, err := m.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.TagImages(ctx, digests, []string{"sha-" + onDev, "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, token) {
		t.Error("the token is in the output")
	}
	if got := w.Registry.Tags(t, repoOf(w, "filer"))["dev"]; got == "" {
		t.Errorf("dev was not written for dev's head, read as the token:\n%s", out)
	}
	if used := sim.RateLimit(token).Used; used == 0 {
		t.Error("the simulator saw no request with the token")
	}
}

// What tag-images refuses before it runs anything: a malformed --repo, the user's to fix
// (the command would call it a usage error of Shipyard's), and --demo, which no function
// that writes runs but as a dry run (demo.Writes, at the boundary).
func TestTagImagesRefusesBeforeAnyExec(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	pusher, _ := publishModule(t, w, true)
	digests, err := pusher.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		set     func(*Shipyard)
		wantErr string
	}{
		{name: "a malformed --repo", set: func(m *Shipyard) { m.Repo = "tesk-core" }, wantErr: "--repo"},
		{name: "--demo", set: func(m *Shipyard) { m.Demo = true }, wantErr: "tag-images: --demo runs nothing that writes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, e := publishModule(t, w, true)
			tt.set(m)
			_, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA, "dev"})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "a bug of Shipyard's") {
				t.Errorf("the user's mistake is called Shipyard's: %v", err)
			}
			for _, cmd := range []string{"github call", "github batch", "registry plan-tags", "registry apply-tags"} {
				if runs := e.Graph().ExecsWith(cmd); len(runs) > 0 {
					t.Errorf("ran %s before refusing: %q", cmd, runs[0].Args)
				}
			}
			if tags := w.Registry.Tags(t, repoOf(w, "filer")); len(tags) > 0 {
				t.Errorf("tags written: %v", tags)
			}
		})
	}
}

// digestIn is the digest of a reference by digest, as push-by-digest prints each image.
func digestIn(ref string) string {
	_, d, _ := strings.Cut(ref, "@")
	return d
}
