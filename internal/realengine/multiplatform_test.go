//go:build realengine

package realengine

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// machines are what uname -m says on each platform the suite builds for.
var machines = map[string]string{"linux/amd64": "x86_64", "linux/arm64": "aarch64"}

// Multi-platform images on a real engine: with-platforms builds each image for linux/amd64
// natively and for linux/arm64 under the engine's emulator (the build step really runs as
// arm64), push-by-digest publishes each image as one OCI image index, and scan-digests
// scans what was pushed.
func TestMultiPlatformImages(t *testing.T) {
	t.Parallel()
	src := imageProject(t)

	both := []string{"--source", src, "with-platforms", "--platform", "linux/amd64", "--platform", "linux/arm64"}
	// The containers are lazy: this loads the module and builds nothing, so the calls below
	// time the builds alone.
	out := call(t, nil, append(both, "images", "--version", "0.11.0")...)
	if n := strings.Count(out, "Container"); n != 4 {
		t.Errorf("with-platforms images printed %d containers, want 4 (2 images × 2 platforms):\n%s", n, out)
	}

	// Each platform alone, with a version no earlier run used, so the build step runs now
	// (not from the engine's cache) and the log times the native and the emulated build
	// apart; the same call again is the cost of a call that builds nothing.
	fresh := "0.11.0.dev" + strconv.FormatInt(time.Now().UnixNano(), 10)
	for _, platform := range []string{"linux/amd64", "linux/arm64"} {
		args := []string{"--source", src, "with-platforms", "--platform", platform,
			"images", "--version", fresh, "file", "--path", "/opt/tesk/machine", "contents"}
		start := time.Now()
		got := strings.Fields(call(t, nil, args...))
		built := time.Since(start)
		start = time.Now()
		call(t, nil, args...)
		t.Logf("%s: both images built in %.1fs; the same call cached: %.1fs", platform, built.Seconds(), time.Since(start).Seconds())
		if len(got) != 2 {
			t.Fatalf("%s: images printed %d machines, want one per image: %q", platform, len(got), got)
		}
		for _, m := range got {
			if m != machines[platform] {
				t.Errorf("%s: the build step ran on %q, want %q", platform, m, machines[platform])
			}
		}
	}

	// images lists each image's platforms in the order given: amd64, arm64, amd64, arm64.
	platforms := strings.Fields(call(t, nil, append(both, "images", "--version", "0.11.0", "platform")...))
	found := strings.Fields(call(t, nil, append(both, "images", "--version", "0.11.0", "file", "--path", "/opt/tesk/machine", "contents")...))
	versions := strings.Fields(call(t, nil, append(both, "images", "--version", "0.11.0", "file", "--path", "/opt/tesk/version", "contents")...))
	if len(platforms) != 4 || len(found) != 4 || len(versions) != 4 {
		t.Fatalf("want 4 of each: platforms %q, machines %q, versions %q", platforms, found, versions)
	}
	for i, p := range platforms {
		if want := []string{"linux/amd64", "linux/arm64"}[i%2]; p != want {
			t.Errorf("container %d is for %s, want %s", i, p, want)
		}
		if found[i] != machines[p] {
			t.Errorf("the %s container was built on %q, want %q", p, found[i], machines[p])
		}
		if versions[i] != "0.11.0" {
			t.Errorf("the %s container carries version %q", p, versions[i])
		}
	}

	const password = "realengine0registry0SECRET"
	env := map[string]string{"REGPASS": password}
	ctor := []string{"--source", src, "--registry", registryHost, "--org", "shipyard-test-mp",
		"--registry-username", "bot", "--registry-password", "env://REGPASS", "--pin", "go=" + baseImage}
	digests := call(t, env, append(ctor, "with-platforms", "--platform", "linux/amd64", "--platform", "linux/arm64",
		"push-by-digest", "--version", "0.11.0")...)
	var pushed map[string]string
	if err := json.Unmarshal([]byte(strings.TrimSpace(digests)), &pushed); err != nil || len(pushed) != 2 {
		t.Fatalf("push-by-digest printed %q (%v)", digests, err)
	}
	for img, printed := range pushed {
		repo, d, _ := strings.Cut(printed, "@")
		if want := registryHost + "/shipyard-test-mp/tesk-core-" + img; repo != want {
			t.Errorf("push-by-digest printed %s for %s, want it in %s", printed, img, want)
		}
		checkIndex(t, "127.0.0.1:"+registryPort+"/shipyard-test-mp/tesk-core-"+img+"@"+d)
		pushed[img] = d // what the later checks read by digest
	}
	if strings.Contains(digests, password) {
		t.Error("the registry password reached the output")
	}

	// scan-digests on the JSON push-by-digest printed, by real Trivy.
	reports := t.TempDir()
	call(t, nil, "--source", src, "--registry", registryHost, "--org", "shipyard-test-mp", "--pin", "trivy="+trivyImage, "--pin", "go="+baseImage,
		"scan-digests", "--digests", digests, "export", "--path", reports)
	v, err := os.ReadFile(filepath.Join(reports, "verdict.json"))
	if err != nil || !strings.Contains(strings.ReplaceAll(string(v), " ", ""), `"passed":true`) {
		t.Errorf("scan-digests' verdict.json: %s (%v)", v, err)
	}
	entries, err := os.ReadDir(reports)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	sort.Strings(files)
	t.Logf("scan-digests wrote %s", strings.Join(files, " "))
	// The JSON carries each image's index digest; scan-digests reads the platform images
	// the index lists from the registry and scans each by its own digest: Trivy's report
	// names exactly that digest.
	for _, img := range []string{"filer", "taskmaster"} {
		idx, err := remote.Index(mustRef(t, "127.0.0.1:"+registryPort+"/shipyard-test-mp/tesk-core-"+img+"@"+pushed[img]))
		if err != nil {
			t.Fatal(err)
		}
		m, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range m.Manifests {
			platform := d.Platform.OS + "-" + d.Platform.Architecture
			for _, ext := range []string{".json", ".sarif"} {
				if _, err := os.Stat(filepath.Join(reports, img+"-"+platform+ext)); err != nil {
					t.Errorf("scan-digests wrote no %s-%s%s: %v", img, platform, ext, err)
				}
			}
			report := readTrivyJSON(t, filepath.Join(reports, img+"-"+platform+".json"))
			if want := registryHost + "/shipyard-test-mp/tesk-core-" + img + "@" + d.Digest.String(); report.ArtifactName != want {
				t.Errorf("%s %s: Trivy scanned %q, want %q", img, platform, report.ArtifactName, want)
			}
			if platform == "linux-amd64" && !strings.Contains(strings.Join(report.findings(), ","), vulnUnfixedCritical) {
				t.Errorf("%s %s: real Trivy found %q, want the base image's unfixed CRITICAL", img, platform, report.findings())
			}
		}
	}
}

