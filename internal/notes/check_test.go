package notes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

const validNotes = `This release publishes the images as tesk-core-taskmaster and tesk-core-filer, with tags
without the v. Operators must update TESK's Helm chart: see the
[upgrade notes](https://github.com/elixir-cloud-aai/TESK/blob/main/docs/upgrade.md).

## Breaking changes

- Image tags no longer start with ` + "`v`" + ` (#101, #102)

## Features

* Filer uploads large files in parts, see
  [multipart uploads](https://docs.aws.amazon.com/AmazonS3/latest/userguide/mpuoverview.html)
  (#7)
- Taskmaster logs in JSON ![diagram](https://example.org/d.png) (#8)
  - also for the filer (#9)

## Fixes

- Retry failed uploads <https://github.com/elixir-cloud-aai/tesk-core/issues/5> (#5, #6)

## Maintenance

- Bump dependencies, see [the report][report] (#40)

[report]: https://github.com/elixir-cloud-aai/tesk-core/pull/40
`

func TestCheckValid(t *testing.T) {
	tests := map[string]string{
		"plain":      validNotes,
		"crlf":       strings.ReplaceAll(validNotes, "\n", "\r\n"),
		"bom":        "\uFEFF" + validNotes,
		"no newline": strings.TrimSuffix(validNotes, "\n"),
		"intro only": "A re-release of 0.10.6 with the new image names.\n",
		"fence in intro": "The config now reads:\n\n```yaml\n# not a heading\n- not a bullet\n[x](relative)\n```\n\n" +
			"## Fixes\n\n- a (#1)\n",
		"code span link":        "Intro with `[x](docs/a.md)` in code.\n\n## Fixes\n\n- Fix ``a`b`` (#3)\n",
		"fence in bullet":       "Intro.\n\n## Fixes\n\n- Fix the config:\n  ```\n  ## not a heading\n  ```\n  (#1)\n",
		"blank lines in bullet": "Intro.\n\n## Fixes\n\n- a\n\n  more about a (#1)\n\n\n- b (#2)\n",
		"closing hashes":        "Intro.\n\n## Fixes ##\n\n- a (#1)\n",
		"hashtag prose":         "#hashtag is prose, not a heading.\n\n## Fixes\n\n- a (#1)\n",
		"html link":             "Intro <a href=\"https://example.org\">x</a>.\n\n## Security\n\n- CVE-2024-1 <img src='https://example.org/a.png'> (#1)\n",
		"not a link":            "An unclosed [x](docs/a.md and a [bracket] (docs/b.md) are text.\n",
		"paren url":             "See [Foo](https://en.wikipedia.org/wiki/Foo_(bar)).\n\n## Documentation\n\n- a (#1)\n",
	}
	for name, content := range tests {
		if got := Check("docs/releases/0.11.0.md", []byte(content)); len(got) != 0 {
			t.Errorf("%s: Check = %v, want no problems", name, got)
		}
	}
}

type wantProblem struct {
	line int
	text string // a part of the message naming the rule or the fix
}

