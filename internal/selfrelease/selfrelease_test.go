package selfrelease

import (
	"strings"
	"testing"
)

const goodChangelog = `# Changelog

All notable changes to Shipyard are documented here, in the form of
[Keep a Changelog](https://keepachangelog.com/en/1.1.0/); versions follow
[Semantic Versioning](https://semver.org/spec/v2.0.0.html).

## [Unreleased]

## [0.2.0] - 2027-01-10

Released as github.com/elixir-cloud-aai/shipyard@1111111111111111111111111111111111111111 # v0.2.0

### Added

- release-plan --commit (#36)

## [0.1.0] - 2026-12-02

### Added

- First release (#36)

### Fixed

- The wrappers pin a release (#36)

[Unreleased]: https://github.com/elixir-cloud-aai/shipyard/compare/v0.2.0...HEAD
[0.2.0]: https://github.com/elixir-cloud-aai/shipyard/compare/v0.1.0...v0.2.0
[0.1.0]: https://github.com/elixir-cloud-aai/shipyard/releases/tag/v0.1.0
`

const goodNotes = "Shipyard's first release: the CI and release engine of tesk-core and Cloudcoil.\n\n## Features\n\n- Shipyard has releases (#36)\n"

const sha = "1111111111111111111111111111111111111111"

const head = "2222222222222222222222222222222222222222"

func facts() Facts {
	return Facts{
		Tag: "v0.2.0", Head: head, Release: sha, Released: []string{"v0.1.0"},
		Changelog: File{Found: true, Content: []byte(goodChangelog)},
		Notes:     File{Found: true, Content: []byte(goodNotes)},
		Pins: []Pin{
			{File: "examples/github-actions/tesk-core/ci.yml", Line: 3, Commit: sha, Tag: "v0.2.0"},
			{File: "README.md", Line: 9, Commit: sha, Tag: "v0.2.0"},
		},
		Main: MainFacts{Ref: "origin/main", ReleaseOnMain: true, ReleaseBeforeHead: true},
		Repin: []Change{{Path: "README.md",
			Old: File{Found: true, Content: []byte("SHIPYARD=" + Module + "@" + strings.Repeat("9", 40) + " # v0.1.0\n")},
			New: File{Found: true, Content: []byte("SHIPYARD=" + Module + "@" + sha + " # v0.2.0\n")}}},
		CI: &CheckRuns{CheckRuns: []CheckRun{passed(head)}},
	}
}

func passed(commit string) CheckRun {
	c := CheckRun{ID: 7, HeadSHA: commit, Name: CICheck, Status: "completed", Conclusion: "success"}
	c.App.Slug = CIApp
	return c
}

