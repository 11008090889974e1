package release

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/flowexecs"
	"dagger/shipyard/pipelines/publish"
)

// A release built per platform, as the workflow's native runners build it: each platform
// job builds and pushes only its platform's images; the assemble job's handoff is exactly
// the one the single push job gives for the same platform images (the same index digests
// and platform digests), and the scan and publish jobs take it unchanged.
func TestSplitPlatformJobsAssembleTheSingleJobsIndex(t *testing.T) {
	ctx := context.Background()
	w := newPlatformWorld(t)
	const tag = "v0.11.0"
	w.repo.Release(tag)

	var parts []publish.PlatformHandoff
	for _, p := range bothPlatforms {
		w.freshEngine()
		w.serve(tag)
		h, err := PushPlatformJob(ctx, w.config(), tag, p)
		if err != nil {
			t.Fatalf("push job for %s: %v\n%s", p, err, w.log.String())
		}
		if got := len(w.e.Graph().ExecsWith("importlib.metadata")); got != len(teskImages) {
			t.Errorf("%s job checked the version in %d image(s), want %d: its own platform's only", p, got, len(teskImages))
		}
		text, err := h.JSON()
		if err != nil || strings.Count(text, "\n") != 1 {
			t.Fatalf("platform handoff %q, %v", text, err)
		}
		if h, err = ParsePlatformHandoff(text); err != nil {
			t.Fatalf("parse %s: %v", text, err)
		}
		for _, img := range h.Images {
			want, _ := w.pub.PlatformImage(t, img.Name, string(p)).Digest()
			if img.Digest != want.String() || len(img.Platforms) != 0 || img.Repository != w.repository(img.Name) {
				t.Errorf("%s job pushed %+v, want the %s image %s alone in %s", p, img, p, want, w.repository(img.Name))
			}
			if tags := w.tags(img.Name); len(tags) != 0 {
				t.Errorf("%s job tagged %v", p, tags)
			}
		}
		parts = append(parts, h)
	}

	// The assemble job lists the platforms in the configured order, whatever order the
	// handoffs come in.
	slices.Reverse(parts)
	w.freshEngine()
	assembled, err := AssembleJob(ctx, w.config(), tag, parts)
	if err != nil {
		t.Fatalf("assemble job: %v\n%s", err, w.log.String())
	}
	for _, x := range w.e.Graph().Execs() {
		if x.Args[0] != "registry" && strings.Join(x.Args, " ") != flowexecs.RegistryTool {
			t.Errorf("the assemble job ran %v; it builds nothing but the registry command", x.Args)
		}
	}
	for _, img := range assembled.Images {
		if want := w.pub.IndexDigest(t, img.Name, platformStrings(bothPlatforms)); img.Digest != want {
			t.Errorf("%s: assembled index %s, want %s", img.Name, img.Digest, want)
		}
		if tags := w.tags(img.Name); len(tags) != 0 {
			t.Errorf("the assemble job tagged %v", tags)
		}
	}

	// The single job, building both platforms of the same images, hands over the same.
	w.freshEngine()
	w.serve(tag)
	writes := w.registryWrites()
	single, err := PushJob(ctx, w.config(), tag)
	if err != nil {
		t.Fatalf("single push job: %v", err)
	}
	if !reflect.DeepEqual(single, assembled) {
		t.Errorf("single job handed over\n%+v\nthe assemble job\n%+v", single, assembled)
	}
	if extra := w.registryWrites() - writes; extra != 0 {
		t.Errorf("the single job wrote %d time(s) after the assemble job: its index differs", extra)
	}

	text, _ := assembled.JSON()
	handoff, err := ParseHandoff(text)
	if err != nil {
		t.Fatal(err)
	}
	w.freshEngine()
	w.serve(tag)
	scanned, _, err := ScanJob(ctx, w.config(), handoff)
	if err != nil {
		t.Fatalf("scan job: %v", err)
	}
	w.freshEngine()
	w.serve(tag)
	rep, err := PublishJob(ctx, w.config(), scanned, handoff)
	if err != nil {
		t.Fatalf("publish job: %v", err)
	}
	for _, img := range rep.Images {
		if len(img.Platforms) != 2 || w.tags(img.Name)["0.11.0"] != img.Digest {
			t.Errorf("%s published as %+v, tags %v", img.Name, img, w.tags(img.Name))
		}
	}
	w.assertNoSecrets(text, rep.Text())
}

