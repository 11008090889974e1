package release

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/notes"
	"dagger/shipyard/internal/testkit/teskrepo"
)

// TestReleaseSequence rehearses tesk-core's next releases end to end: the first release
// candidate, the final release, a backport of the previous minor after it, and 1.0.0. Each
// publishes both images by digest with provenance and a signature, tags them, and creates
// the GitHub release with the composed notes; latest follows the highest final version.
func TestReleaseSequence(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	backport := w.repo.Prepare("v0.10.7", githubsim.MergedPull{Title: "fix(filer): close FTP sessions", Author: "kushagra189"})

	type want struct {
		tags        map[string][]string // image tag → which release's digest: "self" or a tag
		prerelease  bool
		makeLatest  string
		previous    string
		contributor string // a New Contributors line expected in the body, if any
	}
	steps := []struct {
		tag     string
		prepare func()
		want    want
	}{
		{
			tag: "v0.11.0rc1",
			prepare: func() {
				w.repo.Release("v0.11.0rc1", githubsim.MergedPull{Title: "feat: publish images by digest", Author: "jemaltahir"})
			},
			want: want{tags: map[string][]string{"0.11.0rc1": {"self"}}, prerelease: true, makeLatest: "false", previous: "v0.10.6", contributor: "@jemaltahir made their first contribution"},
		},
		{
			tag:     "v0.11.0",
			prepare: func() { w.repo.Release("v0.11.0") },
			want:    want{tags: map[string][]string{"0.11.0": {"self"}, "latest": {"self"}}, prerelease: true, makeLatest: "false", previous: "v0.11.0rc1"},
		},
		{
			tag:     "v0.10.7",
			prepare: func() { w.repo.Tag("v0.10.7", backport) },
			want:    want{tags: map[string][]string{"0.10.7": {"self"}, "latest": {"v0.11.0"}}, prerelease: true, makeLatest: "false", previous: "v0.10.6", contributor: "@kushagra189 made their first contribution"},
		},
		{
			tag: "v1.0.0",
			prepare: func() {
				w.repo.Release("v1.0.0", githubsim.MergedPull{Title: "feat!: drop Python 3.9", Author: "uniqueg"})
			},
			want: want{tags: map[string][]string{"1.0.0": {"self"}, "latest": {"self"}}, prerelease: false, makeLatest: "true", previous: "v0.11.0"},
		},
	}
	digests := map[string]map[string]string{} // tag → image → digest
	for _, st := range steps {
		t.Run(st.tag, func(t *testing.T) {
			st.prepare()
			// Each release builds other images: a new commit, a new build.
			for _, n := range teskImages {
				w.pub.Rebuild(n)
			}
			w.freshEngine()
			rep, err := w.run(st.tag, Options{})
			if err != nil {
				t.Fatalf("%v\nlog:\n%s", err, w.log.String())
			}
			digests[st.tag] = map[string]string{}
			for _, img := range rep.Images {
				digests[st.tag][img.Name] = img.Digest
			}
			for _, name := range teskImages {
				self := digests[st.tag][name]
				if self != w.pub.Digest(t, name) {
					t.Errorf("%s: report digest %s, built %s", name, self, w.pub.Digest(t, name))
				}
				got := w.tags(name)
				for tag, on := range st.want.tags {
					want := self
					if on[0] != "self" {
						want = digests[on[0]][name]
					}
					if got[tag] != want {
						t.Errorf("%s:%s on %s, want %s", name, tag, got[tag], want)
					}
				}
				if a, s := w.evidence(name, self); a != 1 || s != 1 {
					t.Errorf("%s@%s carries %d attestation(s) and %d signature(s), want one each", name, self, a, s)
				}
			}
			rels := w.releasesOf(st.tag)
			if len(rels) != 1 {
				t.Fatalf("%d releases of %s", len(rels), st.tag)
			}
			rel := rels[0]
			if rel.Prerelease != st.want.prerelease || rel.MakeLatest != st.want.makeLatest || rel.Name != st.tag || rel.Draft {
				t.Errorf("release %+v", rel)
			}
			if rep.Release.URL != "https://github.com/"+teskrepo.FullName+"/releases/tag/"+st.tag || rep.Release.Outcome != "created" {
				t.Errorf("reported release %+v", rep.Release)
			}
			checkBody(t, rel.Body, st.tag, st.want.previous, st.want.contributor)
			if rel.Body != rep.Release.Body {
				t.Error("the reported body is not the published one")
			}
			text, _ := rep.JSON()
			w.assertNoSecrets(text, rep.Text())
		})
	}

	// The whole release again stops at its gate: a version is released once.
	w.freshEngine()
	before := w.registryWrites()
	if _, err := w.run("v1.0.0", Options{}); flow.FailedStep(err) != StepPlan || !strings.Contains(err.Error(), "published GitHub release of v1.0.0 exists") {
		t.Fatalf("a second release of v1.0.0: %v", err)
	}
	if w.registryWrites() != before {
		t.Error("a stopped release wrote to the registry")
	}
	// Its GitHub step alone passes without changes.
	writes := w.ghWrites()
	rel, err := ReleaseJob(context.Background(), w.config(), "v1.0.0")
	if err != nil || rel.Outcome != "kept" {
		t.Fatalf("publish-release re-run: %+v, %v", rel, err)
	}
	if w.ghWrites() != writes {
		t.Error("a re-run of the GitHub step wrote to GitHub")
	}
}

// checkBody checks a published body: the curated notes first, then the generated notes under
// "## Commits" with the pull requests since the previous release, then the Full Changelog.
func checkBody(t *testing.T, body, tag, previous, contributor string) {
	t.Helper()
	curated := teskrepo.Notes(teskrepo.Version(tag))
	if !strings.HasPrefix(body, curated+"\n"+notes.CommitsHeading+"\n\n* ") {
		t.Errorf("body does not start with the curated notes and the commits:\n%s", body)
	}
	footer := "**Full Changelog**: https://github.com/" + teskrepo.FullName + "/compare/" + previous + "..." + tag + "\n"
	if !strings.HasSuffix(body, "\n\n"+footer) {
		t.Errorf("body does not end with %q:\n%s", footer, body)
	}
	if !strings.Contains(body, "* chore: release "+tag+" by @uniqueg in https://github.com/"+teskrepo.FullName+"/pull/") {
		t.Errorf("body lacks the release pull request:\n%s", body)
	}
	if strings.Contains(body, "What's Changed") || strings.Count(body, "**Full Changelog**") != 1 {
		t.Errorf("body keeps GitHub's header or repeats the footer:\n%s", body)
	}
	if contributor != "" && !strings.Contains(body, "\n## New Contributors\n") || contributor != "" && !strings.Contains(body, contributor) {
		t.Errorf("body lacks %q under New Contributors:\n%s", contributor, body)
	}
	if contributor == "" && strings.Contains(body, "New Contributors") {
		t.Errorf("body lists new contributors where there are none:\n%s", body)
	}
}

// jsonReport decodes a report's JSON, as the next job would.
func jsonReport(t *testing.T, rep Report) map[string]any {
	t.Helper()
	text, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