func TestEvaluate(t *testing.T) {
	if vs := Evaluate(facts()); len(vs) != 0 {
		t.Fatalf("a ready release fails: %v", vs)
	}
	tests := []struct {
		name   string
		change func(*Facts)
		gates  []string
		detail string
	}{
		{"not semver", func(f *Facts) { f.Tag = "v0.2" }, []string{GateTag, GateChangelog}, ""},
		{"pep 440 pre-release", func(f *Facts) { f.Tag = "v0.2.0rc1" }, []string{GateTag, GateChangelog}, ""},
		{"below a release", func(f *Facts) { f.Released = []string{"v0.3.0"} }, []string{GateTag}, "not above the release v0.3.0"},
		{"equal to a released pre-release's final", func(f *Facts) { f.Released = []string{"v0.2.0-rc.1"} }, nil, ""},
		{"tag on another commit", func(f *Facts) { f.TagCommit = head }, []string{GateNotMoved}, "not the release commit"},
		{"tag on the release commit", func(f *Facts) { f.TagCommit = sha }, nil, ""},
		{"no changelog", func(f *Facts) { f.Changelog = File{}; f.Release = "" }, []string{GateChangelog}, ""},
		{"no section", func(f *Facts) { f.Tag = "v0.3.0"; f.Release = "" }, []string{GateChangelog}, "no section ## [0.3.0]"},
		{"no release line", func(f *Facts) {
			f.Changelog.Content = []byte(strings.Replace(goodChangelog, ReleaseLine(sha, "v0.2.0")+"\n", "", 1))
			f.Release = ""
		}, []string{GateChangelog}, "names no release commit"},
		{"empty section", func(f *Facts) {
			f.Changelog.Content = []byte(strings.Replace(goodChangelog, "- release-plan --commit (#36)\n", "", 1))
		}, []string{GateChangelog}, "lists no change"},
		{"no link", func(f *Facts) {
			f.Changelog.Content = []byte(strings.Replace(goodChangelog, "[0.2.0]: https://github.com/elixir-cloud-aai/shipyard/compare/v0.1.0...v0.2.0\n", "", 1))
		}, []string{GateChangelog}, "no link reference [0.2.0]"},
		{"no notes", func(f *Facts) { f.Notes = File{} }, []string{GateNotes}, "at the release commit"},
		{"notes without intro", func(f *Facts) { f.Notes.Content = []byte("## Features\n\n- x (#1)\n") }, []string{GateNotes}, "docs/releases/0.2.0.md:1:"},
		{"release not on main", func(f *Facts) { f.Main.ReleaseOnMain = false }, []string{GateOnMain}, "is not on origin/main"},
		{"unpushed commits", func(f *Facts) { f.Main.Unpushed = []string{"abc1234"} }, []string{GateOnMain}, "1 commit(s) not pushed to origin/main: abc1234"},
		{"release after the head", func(f *Facts) { f.Main.ReleaseBeforeHead = false }, []string{GateOnMain}, "not an ancestor of 222222222222"},
		{"pins of the last release", func(f *Facts) { f.Pins[0].Tag, f.Pins[1].Tag = "v0.1.0", "v0.1.0" }, []string{GatePins}, "every file pins the same release"},
		{"pins of another commit", func(f *Facts) { f.Pins[1].Commit = head }, []string{GatePins}, "README.md:9"},
		{"a doc pins a tag only", func(f *Facts) { f.Pins[1].Commit = "" }, []string{GatePins}, "names a tag only"},
		{"code changed after the release commit", func(f *Facts) {
			f.Repin = append(f.Repin, Change{Path: "main.go", Old: File{Found: true}, New: File{Found: true, Content: []byte("x")}})
		}, []string{GateRepin}, "main.go: changed after the release commit"},
		{"no CI check run", func(f *Facts) { f.CI = &CheckRuns{CheckRuns: []CheckRun{}} }, []string{GateCI}, `no check run "CI passed"`},
		{"CI passed on another commit", func(f *Facts) { f.CI = &CheckRuns{CheckRuns: []CheckRun{passed(sha)}} }, []string{GateCI}, "on 222222222222"},
		{"CI not read (a maintainer's check)", func(f *Facts) { f.CI = nil }, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := facts()
			tag := f.Tag
			tt.change(&f)
			if f.Tag != tag { // the pins follow the tag, unless a case is about them
				for i := range f.Pins {
					f.Pins[i].Tag = f.Tag
				}
			}
			vs := Evaluate(f)
			var gates []string
			var all strings.Builder
			for _, v := range vs {
				gates = append(gates, v.Gate)
				all.WriteString(v.String() + "\n")
			}
			if strings.Join(gates, ",") != strings.Join(tt.gates, ",") {
				t.Fatalf("gates %v, want %v:\n%s", gates, tt.gates, all.String())
			}
			if !strings.Contains(all.String(), tt.detail) {
				t.Errorf("violations lack %q:\n%s", tt.detail, all.String())
			}
		})
	}
}