// The platform and assemble jobs refuse what would publish another index than the single
// job's, before writing anything.
func TestSplitPlatformJobsRefuse(t *testing.T) {
	ctx := context.Background()
	w := newPlatformWorld(t)
	const tag = "v0.11.0"
	w.repo.Release(tag)
	w.serve(tag)

	writes := w.registryWrites()
	if _, err := PushPlatformJob(ctx, w.config(), tag, "linux/s390x"); flow.FailedStep(err) != StepBuild || !strings.Contains(err.Error(), "linux/amd64, linux/arm64") {
		t.Errorf("a platform the release does not publish: %v", err)
	}
	if n := w.registryWrites() - writes; n != 0 {
		t.Errorf("the refused platform job wrote %d time(s)", n)
	}

	parts := map[dagger.Platform]publish.PlatformHandoff{}
	for _, p := range bothPlatforms {
		w.freshEngine()
		w.serve(tag)
		h, err := PushPlatformJob(ctx, w.config(), tag, p)
		if err != nil {
			t.Fatalf("push job for %s: %v", p, err)
		}
		parts[p] = h
	}
	amd, arm := parts["linux/amd64"], parts["linux/arm64"]

	otherCommit := arm
	otherCommit.Commit = strings.Repeat("a", 40)
	swapped := arm
	swapped.Images = slices.Clone(arm.Images)
	swapped.Images[0].Digest = amd.Images[0].Digest
	elsewhere := arm
	elsewhere.Images = slices.Clone(arm.Images)
	elsewhere.Images[0].Repository = w.pub.Registry.Host + "/other/tesk-core-" + arm.Images[0].Name
	oneImage := arm
	oneImage.Images = arm.Images[:1]
	// Each image in the other's repository, on both platforms, and there indeed: every
	// repository is one the release publishes to, but no image sits in its own.
	pairsSwapped := func(h publish.PlatformHandoff) publish.PlatformHandoff {
		h.Images = slices.Clone(h.Images)
		h.Images[0].Repository, h.Images[1].Repository = h.Images[1].Repository, h.Images[0].Repository
		for _, img := range h.Images {
			other := h.Images[0].Repository
			if img.Repository == other {
				other = h.Images[1].Repository
			}
			w.pub.Registry.CopyImage(t, other+"@"+img.Digest, img.Repository)
		}
		return h
	}

	for _, tc := range []struct {
		name  string
		parts []publish.PlatformHandoff
		want  string
	}{
		{"a platform missing", []publish.PlatformHandoff{amd}, "no push for linux/arm64 was handed over"},
		{"a platform twice", []publish.PlatformHandoff{amd, arm, arm}, "linux/arm64 was pushed twice"},
		{"another commit's push", []publish.PlatformHandoff{amd, otherCommit}, "the linux/arm64 push: the handoff is for"},
		{"another platform's image", []publish.PlatformHandoff{amd, swapped}, `says it is for "linux/amd64"`},
		{"another repository", []publish.PlatformHandoff{amd, elsewhere}, "is not published by this release"},
		{"an image left out", []publish.PlatformHandoff{amd, oneImage}, "the handoff has 1 image(s), the release publishes 2"},
		{"image and repository swapped", []publish.PlatformHandoff{pairsSwapped(amd), pairsSwapped(arm)}, "but the release publishes it to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w.freshEngine()
			writes := w.registryWrites()
			_, err := AssembleJob(ctx, w.config(), tag, tc.parts)
			if flow.FailedStep(err) != StepAssemble || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("assemble job: %v, want a failed %s step saying %q", err, StepAssemble, tc.want)
			}
			if n := w.registryWrites() - writes; n != 0 {
				t.Errorf("the refused assemble job wrote %d time(s)", n)
			}
		})
	}
}

