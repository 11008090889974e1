package main

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// checkout is the fixture tree as the dev workflow checks it out at commit sha: with its
// Git history, which Directory.asGit reads.
func checkout(sha string) map[string]string {
	return map[string]string{".git/HEAD": "ref: refs/heads/dev\n", ".git/refs/heads/dev": sha + "\n"}
}

// splitModule is publishModule for one job of the dev workflow built per platform, on its
// own engine double (each job runs on its own runner), with the checkout at sha.
func splitModule(t *testing.T, w *publishtest.World, sha string) (*Shipyard, *engine.Engine) {
	t.Helper()
	return publishModuleOf(t, w, true, checkout(sha))
}

// pushPlatforms runs push-platform-by-digest once per default platform, each on its own
// engine double as on its own runner, and returns their outputs in order.
func pushPlatforms(t *testing.T, w *publishtest.World, sha, image string) []string {
	t.Helper()
	var outs []string
	for _, p := range defaultPlatforms() {
		m, _ := splitModule(t, w, sha)
		out, err := m.PushPlatformByDigest(context.Background(), p, "", image)
		if err != nil {
			t.Fatalf("push-platform-by-digest --platform %s --image %q: %v", p, image, err)
		}
		outs = append(outs, out)
	}
	return outs
}

// The dev images built per platform, through the module, as ci.yml's jobs run them: per
// image, one push-platform-by-digest per platform, then assemble-index, whose output is
// byte for byte what push-by-digest --image prints for the same platform images; the
// single job then writes nothing, since the index it would push is already there.
// scan-digests takes the assembled output as it takes push-by-digest's.
func TestDevSplitPlatformsThroughTheModule(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)

	for _, image := range []string{"taskmaster", "filer"} {
		parts := pushPlatforms(t, w, devSHA, image)
		for i, part := range parts {
			p, err := publish.ParsePlatformHandoff(part)
			platform := defaultPlatforms()[i]
			if err != nil || p.Commit != devSHA || p.Platform != platform || len(p.Images) != 1 {
				t.Fatalf("push-platform-by-digest --platform %s printed %s (%v)", platform, part, err)
			}
			want, _ := w.PlatformImage(t, image, platform).Digest()
			if got := p.Images[0]; got.Name != image || got.Repository != repoOf(w, image) || got.Digest != want.String() || len(got.Platforms) != 0 {
				t.Errorf("%s pushed %+v, want the %s image %s alone in %s", platform, got, platform, want, repoOf(w, image))
			}
		}
		if tags := w.Registry.Tags(t, repoOf(w, image)); len(tags) != 0 {
			t.Errorf("the platform jobs tagged %v", tags)
		}

		m, e := splitModule(t, w, devSHA)
		// The order the outputs arrive in does not matter: the index lists the platforms
		// in the configured order, as the single job does.
		assembled, err := m.AssembleIndex(ctx, "["+parts[1]+","+parts[0]+"]", "", image)
		if err != nil {
			t.Fatalf("assemble-index --image %s: %v", image, err)
		}
		for _, x := range e.Graph().Execs() {
			if x.Args[0] != "registry" && strings.Join(x.Args, " ") != flowexecs.RegistryTool {
				t.Errorf("assemble-index ran %v; it builds nothing but the registry command", x.Args)
			}
		}
		var digests map[string]string
		if err := json.Unmarshal([]byte(assembled), &digests); err != nil || len(digests) != 1 || digests[image] != repoOf(w, image)+"@"+published(t, w, image) {
			t.Errorf("assemble-index printed %s (%v), want {%q: %s@%s}", assembled, err, image, repoOf(w, image), published(t, w, image))
		}
		if tags := w.Registry.Tags(t, repoOf(w, image)); len(tags) != 0 {
			t.Errorf("assemble-index tagged %v", tags)
		}

		writes := len(w.Registry.Writes())
		single, _ := publishModuleOf(t, w, true, checkout(devSHA))
		want, err := single.PushByDigest(ctx, "", image)
		if err != nil {
			t.Fatal(err)
		}
		if assembled != want {
			t.Errorf("assemble-index --image %s printed\n%q\npush-by-digest --image %s\n%q", image, assembled, image, want)
		}
		if n := len(w.Registry.Writes()) - writes; n != 0 {
			t.Errorf("push-by-digest wrote %d time(s) after assemble-index: its index differs", n)
		}

		scanner, _ := publishModule(t, w, false)
		dir, err := scanner.ScanDigests(ctx, nil, assembled)
		if err != nil {
			t.Fatalf("scan-digests of the assembled output: %v", err)
		}
		verdict, err := dir.File("verdict.json").Contents(ctx)
		if err != nil || !strings.Contains(verdict, `"passed": true`) && !strings.Contains(verdict, `"passed":true`) {
			t.Errorf("scan-digests verdict %s (%v)", verdict, err)
		}
		noSecret(t, w, assembled, strings.Join(parts, ""))
	}
}

