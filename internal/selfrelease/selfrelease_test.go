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

func facts() Facts {
	return Facts{
		Tag: "v0.2.0", Commit: sha, Released: []string{"v0.1.0"},
		Changelog: File{Found: true, Content: []byte(goodChangelog)},
		Notes:     File{Found: true, Content: []byte(goodNotes)},
		CI:        CIRecord{Found: true, Note: "passed .ci/run"},
		Pins: PinnedRelease{Pins: []Pin{
			{File: "examples/github-actions/tesk-core/ci.yml", Line: 3, Commit: sha, Tag: "v0.2.0"},
			{File: "README.md", Line: 9, Tag: "v0.2.0"},
		}, TagCommit: sha},
	}
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
		{"tag on another commit", func(f *Facts) { f.TagCommit = strings.Repeat("2", 40) }, []string{GateNotMoved}, ""},
		{"tag on this commit", func(f *Facts) { f.TagCommit = sha }, nil, ""},
		{"no changelog", func(f *Facts) { f.Changelog = File{} }, []string{GateChangelog}, ""},
		{"no section", func(f *Facts) { f.Tag = "v0.3.0"; f.Notes.Found = true }, []string{GateChangelog}, "no section ## [0.3.0]"},
		{"empty section", func(f *Facts) {
			f.Changelog.Content = []byte(strings.Replace(goodChangelog, "- release-plan --commit (#36)\n", "", 1))
		}, []string{GateChangelog}, "lists no change"},
		{"no link", func(f *Facts) {
			f.Changelog.Content = []byte(strings.Replace(goodChangelog, "[0.2.0]: https://github.com/elixir-cloud-aai/shipyard/compare/v0.1.0...v0.2.0\n", "", 1))
		}, []string{GateChangelog}, "no link reference [0.2.0]"},
		{"no notes", func(f *Facts) { f.Notes = File{} }, []string{GateNotes}, ""},
		{"notes without intro", func(f *Facts) { f.Notes.Content = []byte("## Features\n\n- x (#1)\n") }, []string{GateNotes}, "docs/releases/0.2.0.md:1:"},
		{"no CI record", func(f *Facts) { f.CI = CIRecord{} }, []string{GateCI}, ""},
		{"pins of the last release", func(f *Facts) { f.Pins.Pins[0].Tag, f.Pins.Pins[1].Tag = "v0.1.0", "v0.1.0" }, []string{GatePins}, "not v0.2.0"},
		{"pins at the commit before the re-pin", func(f *Facts) {
			f.Pins.Pins[0].Commit = strings.Repeat("3", 40)
			f.Pins.Changed, f.Pins.ChangedKnown = []string{"README.md", "examples/github-actions/tesk-core/ci.yml"}, true
		}, nil, ""},
		{"pins at a commit whose code differs", func(f *Facts) {
			f.Pins.Pins[0].Commit = strings.Repeat("3", 40)
			f.Pins.Changed, f.Pins.ChangedKnown = []string{"main.go"}, true
		}, []string{GatePins}, "main.go changed"},
		{"a failed CI record", func(f *Facts) { f.CI = CIRecord{Found: true, Note: "failed"} }, []string{GateCI}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := facts()
			tag := f.Tag
			tt.change(&f)
			if f.Tag != tag { // the pins follow the tag, unless a case is about them
				for i := range f.Pins.Pins {
					f.Pins.Pins[i].Tag = f.Tag
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
	if r, _ := c.Section("0.1.0"); r.Entries != 2 || r.Date != "2026-12-02" || !strings.HasSuffix(r.Link, "/v0.1.0") {
		t.Errorf("0.1.0 = %+v", r)
	}
	for _, tt := range []struct{ name, from, to, want string }{
		{"undated", "## [0.2.0] - 2027-01-10", "## [0.2.0]", "release 0.2.0 has no date"},
		{"bad date", "2027-01-10", "2027-13-10", "release 0.2.0 has no date"},
		{"free heading", "## [Unreleased]", "## Next", `not "## Next"`},
		{"change type", "### Fixed", "### Bugs", `"Bugs" is not a Keep a Changelog change type`},
		{"order", "## [0.2.0] - 2027-01-10", "## [0.0.9] - 2027-01-10", "release 0.1.0 comes after 0.0.9"},
		{"twice", "## [0.2.0] - 2027-01-10", "## [0.1.0] - 2027-01-10", "has a section already, at line 9"},
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
	if err != nil || n != 3 {
		t.Fatalf("Repin: %d, %v", n, err)
	}
	for _, p := range FindPins("f", out) {
		if p.Tag != "v0.2.0" || (p.Commit != "" && p.Commit != sha) {
			t.Errorf("after Repin: %s", p)
		}
	}
	if !strings.Contains(string(out), "github.com/someone/shipyard@v1.0.0") || !strings.Contains(string(out), "<org>/shipyard@<commit>") {
		t.Errorf("Repin touched what is not a pin:\n%s", out)
	}
	if again, n, _ := Repin(out, sha, "v0.2.0"); n != 3 || string(again) != string(out) {
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
		out, n, err := Repin([]byte(s), sha, "v9.9.9")
		if err != nil || n != len(pins) {
			t.Fatalf("found %d pins, rewrote %d (%v)", len(pins), n, err)
		}
		if len(FindPins("f", out)) != len(pins) {
			t.Fatalf("the pins of %q changed in number after Repin: %q", s, out)
		}
	})
}

func TestCheckPinnedRelease(t *testing.T) {
	wf := func(commit, tag string) Pin {
		return Pin{File: "examples/github-actions/x/w.yml", Line: 2, Commit: commit, Tag: tag}
	}
	doc := func(tag string) Pin { return Pin{File: "README.md", Line: 5, Tag: tag} }
	other := strings.Repeat("4", 40)
	tests := []struct {
		name string
		rel  PinnedRelease
		want string // part of the problems; "" for none
	}{
		{"tagged commit", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0"), doc("v0.2.0")}, TagCommit: sha}, ""},
		{"prepared, not tagged yet", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0")}, Preparing: "0.2.0"}, ""},
		{"not tagged, not prepared", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0")}, Preparing: "0.1.0"}, "not tagged and not the release"},
		{"the re-pin commit is tagged", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0")}, TagCommit: other,
			Changed: []string{"models/modelrelease/template/ci.yml", "docs/tesk-core.md"}, ChangedKnown: true}, ""},
		{"the tag does not descend from the pin", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0")}, TagCommit: other}, "does not descend"},
		{"code changed after the pin", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0")}, TagCommit: other,
			Changed: []string{"pipelines/ci/ci.go"}, ChangedKnown: true}, "pipelines/ci/ci.go changed"},
		{"no tag comment", PinnedRelease{Pins: []Pin{wf(sha, "")}}, "has no tag comment"},
		{"a workflow pins a tag only", PinnedRelease{Pins: []Pin{{File: "a.yml", Line: 1, Tag: "v0.2.0"}}}, "names a tag only"},
		{"two releases", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0"), doc("v0.1.0")}, TagCommit: sha}, "every file pins the same release"},
		{"two commits", PinnedRelease{Pins: []Pin{wf(sha, "v0.2.0"), wf(other, "v0.2.0")}, TagCommit: sha}, "every file pins the same release"},
		{"nothing pinned", PinnedRelease{}, "no file pins"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(CheckPinnedRelease(tt.rel), "\n")
			if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
				t.Errorf("problems %q, want %q", got, tt.want)
			}
		})
	}
	if !IsPinnedFile("examples/github-actions/tesk-core/ci.yml") || !IsPinnedFile("docs/x.md") || IsPinnedFile("docs/releases/0.1.0.md") || IsPinnedFile("main.go") {
		t.Error("IsPinnedFile")
	}
}