func TestParsePlatformHandoffs(t *testing.T) {
	one := `{"repo":"elixir-cloud-aai/tesk-core","tag":"v0.11.0","version":"0.11.0","commit":"` + strings.Repeat("b", 40) +
		`","platform":"linux/arm64","images":[{"name":"filer","repository":"docker.io/elixircloud/tesk-core-filer","digest":"sha256:` + strings.Repeat("c", 64) + `"}]}`
	// A job's output ends in a newline; the workflow joins them as they are.
	hs, err := ParsePlatformHandoffs("[" + one + "\n," + strings.Replace(one, "arm64", "amd64", 1) + "\n]\n")
	if err != nil || len(hs) != 2 || hs[0].Platform != "linux/arm64" || hs[1].Platform != "linux/amd64" {
		t.Fatalf("parse = %+v, %v", hs, err)
	}
	for _, tc := range []struct{ data, want string }{
		{one, "want a JSON array"},
		{"[]", "lists no platform push job's output"},
		{"[" + one + ",{}]", "element 2"},
	} {
		if _, err := ParsePlatformHandoffs(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePlatformHandoffs(%.40q…) = %v, want an error containing %q", tc.data, err, tc.want)
		}
	}
}

func TestParsePlatformHandoff(t *testing.T) {
	good := `{"repo":"elixir-cloud-aai/tesk-core","tag":"v0.11.0","version":"0.11.0","commit":"` + strings.Repeat("b", 40) +
		`","platform":"linux/arm64","images":[{"name":"filer","repository":"docker.io/elixircloud/tesk-core-filer","digest":"sha256:` + strings.Repeat("c", 64) + `"}]}`
	h, err := ParsePlatformHandoff(good)
	if err != nil || h.Platform != "linux/arm64" || len(h.Images) != 1 || h.Images[0].Name != "filer" {
		t.Fatalf("parse = %+v, %v", h, err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "handoff", "reading the output of a platform's push job"},
		{"a push to dev's", strings.Replace(good, `"repo":"elixir-cloud-aai/tesk-core","tag":"v0.11.0",`, "", 1), "names no repository, tag or version"},
		{"an unknown field", strings.Replace(good, `"platform"`, `"extra":1,"platform"`, 1), "unknown field"},
		{"no platform", strings.Replace(good, `"linux/arm64"`, `""`, 1), "platform"},
		{"a bad platform", strings.Replace(good, `"linux/arm64"`, `"arm64"`, 1), "platform"},
		{"a tag for a digest", strings.Replace(good, `"sha256:`+strings.Repeat("c", 64)+`"`, `"latest"`, 1), "is not sha256:<64 lowercase hex>"},
		{"no commit", strings.Replace(good, strings.Repeat("b", 40), "main", 1), "not a full commit SHA"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParsePlatformHandoff(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The pushes a platform job hands over are paired into one index per image, in the
// configured platform order.
func TestPlanIndexes(t *testing.T) {
	d := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	img := func(name, digest string) publish.Pushed {
		return publish.Pushed{Name: name, Repository: "r.example/org/" + name, Digest: digest}
	}
	amd := publish.PlatformPush{Platform: "linux/amd64", Images: []publish.Pushed{img("filer", d("1")), img("taskmaster", d("2"))}}
	arm := publish.PlatformPush{Platform: "linux/arm64", Images: []publish.Pushed{img("taskmaster", d("4")), img("filer", d("3"))}}
	plans, err := publish.PlanIndexes([]string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{arm, amd})
	if err != nil {
		t.Fatal(err)
	}
	want := []publish.IndexAssembly{
		{Name: "filer", Repository: "r.example/org/filer", Platforms: []publish.PlatformDigest{{Platform: "linux/amd64", Digest: d("1")}, {Platform: "linux/arm64", Digest: d("3")}}},
		{Name: "taskmaster", Repository: "r.example/org/taskmaster", Platforms: []publish.PlatformDigest{{Platform: "linux/amd64", Digest: d("2")}, {Platform: "linux/arm64", Digest: d("4")}}},
	}
	if !reflect.DeepEqual(plans, want) {
		t.Errorf("plans = %+v\nwant %+v", plans, want)
	}

	index := arm
	index.Images = []publish.Pushed{img("filer", d("3")), img("taskmaster", d("4"))}
	index.Images[0].Platforms = []publish.PlatformDigest{{Platform: "linux/arm64", Digest: d("5")}}
	extra := arm
	extra.Images = append(slices.Clone(arm.Images), img("cli", d("6")))
	twice := arm
	twice.Images = append(slices.Clone(arm.Images), img("filer", d("7")))
	moved := arm
	moved.Images = []publish.Pushed{img("filer", d("3")), {Name: "taskmaster", Repository: "r.example/other/taskmaster", Digest: d("4")}}
	lacking := arm
	lacking.Images = arm.Images[:1]
	for _, tc := range []struct {
		name      string
		platforms []string
		pushes    []publish.PlatformPush
		want      string
	}{
		{"no platforms", nil, []publish.PlatformPush{amd}, "no platforms configured"},
		{"a platform not published", []string{"linux/amd64"}, []publish.PlatformPush{amd, arm}, `a push for "linux/arm64" was handed over`},
		{"a platform missing", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd}, "no push for linux/arm64"},
		{"a platform twice", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, arm, arm}, "linux/arm64 was pushed twice"},
		{"an index", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, index}, "was pushed as an index"},
		{"an extra image", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, extra}, "linux/arm64 pushed image cli, which linux/amd64 did not"},
		{"an image twice", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, twice}, "image filer is listed twice"},
		{"another repository", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, moved}, "linux/arm64 pushed image taskmaster to r.example/other/taskmaster"},
		{"an image missing", []string{"linux/amd64", "linux/arm64"}, []publish.PlatformPush{amd, lacking}, "linux/arm64 did not push image filer"},
		{"nothing pushed", []string{"linux/amd64"}, []publish.PlatformPush{{Platform: "linux/amd64"}}, "pushed no image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := publish.PlanIndexes(tc.platforms, tc.pushes); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// The platform handoffs travel through a workflow: whatever arrives, the parser answers
// with an error or with handoffs that render back to what it accepts.
func FuzzParsePlatformHandoffs(f *testing.F) {
	one := `{"repo":"o/r","tag":"v1.0.0","version":"1.0.0","commit":"` + strings.Repeat("b", 40) +
		`","platform":"linux/arm64","images":[{"name":"filer","repository":"r.example/o/filer","digest":"sha256:` + strings.Repeat("c", 64) + `"}]}`
	f.Add("[" + one + "]")
	f.Add("[" + one + "," + one + "]")
	f.Add(`[{"platform":"linux/amd64/v8"}]`)
	f.Add("[null]")
	f.Fuzz(func(t *testing.T, data string) {
		hs, err := ParsePlatformHandoffs(data)
		if err != nil {
			return
		}
		for _, h := range hs {
			text, err := h.JSON()
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParsePlatformHandoff(text)
			if err != nil || !reflect.DeepEqual(again, h) {
				t.Fatalf("%+v renders as %s, which parses as %+v, %v", h, text, again, err)
			}
		}
	})
}

// The workflow's two approvals: the platform jobs push, the scan job scans their images
// before any index exists, and the publish job assembles the indexes and publishes them
// with the scan's verdicts, which must cover every platform image each index lists.
func TestSplitPlatformsScannedBeforeTheIndexes(t *testing.T) {
	ctx := context.Background()
	w := newPlatformWorld(t)
	const tag = "v0.11.0"
	w.repo.Release(tag)
	var parts []publish.PlatformHandoff
	for _, p := range bothPlatforms {
		w.freshEngine()
		w.serve(tag)
		h, err := PushPlatformJob(ctx, w.config(), tag, p)
		if err != nil {
			t.Fatalf("push job for %s: %v", p, err)
		}
		parts = append(parts, h)
	}

	w.freshEngine()
	w.serve(tag)
	writes := w.registryWrites()
	scans, _, err := ScanPlatformsJob(ctx, w.config(), parts)
	if err != nil {
		t.Fatalf("scan job: %v\n%s", err, w.log.String())
	}
	if w.registryWrites() != writes {
		t.Error("the scan job wrote to the registry")
	}
	text, err := scans.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if scans, err = ParsePlatformScans(text); err != nil || len(scans.Scans) != len(teskImages)*len(bothPlatforms) {
		t.Fatalf("verdicts %s: %+v, %v", text, scans, err)
	}

	w.freshEngine()
	assembled, err := AssembleJob(ctx, w.config(), tag, parts)
	if err != nil {
		t.Fatal(err)
	}
	// A verdict missing for one platform image refuses the publish before any tag.
	short := scans
	short.Scans = short.Scans[1:]
	w.freshEngine()
	w.serve(tag)
	if _, err := PublishPlatformScans(ctx, w.config(), short, assembled); err == nil || !strings.Contains(err.Error(), "has no passing scan") {
		t.Fatalf("publish with a verdict missing: %v", err)
	}
	other := scans
	other.Commit = strings.Repeat("1", 40)
	if _, err := PublishPlatformScans(ctx, w.config(), other, assembled); err == nil || !strings.Contains(err.Error(), "commit 1111") {
		t.Fatalf("verdicts of another commit: %v", err)
	}
	for _, img := range assembled.Images {
		if tags := w.tags(img.Name); len(tags) != 0 {
			t.Fatalf("tagged %v after a refused publish", tags)
		}
	}

	w.freshEngine()
	w.serve(tag)
	rep, err := PublishPlatformScans(ctx, w.config(), scans, assembled)
	if err != nil {
		t.Fatalf("publish job: %v\n%s", err, w.log.String())
	}
	for _, img := range rep.Images {
		if len(img.Platforms) != 2 || w.tags(img.Name)["0.11.0"] != img.Digest {
			t.Errorf("%s published as %+v, tags %v", img.Name, img, w.tags(img.Name))
		}
	}
	if _, _, err := ScanPlatformsJob(ctx, w.config(), []publish.PlatformHandoff{parts[0], parts[0]}); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Errorf("one platform twice: %v", err)
	}
}