// assembleRefusal is one output handed to assemble-index that must be refused.
type assembleRefusal struct {
	name, pushed, version, image, want string
}

// The platform and assemble jobs refuse, before writing anything, what would publish
// another index than push-by-digest's: a platform not published or missing, one twice,
// another commit's or version's push, another image, an image for another platform,
// another repository.
func TestDevSplitPlatformsRefuse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)

	writes := len(w.Registry.Writes())
	m, _ := splitModule(t, w, devSHA)
	for _, tc := range []struct{ platform, want string }{
		{"linux/s390x", "is not one the images are published for (linux/amd64, linux/arm64)"},
		{"arm64", "--platform"},
	} {
		if _, err := m.PushPlatformByDigest(ctx, tc.platform, "", ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("push-platform-by-digest --platform %s: %v, want an error containing %q", tc.platform, err, tc.want)
		}
	}
	onlyAmd, err := m.WithPlatforms([]string{"linux/amd64"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := onlyAmd.PushPlatformByDigest(ctx, "linux/arm64", "", ""); err == nil || !strings.Contains(err.Error(), "(linux/amd64)") {
		t.Errorf("a platform with-platforms left out: %v", err)
	}
	noGit, _ := publishModule(t, w, true)
	if _, err := noGit.PushPlatformByDigest(ctx, "linux/amd64", "", "filer"); err == nil || !strings.Contains(err.Error(), "Git history") {
		t.Errorf("a source without its history: %v", err)
	}
	if n := len(w.Registry.Writes()) - writes; n != 0 {
		t.Errorf("the refused platform jobs wrote %d time(s)", n)
	}

	parts := pushPlatforms(t, w, devSHA, "filer")
	amd, arm := parts[0], parts[1]
	otherCommit := pushPlatforms(t, w, strings.Repeat("a", 40), "filer")[1]
	taskmaster := pushPlatforms(t, w, devSHA, "taskmaster")
	var armPush publish.PlatformHandoff
	if err := json.Unmarshal([]byte(arm), &armPush); err != nil {
		t.Fatal(err)
	}
	var amdPush publish.PlatformHandoff
	if err := json.Unmarshal([]byte(amd), &amdPush); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(p *publish.PlatformHandoff)) string {
		p := armPush
		p.Images = append([]publish.Pushed(nil), armPush.Images...)
		f(&p)
		out, err := p.JSON()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	swapped := edit(func(p *publish.PlatformHandoff) { p.Images[0].Digest = amdPush.Images[0].Digest })
	elsewhere := edit(func(p *publish.PlatformHandoff) {
		p.Images[0].Repository = w.Registry.Host + "/other/tesk-core-filer"
	})
	versioned := edit(func(p *publish.PlatformHandoff) { p.Version = "0.11.0" })
	both := edit(func(p *publish.PlatformHandoff) {
		var tm publish.PlatformHandoff
		if err := json.Unmarshal([]byte(taskmaster[1]), &tm); err != nil {
			t.Fatal(err)
		}
		p.Images = append(p.Images, tm.Images...)
	})
	list := func(outs ...string) string { return "[" + strings.Join(outs, ",") + "]" }

	for _, tc := range []assembleRefusal{
		{"not an array", amd, "", "filer", "--pushed: want a JSON array"},
		{"not a platform push", list("{}"), "", "filer", "--pushed: element 1"},
		{"a platform missing", list(amd), "", "filer", "no push for linux/arm64 was handed over"},
		{"a platform twice", list(amd, arm, arm), "", "filer", "linux/arm64 was pushed twice"},
		{"another commit's push", list(amd, otherCommit), "", "filer", "the linux/arm64 push is of commit " + strings.Repeat("a", 40) + ", this source is at " + devSHA},
		{"another version", list(amd, versioned), "", "filer", `the linux/arm64 push was built with version "0.11.0", this job with ""`},
		{"another image's pushes", list(taskmaster...), "", "filer", "lists image taskmaster, which this job does not assemble (filer)"},
		{"an image left out", list(amd, arm), "", "", "the linux/amd64 push lacks image taskmaster"},
		{"an image too many", list(amd, both), "", "filer", "the linux/arm64 push lists image taskmaster"},
		{"another platform's image", list(amd, swapped), "", "filer", `says it is for "linux/amd64"`},
		{"another repository", list(amd, elsewhere), "", "filer", "the linux/arm64 push put image filer in " + w.Registry.Host + "/other/tesk-core-filer, but it is published to " + repoOf(w, "filer")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := splitModule(t, w, devSHA)
			writes := len(w.Registry.Writes())
			if _, err := m.AssembleIndex(ctx, tc.pushed, tc.version, tc.image); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("assemble-index: %v, want an error containing %q", err, tc.want)
			}
			if n := len(w.Registry.Writes()) - writes; n != 0 {
				t.Errorf("the refused assemble-index wrote %d time(s)", n)
			}
		})
	}
}

