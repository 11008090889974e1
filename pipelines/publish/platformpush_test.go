package publish

import (
	"reflect"
	"strings"
	"testing"

	"dagger.io/dagger"
)

var onePlatformPush = `{"commit":"` + strings.Repeat("b", 40) + `","platform":"linux/arm64","images":[{"name":"filer","repository":"docker.io/elixircloud/tesk-core-filer","digest":"sha256:` + strings.Repeat("c", 64) + `"}]}`

func TestCheckPlatform(t *testing.T) {
	both := []dagger.Platform{"linux/amd64", "linux/arm64"}
	for _, tc := range []struct {
		platform  dagger.Platform
		publishes []dagger.Platform
		want      string
	}{
		{"linux/arm64", both, ""},
		{"linux/s390x", both, "the platform linux/s390x is not one the images are published for (linux/amd64, linux/arm64)"},
		{"linux/amd64", nil, "(none: one image for the engine's platform)"},
	} {
		err := CheckPlatform(tc.platform, tc.publishes)
		if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckPlatform(%s, %v) = %v, want %q", tc.platform, tc.publishes, err, tc.want)
		}
	}
}

func TestParsePlatformHandoff(t *testing.T) {
	p, err := ParsePlatformHandoff(onePlatformPush)
	if err != nil || p.Platform != "linux/arm64" || p.Commit != strings.Repeat("b", 40) || p.Version != "" || len(p.Images) != 1 {
		t.Fatalf("parse = %+v, %v", p, err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "push", "reading the output of a platform's push job"},
		{"an unknown field", strings.Replace(onePlatformPush, `"platform"`, `"extra":"v1","platform"`, 1), "unknown field"},
		{"no platform", strings.Replace(onePlatformPush, `"linux/arm64"`, `""`, 1), "platform"},
		{"a platform without its OS", strings.Replace(onePlatformPush, `"linux/arm64"`, `"arm64"`, 1), "platform"},
		{"a branch for a commit", strings.Replace(onePlatformPush, strings.Repeat("b", 40), "dev", 1), `commit "dev" is not a full commit SHA`},
		{"no image", strings.Replace(onePlatformPush, onePlatformPush[strings.Index(onePlatformPush, `[`):len(onePlatformPush)-1], "[]", 1), "lists no image"},
		{"a tag for a digest", strings.Replace(onePlatformPush, `"sha256:`+strings.Repeat("c", 64)+`"`, `"latest"`, 1), "is not sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParsePlatformHandoff(tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestParsePlatformOutputs(t *testing.T) {
	// A job's output ends in a newline; the workflow joins them as they are.
	ps, err := ParsePlatformOutputs("["+onePlatformPush+"\n,"+strings.Replace(onePlatformPush, "arm64", "amd64", 1)+"\n]\n", ParsePlatformHandoff)
	if err != nil || len(ps) != 2 || ps[0].Platform != "linux/arm64" || ps[1].Platform != "linux/amd64" {
		t.Fatalf("parse = %+v, %v", ps, err)
	}
	for _, tc := range []struct{ data, want string }{
		{onePlatformPush, "want a JSON array"},
		{"[]", "lists no platform push job's output"},
		{"[" + onePlatformPush + ",{}]", "element 2"},
	} {
		if _, err := ParsePlatformOutputs(tc.data, ParsePlatformHandoff); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParsePlatformOutputs(%.40q…) = %v, want an error containing %q", tc.data, err, tc.want)
		}
	}
}

// The platform jobs' outputs travel through a workflow: whatever arrives, the parser
// answers with an error or with pushes that render back to what it accepts.
func FuzzParsePlatformHandoffs(f *testing.F) {
	f.Add("[" + onePlatformPush + "]")
	f.Add("[" + onePlatformPush + "," + strings.Replace(onePlatformPush, `"platform"`, `"version":"0.11.0","platform"`, 1) + "]")
	f.Add(`[{"platform":"linux/amd64/v8"}]`)
	f.Add("[null]")
	f.Fuzz(func(t *testing.T, data string) {
		ps, err := ParsePlatformOutputs(data, ParsePlatformHandoff)
		if err != nil {
			return
		}
		for _, p := range ps {
			text, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParsePlatformHandoff(text)
			if err != nil || !reflect.DeepEqual(again, p) {
				t.Fatalf("%+v renders as %s, which parses as %+v, %v", p, text, again, err)
			}
		}
	})
}

// The pushes a dev platform job hands over must be of the assembling job's own source:
// its commit and version, exactly its images (or the one --image names), each in its
// repository.
func TestCheckPlatformHandoffs(t *testing.T) {
	commit, other := strings.Repeat("b", 40), strings.Repeat("a", 40)
	d := func(c string) string { return "sha256:" + strings.Repeat(c, 64) }
	target := Target{Registry: "r.example", Org: "elixircloud"}
	image := func(name string) Artifact {
		return Artifact{Name: name, Repository: "tesk-core-" + name}
	}
	both := []Artifact{image("filer"), image("taskmaster")}
	pushed := func(name, digest string) Pushed {
		return Pushed{Name: name, Repository: "r.example/elixircloud/tesk-core-" + name, Digest: digest}
	}
	push := func(platform, commit, version string, images ...Pushed) PlatformHandoff {
		return PlatformHandoff{Commit: commit, Version: version, PlatformPush: PlatformPush{Platform: platform, Images: images}}
	}
	amd := push("linux/amd64", commit, "", pushed("filer", d("1")), pushed("taskmaster", d("2")))
	arm := push("linux/arm64", commit, "", pushed("taskmaster", d("4")), pushed("filer", d("3")))

	got, err := CheckPlatformHandoffs(commit, "", both, target, []PlatformHandoff{arm, amd})
	if err != nil || !reflect.DeepEqual(got, []PlatformPush{arm.PlatformPush, amd.PlatformPush}) {
		t.Fatalf("CheckPlatformHandoffs = %+v, %v; want the pushes as handed over", got, err)
	}
	filerOnly := push("linux/arm64", commit, "", pushed("filer", d("3")))
	if _, err := CheckPlatformHandoffs(commit, "", both[:1], target, []PlatformHandoff{filerOnly}); err != nil {
		t.Errorf("one image's push, for that image: %v", err)
	}

	ofRelease := amd
	ofRelease.Repo, ofRelease.Tag = "elixir-cloud-aai/tesk-core", "v0.11.0"
	elsewhere := pushed("filer", d("3"))
	elsewhere.Repository = "r.example/other/tesk-core-filer"
	for _, tc := range []struct {
		name    string
		version string
		images  []Artifact
		parts   []PlatformHandoff
		want    string
	}{
		{"another commit", "", both, []PlatformHandoff{amd, push("linux/arm64", other, "", arm.Images...)}, "the linux/arm64 push is of commit " + other + ", this source is at " + commit},
		{"another version", "0.11.0", both, []PlatformHandoff{amd}, `the linux/amd64 push was built with version "", this job with "0.11.0"`},
		{"an image left out", "", both, []PlatformHandoff{filerOnly}, "the linux/arm64 push lacks image taskmaster"},
		{"an image not assembled here", "", both[:1], []PlatformHandoff{amd}, "the linux/amd64 push lists image taskmaster, which this job does not assemble (filer)"},
		{"a release's push", "", both, []PlatformHandoff{ofRelease, arm}, "the linux/amd64 push is of release elixir-cloud-aai/tesk-core v0.11.0: assemble it with release-assemble"},
		{"another repository", "", both[:1], []PlatformHandoff{push("linux/arm64", commit, "", elsewhere)}, "put image filer in r.example/other/tesk-core-filer, but it is published to r.example/elixircloud/tesk-core-filer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := CheckPlatformHandoffs(commit, tc.version, tc.images, target, tc.parts); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}