func TestCheckProblems(t *testing.T) {
	const head = "Intro.\n\n"
	tests := []struct {
		name    string
		content string
		want    []wantProblem
	}{
		{"empty", "", []wantProblem{{1, "is empty"}}},
		{"whitespace only", " \n\t\r\n\n", []wantProblem{{1, "is empty"}}},
		{"section first", "## Fixes\n- a (#1)\n", []wantProblem{{1, "no intro"}}},
		{"blank then section first", "\n\n## Fixes\n- a (#1)\n", []wantProblem{{3, "no intro"}}},
		{"title above intro", "# Release 0.11.0\n\nIntro.\n\n## Fixes\n- a (#1)\n", []wantProblem{{1, `heading "# Release 0.11.0"`}}},
		{"bullets in intro", "Intro.\n- a (#1)\n1. b\n", []wantProblem{{2, "list item in the intro"}, {3, "list item in the intro"}}},
		{"setext dashes", "Intro\n---\n\n## Fixes\n- a (#1)\n", []wantProblem{{2, "makes that text a heading"}}},
		{"setext equals", "Intro\n===\n", []wantProblem{{2, "makes that text a heading"}}},
		{"rule in intro", "Intro.\n\n* * *\n", []wantProblem{{3, "horizontal rule"}}},
		{"out of order", head + "## Fixes\n- a (#1)\n\n## Features\n- b (#2)\n", []wantProblem{{6, `"## Features" is out of order: it goes before "## Fixes"`}}},
		{"duplicate", head + "## Fixes\n- a (#1)\n## Fixes\n- b (#2)\n", []wantProblem{{5, "first on line 3"}}},
		{"empty section", head + "## Features\n\n## Fixes\n- a (#1)\n", []wantProblem{{3, `"## Features" has no bullets`}}},
		{"empty last section", head + "## Fixes\n- a (#1)\n## Maintenance\n\n", []wantProblem{{5, `"## Maintenance" has no bullets`}}},
		{"alias", head + "## Bug fixes\n- a (#1)\n", []wantProblem{{3, `use "## Fixes"`}}},
		{"case", head + "## features\n- a (#1)\n", []wantProblem{{3, `exactly as "## Features"`}}},
		{"generated header", head + "## What's Changed\n- a (#1)\n", []wantProblem{{3, "adds GitHub's generated notes itself"}}},
		{"unknown", head + "## Misc\n- a (#1)\n", []wantProblem{{3, `unknown section "## Misc"`}}},
		{"sub-heading", head + "## Features\n### Helm\n- a (#1)\n", []wantProblem{{4, `"### Helm" inside section "## Features"`}}},
		{"level 1 in section", head + "## Features\n- a (#1)\n# Other\n", []wantProblem{{5, `"# Other" inside section`}}},
		{"prose in section", head + "## Features\nSome text.\n", []wantProblem{{3, "has no bullets"}, {4, "is not a bullet"}}},
		{"no refs", head + "## Fixes\n- a\n", []wantProblem{{4, "does not end with its issue and pull request numbers"}}},
		{"refs mid-bullet", head + "## Fixes\n- a (#1) and b\n", []wantProblem{{4, "does not end with"}}},
		{"period after refs", head + "## Fixes\n- a (#1).\n", []wantProblem{{4, "text after its issue"}}},
		{"refs without space", head + "## Fixes\n- a (#1,#2)\n", []wantProblem{{4, "not written as (#12, #34)"}}},
		{"refs with words", head + "## Fixes\n- a (PR #12)\n", []wantProblem{{4, "not written as"}}},
		{"refs leading zero", head + "## Fixes\n- a (#012)\n", []wantProblem{{4, "not written as"}}},
		{"empty bullet", head + "## Fixes\n-\n- a (#1)\n", []wantProblem{{4, "empty bullet"}}},
		{"lazy continuation", head + "## Fixes\n- a\nmore (#1)\n", []wantProblem{{5, "continuation of the bullet on line 4 is not indented"}}},
		{"refs only in second bullet", head + "## Fixes\n- a\n- b (#1)\n", []wantProblem{{4, "does not end with"}}},
		{"rule in section", head + "## Fixes\n- a (#1)\n- - -\n", []wantProblem{{5, "horizontal rule in section"}}},
		{"plus bullet", head + "## Fixes\n+ a (#1)\n", []wantProblem{{3, "has no bullets"}, {4, `start with "- " or "* "`}}},
		{"numbered", head + "## Fixes\n- a (#1)\n\n1. b (#2)\n", []wantProblem{{6, `start with "- " or "* "`}}},
		{"indented no bullet", head + "## Fixes\n  a (#1)\n", []wantProblem{{3, "has no bullets"}, {4, "indented line with no bullet"}}},
		{"fence in section", head + "## Fixes\n- a (#1)\n\n```\n- b\n```\n", []wantProblem{{6, "is not a bullet"}}},
		{"relative link", head + "See [x](docs/a.md).\n", []wantProblem{{3, `relative link "docs/a.md"`}}},
		{"parent link", "See [x](../a).\n", []wantProblem{{1, `relative link "../a"`}}},
		{"site link", "See [x](/docs/a).\n", []wantProblem{{1, `relative link "/docs/a"`}}},
		{"protocol relative", "See [x](//example.org/a).\n", []wantProblem{{1, "relative link"}}},
		{"anchor link", "See [x](#upgrade).\n", []wantProblem{{1, "anchor"}}},
		{"image", head + "## Fixes\n- a ![d](img/d.png) (#1)\n", []wantProblem{{4, `relative link "img/d.png"`}}},
		{"angle link", "See [x](<docs/a b.md>).\n", []wantProblem{{1, `relative link "docs/a b.md"`}}},
		{"empty link", "See [x]().\n", []wantProblem{{1, "empty link"}}},
		{"bare scheme", "See [x](https://).\n", []wantProblem{{1, "not an http:// or https:// link"}}},
		{"mailto", "Mail [us](mailto:a@b.org).\n", []wantProblem{{1, "not an http:// or https:// link"}}},
		{"reference definition", "See [x][d].\n\n[d]: docs/a.md\n", []wantProblem{{3, `relative link "docs/a.md"`}}},
		{"reference in section", head + "## Fixes\n- a [x][d] (#1)\n\n[d]: ./d\n", []wantProblem{{6, `relative link "./d"`}}},
		{"html href", `Intro <a href="docs/a.md">x</a>.` + "\n", []wantProblem{{1, `relative link "docs/a.md"`}}},
		{"link in continuation", head + "## Fixes\n- a\n  [x](a.md) (#1)\n", []wantProblem{{5, `relative link "a.md"`}}},
		{"link in heading", head + "## [Fixes](x.md)\n", []wantProblem{{3, `relative link "x.md"`}, {3, "unknown section"}}},
		{"link with title", "See [x](docs/a.md \"A\") and [y](b.md 'B') and [z](c.md (C)).\n", []wantProblem{{1, `"docs/a.md"`}, {1, `"b.md"`}, {1, `"c.md"`}}},
		{"two links one line", "[a](a.md) and [b](b.md)\n", []wantProblem{{1, `"a.md"`}, {1, `"b.md"`}}},
		{"invalid UTF-8", "Intro \xff.\n\n## Fixes\n- a (#1)\n", []wantProblem{{1, "not valid UTF-8"}}},
		{"invalid UTF-8 in bullet", head + "## Fixes\n- a \xc3 (#1)\n", []wantProblem{{4, "not valid UTF-8"}}},
		{"CRLF problems keep lines", "Intro.\r\n\r\n## Fixes\r\n- a\r\n", []wantProblem{{4, "does not end with"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check("0.11.0.md", []byte(tt.content))
			if len(got) != len(tt.want) {
				t.Fatalf("Check = %v, want %d problem(s) %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got[i].Line != w.line || !strings.Contains(got[i].Message, w.text) {
					t.Errorf("problem %d = %v, want line %d with %q", i, got[i], w.line, w.text)
				}
			}
		})
	}
}

// Every message names the rule and says how to fix it, so each has a ':' or a directive.
func TestCheckMessagesSayHowToFix(t *testing.T) {
	bad := "## Misc\n# T\nIntro\n- a\n* * *\n## Fixes\nx\n  y\n+ z\n- [a](b) (#1).\n- (PR 1)\n## Fixes\n## Features\n-\n[r]: #x\n"
	problems := Check("x.md", []byte(bad))
	if len(problems) < 8 {
		t.Fatalf("Check found %d problems in a file breaking most rules: %v", len(problems), problems)
	}
	for _, p := range problems {
		if !strings.Contains(p.Message, ":") {
			t.Errorf("message %q does not say how to fix the problem", p.Message)
		}
	}
}

func TestProblemRendering(t *testing.T) {
	ps := []Problem{{Line: 3, Message: "m1"}, {Line: 7, Message: "m2"}}
	if got := ps[0].String(); got != "line 3: m1" {
		t.Errorf("String() = %q", got)
	}
	if got, want := Format("docs/releases/0.11.0.md", ps), "docs/releases/0.11.0.md:3: m1\ndocs/releases/0.11.0.md:7: m2\n"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if Err("a.md", nil) != nil {
		t.Error("Err without problems is not nil")
	}
	err := Err("a.md", ps)
	if err == nil || !strings.Contains(err.Error(), "2 problem(s) in a.md") || !strings.HasSuffix(err.Error(), "a.md:7: m2") {
		t.Errorf("Err = %v", err)
	}
	if s := Sections(); len(s) != 6 || s[0] != "Breaking changes" || s[5] != "Maintenance" {
		t.Errorf("Sections() = %v", s)
	}
	Sections()[0] = "changed"
	if Sections()[0] != "Breaking changes" {
		t.Error("Sections() exposes the package's slice")
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(validNotes))
	f.Add([]byte("## Fixes\n- a\n```\n"))
	f.Add([]byte("Intro [x](<a) ``b` \xff\r\n## Fixes ##\n  - (#1)\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		problems := Check("f.md", content)
		lines := strings.Count(string(content), "\n") + 1
		for i, p := range problems {
			if p.Line < 1 || p.Line > lines {
				t.Fatalf("problem %v outside lines 1..%d", p, lines)
			}
			if p.Message == "" || !utf8.ValidString(p.Message) && utf8.ValidString(string(content)) {
				t.Fatalf("bad message in %v", p)
			}
			if i > 0 && problems[i-1].Line > p.Line {
				t.Fatalf("problems not sorted by line: %v", problems)
			}
		}
	})
}

func TestStripCodeSpans(t *testing.T) {
	tests := []struct{ line, want string }{
		{"no code", "no code"},
		{"see `[x](y)` here", "see " + strings.Repeat(" ", len("`[x](y)`")) + " here"},
		// A span opened by two backticks closes only on two: the single one inside is code.
		{"``a ` [b](c)`` [d](e)", strings.Repeat(" ", len("``a ` [b](c)``")) + " [d](e)"},
		// A longer run does not close a shorter one; an unclosed run is plain text.
		{"`a`` b` c", strings.Repeat(" ", len("`a`` b`")) + " c"},
		{"``open [x](y)", "``open [x](y)"},
	}
	for _, tt := range tests {
		if got := stripCodeSpans(tt.line); got != tt.want {
			t.Errorf("stripCodeSpans(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestClosingRun(t *testing.T) {
	tests := []struct {
		s       string
		from, n int
		want    int
	}{
		{"a`b", 0, 1, 1},
		{"a``b`c", 0, 1, 4},
		{"a``b`c", 0, 2, 1},
		{"a```b", 0, 2, -1},
		{"", 0, 1, -1},
	}
	for _, tt := range tests {
		if got := closingRun([]byte(tt.s), tt.from, tt.n); got != tt.want {
			t.Errorf("closingRun(%q, %d, %d) = %d, want %d", tt.s, tt.from, tt.n, got, tt.want)
		}
	}
}