// devSplitJobs runs the dev workflow's split push (each platform's job, then the assemble
// job) for both images, called as v says, and returns each function's volumes, for the
// trust table.
func devSplitJobs(t *testing.T, v callVariant) map[string][]string {
	w := publishtest.NewWorld(t)
	vols := map[string][]string{}
	var parts []string
	for _, p := range defaultPlatforms() {
		m, e := splitModule(t, w, devSHA)
		out, err := v.on(m).PushPlatformByDigest(context.Background(), p, "", "")
		vols["push-platform-by-digest"] = append(vols["push-platform-by-digest"], e.Graph().CacheVolumes()...)
		if !v.ok(t, err) {
			return vols
		}
		parts = append(parts, out)
	}
	m, e := splitModule(t, w, devSHA)
	_, err := v.on(m).AssembleIndex(context.Background(), "["+strings.Join(parts, ",")+"]", "", "")
	v.ok(t, err)
	vols["assemble-index"] = e.Graph().CacheVolumes()
	return vols
}

// The split push re-runs safely: the assemble job failing as it writes the index leaves no
// tag, and running it again finishes with the output the single job prints; running the
// platform job and the assemble job once more after that writes nothing.
func TestDevSplitPlatformsRerunAfterAFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	parts := "[" + strings.Join(pushPlatforms(t, w, devSHA, ""), ",") + "]"

	w.Registry.FailNext(1, http.StatusInsufficientStorage, func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "tesk-core-filer/manifests/")
	})
	m, _ := splitModule(t, w, devSHA)
	if _, err := m.AssembleIndex(ctx, parts, "", ""); err == nil || !strings.Contains(err.Error(), "assemble-index: filer: ") {
		t.Fatalf("assemble-index with the registry failing on filer's index: %v", err)
	}
	for _, name := range []string{"filer", "taskmaster"} {
		if tags := w.Registry.Tags(t, repoOf(w, name)); len(tags) != 0 {
			t.Errorf("%s tagged after the failure: %v", name, tags)
		}
	}

	m, _ = splitModule(t, w, devSHA)
	assembled, err := m.AssembleIndex(ctx, parts, "", "")
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	single, _ := publishModuleOf(t, w, true, checkout(devSHA))
	want, err := single.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if assembled != want {
		t.Errorf("the re-run printed\n%q\npush-by-digest\n%q", assembled, want)
	}

	writes := len(w.Registry.Writes())
	again := "[" + strings.Join(pushPlatforms(t, w, devSHA, ""), ",") + "]"
	m, _ = splitModule(t, w, devSHA)
	if out, err := m.AssembleIndex(ctx, again, "", ""); err != nil || out != assembled {
		t.Errorf("a second run printed %q (%v), want %q", out, err, assembled)
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("a second run of the split push wrote %v", extra)
	}
}