func mustRef(t *testing.T, ref string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkIndex asserts that ref is an OCI image index of a linux/amd64 and a linux/arm64
// image, each of whose config names the platform the index gives it.
func checkIndex(t *testing.T, ref string) {
	t.Helper()
	r, err := name.ParseReference(ref, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(r)
	if err != nil {
		t.Errorf("%s: %v", ref, err)
		return
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Errorf("%s: %v", ref, err)
		return
	}
	if m.MediaType != types.OCIImageIndex {
		t.Errorf("%s is a %s, want an OCI image index", ref, m.MediaType)
	}
	var got []string
	for _, d := range m.Manifests {
		if d.Platform == nil {
			t.Errorf("%s: manifest %s has no platform", ref, d.Digest)
			continue
		}
		got = append(got, d.Platform.String())
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Errorf("%s: image %s: %v", ref, d.Digest, err)
			continue
		}
		cf, err := img.ConfigFile()
		if err != nil {
			t.Errorf("%s: config of %s: %v", ref, d.Digest, err)
			continue
		}
		if p := cf.Platform(); p == nil || !p.Equals(v1.Platform{OS: d.Platform.OS, Architecture: d.Platform.Architecture, Variant: d.Platform.Variant}) {
			t.Errorf("%s: the image listed for %s says %v in its config", ref, d.Platform, p)
		}
	}
	if strings.Join(got, " ") != "linux/amd64 linux/arm64" {
		t.Errorf("%s lists platforms %q, want linux/amd64 and linux/arm64", ref, got)
	}
}