func TestParseChangelog(t *testing.T) {
	c, problems := ParseChangelog([]byte(goodChangelog))
	if len(problems) != 0 {
		t.Fatalf("problems %v", problems)
	}
	if !c.Unreleased || len(c.Releases) != 2 {
		t.Fatalf("changelog %+v", c)
	}
	if r, _ := c.Section("0.1.0"); r.Entries != 2 || r.Date != "2026-12-02" || !strings.HasSuffix(r.Link, "/v0.1.0") || r.Commit != "" {
		t.Errorf("0.1.0 = %+v", r)
	}
	if r, _ := c.Section("0.2.0"); r.Commit != sha || r.CommitLine != 11 || r.CommitTag != "v0.2.0" {
		t.Errorf("0.2.0's release line = %+v", r)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"undated", "## [0.2.0] - 2027-01-10", "## [0.2.0]", "release 0.2.0 has no date"},
		{"bad date", "2027-01-10", "2027-13-10", "release 0.2.0 has no date"},
		{"free heading", "## [Unreleased]", "## Next", `not "## Next"`},
		{"change type", "### Fixed", "### Bugs", `"Bugs" is not a Keep a Changelog change type`},
		{"order", "## [0.2.0] - 2027-01-10", "## [0.0.9] - 2027-01-10", "release 0.1.0 comes after 0.0.9"},
		{"twice", "## [0.2.0] - 2027-01-10", "## [0.1.0] - 2027-01-10", "has a section already, at line 9"},
		{"release line of another tag", sha + " # v0.2.0", sha + " # v0.1.0", "the release line of 0.2.0 names v0.1.0"},
		{"release line without its tag", sha + " # v0.2.0", sha, "a release line is"},
		{"release line with a short commit", sha, "1111111", "a release line is"},
		{"release line with more after it", sha + " # v0.2.0", sha + " # v0.2.0 (tagged)", "a release line is"},
		{"two release lines", "### Added\n\n- release-plan", ReleaseLine(sha, "v0.2.0") + "\n### Added\n\n- release-plan", "has a release line already, at line 11"},
		{"release line outside a section", "## [Unreleased]", "## [Unreleased]\n" + ReleaseLine(sha, "v0.2.0"), "belongs in a release's section"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := ParseChangelog([]byte(strings.Replace(goodChangelog, tt.from, tt.to, 1)))
			var all []string
			for _, p := range problems {
				all = append(all, p.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tt.want) {
				t.Errorf("problems %q lack %q", all, tt.want)
			}
		})
	}
}

func TestPins(t *testing.T) {
	content := []byte(`env:
  SHIPYARD: github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3
  OTHER: github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3 # v0.1.0-rc.1
Install with dagger toolchain install github.com/elixir-cloud-aai/shipyard@v0.1.0.
Not a pin: github.com/<org>/shipyard@<commit>, github.com/someone/shipyard@v1.0.0
`)
	pins := FindPins("f", content)
	want := []string{
		"github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3",
		"github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3 # v0.1.0-rc.1",
		"github.com/elixir-cloud-aai/shipyard@v0.1.0",
	}
	if len(pins) != len(want) {
		t.Fatalf("pins %v", pins)
	}
	for i, p := range pins {
		if p.String() != want[i] || p.Line != i+2 {
			t.Errorf("pin %d = %s at line %d, want %s at %d", i, p, p.Line, want[i], i+2)
		}
	}
	out, n, err := Repin(content, sha, "v0.2.0")
	if err != nil || n != 2 {
		t.Fatalf("Repin: %d, %v", n, err)
	}
	for _, p := range FindPins("f", out) {
		if p.Commit != "" && (p.Tag != "v0.2.0" || p.Commit != sha) {
			t.Errorf("after Repin: %s", p)
		}
		if p.Commit == "" && p.Tag != "v0.1.0" {
			t.Errorf("Repin rewrote a tag-only pin, which cannot take its comment: %s", p)
		}
	}
	if !strings.Contains(string(out), "github.com/someone/shipyard@v1.0.0") || !strings.Contains(string(out), "<org>/shipyard@<commit>") {
		t.Errorf("Repin touched what is not a pin:\n%s", out)
	}
	if again, n, _ := Repin(out, sha, "v0.2.0"); n != 2 || string(again) != string(out) {
		t.Error("Repin is not idempotent")
	}
	for _, bad := range [][2]string{{sha, "0.2.0"}, {sha, "v0.2"}, {"abc", "v0.2.0"}} {
		if _, _, err := Repin(content, bad[0], bad[1]); err == nil {
			t.Errorf("Repin(%q, %q) accepted", bad[0], bad[1])
		}
	}
}

