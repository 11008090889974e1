//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/remote"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// The release's push split by platform on a real engine, as the workflow's native runners
// run it: release-push-platform once per platform (arm64 under the engine's emulator here),
// then release-assemble with both outputs, which pushes each image's index of the platform
// images to the local registry. The index lists exactly the platform jobs' images, and
// release-push, building every platform in one call from the same engine's builds, hands
// over the same indexes.
func TestReleasePushSplitByPlatform(t *testing.T) {
	t.Parallel()
	sim := githubsim.New(t)
	sim.AddToken(ghToken, githubsim.Token{PushAccess: true})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	gitURL, sha := teskCoreGit(t, repo)
	api := publishGitHubStable(t, sim)

	const password = "realengine0split0SECRET"
	env := map[string]string{"GHTOKEN": ghToken, "REGPASS": password}
	ctor := append(ghArgs(api), "--registry", registryHost, "--org", "shipyard-test-split",
		"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go="+baseImage)

	type pushed struct {
		Name       string `json:"name"`
		Repository string `json:"repository"`
		Digest     string `json:"digest"`
		Platforms  []struct {
			Platform string `json:"platform"`
			Digest   string `json:"digest"`
		} `json:"platforms"`
	}
	var outputs []string
	platformImages := map[string]map[string]string{} // image → platform → digest
	for _, platform := range []string{"linux/amd64", "linux/arm64"} {
		out := strings.TrimSpace(call(t, env, append(ctor, "release-push-platform", "--tag", "v0.11.0",
			"--platform", platform, "--git-url", gitURL)...))
		var h struct {
			Commit   string   `json:"commit"`
			Platform string   `json:"platform"`
			Images   []pushed `json:"images"`
		}
		if err := json.Unmarshal([]byte(out), &h); err != nil || h.Platform != platform || h.Commit != sha || len(h.Images) != 2 {
			t.Fatalf("release-push-platform --platform %s printed %s (%v)", platform, out, err)
		}
		for _, img := range h.Images {
			if len(img.Platforms) != 0 {
				t.Errorf("%s: %s was pushed as an index", platform, img.Name)
			}
			if platformImages[img.Name] == nil {
				platformImages[img.Name] = map[string]string{}
			}
			platformImages[img.Name][platform] = img.Digest
		}
		outputs = append(outputs, out)
	}

	assembled := strings.TrimSpace(call(t, env, append(ctor, "release-assemble", "--tag", "v0.11.0",
		"--pushed", "["+strings.Join(outputs, ",")+"]")...))
	var h struct {
		Commit string   `json:"commit"`
		Images []pushed `json:"images"`
	}
	if err := json.Unmarshal([]byte(assembled), &h); err != nil || h.Commit != sha || len(h.Images) != 2 {
		t.Fatalf("release-assemble printed %s (%v)", assembled, err)
	}
	for _, img := range h.Images {
		// The registry's index lists the platform jobs' images, each for its platform.
		checkIndex(t, "127.0.0.1:"+registryPort+"/shipyard-test-split/tesk-core-"+img.Name+"@"+img.Digest)
		if len(img.Platforms) != 2 {
			t.Fatalf("%s: the assembled handoff lists %d platform(s)", img.Name, len(img.Platforms))
		}
		for _, p := range img.Platforms {
			if want := platformImages[img.Name][p.Platform]; p.Digest != want {
				t.Errorf("%s: the index lists %s for %s, the platform job pushed %s", img.Name, p.Digest, p.Platform, want)
			}
		}
	}
	if strings.Contains(assembled+strings.Join(outputs, ""), password) {
		t.Error("the registry password reached an output")
	}

	// One call building every platform, on the same engine and so from the same builds.
	single := strings.TrimSpace(call(t, env, append(ctor, "release-push", "--tag", "v0.11.0", "--git-url", gitURL)...))
	if single != assembled {
		t.Errorf("release-push printed\n%s\nrelease-assemble\n%s", single, assembled)
	}
}