func TestParsePlatformScans(t *testing.T) {
	good := `{"repo":"o/r","tag":"v1","version":"1","commit":"` + strings.Repeat("a", 40) + `","platform_scans":[{"name":"filer (linux/amd64)","digest":"sha256:` + strings.Repeat("b", 64) + `","passed":true,"summary":"ok"}]}`
	if _, err := ParsePlatformScans(good); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"repo":"o/r","tag":"v1","version":"1","commit":"abc","platform_scans":[{}]}`,
		`{"repo":"o/r","tag":"v1","version":"1","commit":"` + strings.Repeat("a", 40) + `","platform_scans":[]}`,
		`{"repo":"o/r","tag":"v1","version":"1","commit":"` + strings.Repeat("a", 40) + `","images":[]}`,
		`not json`,
	} {
		if _, err := ParsePlatformScans(bad); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if !IsPlatformHandoffs(" [{}]") || IsPlatformHandoffs(`{"images":[]}`) {
		t.Error("IsPlatformHandoffs")
	}
}

func FuzzParsePlatformScans(f *testing.F) {
	f.Add(`{"repo":"o/r","tag":"v1","version":"1","commit":"` + strings.Repeat("a", 40) + `","platform_scans":[{"name":"x","passed":true}]}`)
	f.Add(`{"platform_scans":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePlatformScans(s)
		if err != nil {
			return
		}
		out, err := p.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if again, err := ParsePlatformScans(out); err != nil || again.Commit != p.Commit || len(again.Scans) != len(p.Scans) {
			t.Fatalf("round trip of %q: %+v, %v", s, again, err)
		}
	})
}