func TestIsReleaseTag(t *testing.T) {
	for tag, ok := range map[string]bool{
		"v0.1.0": true, "v1.22.333": true, "v0.1.0-rc.1": true, "v1.0.0-alpha.beta-2": true,
		"0.1.0": false, "v0.1": false, "v01.0.0": false, "v0.1.0rc1": false, "v0.1.0+build": false, "v0.1.0-": false,
	} {
		if IsReleaseTag(tag) != ok {
			t.Errorf("IsReleaseTag(%q) = %v", tag, !ok)
		}
	}
}

func FuzzParseChangelog(f *testing.F) {
	f.Add(goodChangelog)
	f.Add("## [x]\n### y\n- z\n[x]: u")
	f.Fuzz(func(t *testing.T, s string) {
		c, _ := ParseChangelog([]byte(s))
		for _, r := range c.Releases {
			if r.Line < 1 {
				t.Fatalf("release at line %d", r.Line)
			}
		}
	})
}

func FuzzFindPins(f *testing.F) {
	f.Add("SHIPYARD: github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3 # v0.1.0")
	f.Add("github.com/elixir-cloud-aai/shipyard@v1.2.3-rc.1.")
	f.Fuzz(func(t *testing.T, s string) {
		pins := FindPins("f", []byte(s))
		commits := 0
		for _, p := range pins {
			if p.Commit != "" {
				commits++
			}
		}
		out, n, err := Repin([]byte(s), sha, "v9.9.9")
		if err != nil || n != commits {
			t.Fatalf("found %d commit pins, rewrote %d (%v)", commits, n, err)
		}
		if len(FindPins("f", out)) != len(pins) {
			t.Fatalf("the pins of %q changed in number after Repin: %q", s, out)
		}
	})
}

func TestCheckPins(t *testing.T) {
	wf := func(commit, tag string) Pin {
		return Pin{File: "examples/github-actions/x/w.yml", Line: 2, Commit: commit, Tag: tag}
	}
	doc := func(commit, tag string) Pin { return Pin{File: "README.md", Line: 5, Commit: commit, Tag: tag} }
	other := strings.Repeat("4", 40)
	release := Pin{Commit: sha, Tag: "v0.2.0"}
	tests := []struct {
		name    string
		pins    []Pin
		want    Pin
		problem string // part of the problems; "" for none
	}{
		{"the release", []Pin{wf(sha, "v0.2.0"), doc(sha, "v0.2.0")}, release, ""},
		{"one release, none wanted", []Pin{wf(sha, "v0.2.0"), doc(sha, "v0.2.0")}, Pin{}, ""},
		{"another commit than the changelog's", []Pin{wf(other, "v0.2.0")}, release, "CHANGELOG.md " + Module + "@" + sha},
		{"another release than the changelog's", []Pin{wf(sha, "v0.1.0")}, release, "every file pins the same release"},
		{"no tag comment", []Pin{wf(sha, "")}, release, "has no tag comment"},
		{"a workflow pins a tag only", []Pin{{File: "a.yml", Line: 1, Tag: "v0.2.0"}}, release, "names a tag only"},
		{"a doc pins a tag only", []Pin{wf(sha, "v0.2.0"), {File: "README.md", Line: 3, Tag: "v0.2.0"}}, release, "README.md:3: " + Module + "@v0.2.0 names a tag only"},
		{"two releases", []Pin{wf(sha, "v0.2.0"), doc(sha, "v0.1.0")}, Pin{}, "every file pins the same release"},
		{"two commits", []Pin{wf(sha, "v0.2.0"), doc(other, "v0.2.0")}, Pin{}, "every file pins the same release"},
		{"nothing pinned", nil, release, "no file pins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(CheckPins(tt.pins, tt.want), "\n")
			if (tt.problem == "") != (got == "") || !strings.Contains(got, tt.problem) {
				t.Errorf("problems %q, want %q", got, tt.problem)
			}
		})
	}
	if !IsPinnedFile("examples/github-actions/tesk-core/ci.yml") || !IsPinnedFile("docs/x.md") || IsPinnedFile("docs/releases/0.1.0.md") || IsPinnedFile("main.go") {
		t.Error("IsPinnedFile")
	}
}