// checkedOut is imageProject as the dev workflow checks it out: one commit of Git history,
// which the platform jobs name (Directory.asGit) and assemble-index checks. It returns the
// folder and the commit.
func checkedOut(t *testing.T) (string, string) {
	t.Helper()
	src := imageProject(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), gitIdentity("Dev", "dev@example.org")...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "dev")
	git("add", "-A")
	git("commit", "-q", "-m", "feat: images")
	return src, git("rev-parse", "HEAD")
}

// The dev push split by platform on a real engine, as ci.yml's native runners run it for
// one image: push-platform-by-digest once per platform (arm64 under the engine's emulator
// here), each naming the checkout's commit, then assemble-index with both outputs, which
// pushes the image's index of the platform images to the local registry and prints, byte
// for byte, what push-by-digest --image prints when one call builds every platform from
// the same engine's builds.
func TestDevPushSplitByPlatform(t *testing.T) {
	t.Parallel()
	src, sha := checkedOut(t)
	const password = "realengine0devsplit0SECRET"
	env := map[string]string{"REGPASS": password}
	ctor := []string{"--source", src, "--registry", registryHost, "--org", "shipyard-test-devsplit",
		"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go=" + baseImage}

	var outputs []string
	platformImages := map[string]string{} // platform → digest
	for _, platform := range []string{"linux/amd64", "linux/arm64"} {
		out := call(t, env, append(ctor, "push-platform-by-digest", "--platform", platform, "--image", "filer")...)
		var p struct {
			Commit   string `json:"commit"`
			Platform string `json:"platform"`
			Images   []struct {
				Name      string `json:"name"`
				Digest    string `json:"digest"`
				Platforms []any  `json:"platforms"`
			} `json:"images"`
		}
		if err := json.Unmarshal([]byte(out), &p); err != nil || p.Commit != sha || p.Platform != platform ||
			len(p.Images) != 1 || p.Images[0].Name != "filer" || len(p.Images[0].Platforms) != 0 {
			t.Fatalf("push-platform-by-digest --platform %s printed %s (%v), want the filer image of commit %s alone", platform, out, err, sha)
		}
		platformImages[platform] = p.Images[0].Digest
		outputs = append(outputs, strings.TrimSpace(out))
	}

	assembled := call(t, env, append(ctor, "assemble-index", "--image", "filer", "--pushed", "["+strings.Join(outputs, ",")+"]")...)
	var digests map[string]string
	if err := json.Unmarshal([]byte(assembled), &digests); err != nil || len(digests) != 1 || digests["filer"] == "" {
		t.Fatalf("assemble-index printed %q (%v)", assembled, err)
	}
	repo, digest, _ := strings.Cut(digests["filer"], "@")
	if repo != registryHost+"/shipyard-test-devsplit/tesk-core-filer" {
		t.Errorf("assemble-index printed %s, want filer in its repository", digests["filer"])
	}
	ref := "127.0.0.1:" + registryPort + "/shipyard-test-devsplit/tesk-core-filer@" + digest
	checkIndex(t, ref)
	idx, err := remote.Index(mustRef(t, ref))
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range m.Manifests {
		if p := d.Platform.String(); platformImages[p] != d.Digest.String() {
			t.Errorf("the index lists %s for %s, the platform job pushed %s", d.Digest, p, platformImages[p])
		}
	}
	if len(m.Manifests) != 2 {
		t.Errorf("the index lists %d images, want 2", len(m.Manifests))
	}
	if strings.Contains(assembled+strings.Join(outputs, ""), password) {
		t.Error("the registry password reached an output")
	}

	// One call building every platform, on the same engine and so from the same builds.
	single := call(t, env, append(ctor, "push-by-digest", "--image", "filer")...)
	if single != assembled {
		t.Errorf("push-by-digest --image filer printed\n%q\nassemble-index\n%q", single, assembled)
	}
}
