package notes

import (
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

const curatedFixture = "This release brings S3 uploads.\n\n## Features\n\n- S3 uploads (#7, #8)\n"

func TestComposeHandmade(t *testing.T) {
	const footer = "**Full Changelog**: https://github.com/o/r/compare/v0.10.6...v0.11.0"
	tests := []struct {
		name, curated, generated, want string
	}{
		{
			name:    "categories and new contributors",
			curated: curatedFixture,
			generated: "<!-- Release notes generated using configuration in .github/release.yml at main -->\n\n" +
				"## What's Changed\n### Fixes\n* Fix a by @a in https://github.com/o/r/pull/1\n\n" +
				"## New Contributors\n* @a made their first contribution in https://github.com/o/r/pull/1\n\n" + footer,
			want: curatedFixture + "\n## Commits\n\n### Fixes\n* Fix a by @a in https://github.com/o/r/pull/1\n\n" +
				"## New Contributors\n* @a made their first contribution in https://github.com/o/r/pull/1\n\n" + footer + "\n",
		},
		{
			name:      "empty generated notes",
			curated:   curatedFixture,
			generated: "<!-- Release notes generated using configuration in .github/release.yml at main -->\n\n\n\n" + footer + "\n",
			want:      curatedFixture + "\n" + footer + "\n",
		},
		{
			name:      "two blank lines before the footer",
			curated:   curatedFixture + "\n\n\n",
			generated: "## What's Changed\n* a by @a in https://github.com/o/r/pull/1\n\n\n" + footer + "\n",
			want:      curatedFixture + "\n## Commits\n\n* a by @a in https://github.com/o/r/pull/1\n\n" + footer + "\n",
		},
		{
			name:      "first release",
			curated:   curatedFixture,
			generated: "## What's Changed\n* a by @a in https://github.com/o/r/pull/1\n\n**Full Changelog**: https://github.com/o/r/commits/v0.1.0",
			want:      curatedFixture + "\n## Commits\n\n* a by @a in https://github.com/o/r/pull/1\n\n**Full Changelog**: https://github.com/o/r/commits/v0.1.0\n",
		},
		{
			name:      "CRLF",
			curated:   strings.ReplaceAll(curatedFixture, "\n", "\r\n"),
			generated: "## What's Changed\r\n* a by @a in https://github.com/o/r/pull/1\r\n\r\n" + footer + "\r\n",
			want:      curatedFixture + "\n## Commits\n\n* a by @a in https://github.com/o/r/pull/1\n\n" + footer + "\n",
		},
		{
			name:      "footer not last in the input",
			curated:   curatedFixture,
			generated: footer + "\n\n## What's Changed\n* a by @a in https://github.com/o/r/pull/1\n",
			want:      curatedFixture + "\n## Commits\n\n* a by @a in https://github.com/o/r/pull/1\n\n" + footer + "\n",
		},
		{
			name:      "no footer",
			curated:   curatedFixture,
			generated: "## What's Changed\n* a by @a in https://github.com/o/r/pull/1\n",
			want:      curatedFixture + "\n## Commits\n\n* a by @a in https://github.com/o/r/pull/1\n",
		},
		{
			name:      "no curated notes",
			curated:   "\n \n",
			generated: "## What's Changed\n* a\n\n" + footer,
			want:      "## Commits\n\n* a\n\n" + footer + "\n",
		},
		{
			name:      "curated blank runs are the author's",
			curated:   "Intro.\n\n\n## Fixes\n\n- a (#1)",
			generated: footer,
			want:      "Intro.\n\n\n## Fixes\n\n- a (#1)\n\n" + footer + "\n",
		},
		{name: "nothing", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Compose(tt.curated, tt.generated); got != tt.want {
				t.Errorf("Compose =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func headings(s string) []string {
	var hs []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "#") {
			hs = append(hs, l)
		}
	}
	return hs
}

func countBullets(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "* ") || strings.HasPrefix(l, "- ") {
			n++
		}
	}
	return n
}

// The expectations per corpus file come from the corpus README's description of each body.
func TestComposeCorpus(t *testing.T) {
	if problems := Check("curated.md", []byte(validNotes)); len(problems) != 0 {
		t.Fatalf("the curated fixture itself has problems: %v", problems)
	}
	curatedHeadings := headings(validNotes)
	tests := []struct {
		file        string
		headings    []string // after the curated ones
		genBullets  int
		footerTail  string
		hasComments bool
	}{
		{"generated-1.md", []string{"## Commits"}, 12, "/compare/1.2.3...1.3.0", false},
		{"generated-2.md", []string{"## Commits", "### Other Changes 🔗", "## New Contributors"}, 2, "/compare/0.4.5...0.4.6", true},
		{"generated-3.md", []string{"## Commits", "### 🐞 Bug Fixes", "### 🚀 Performance Improvements", "### 🏆 Improvements",
			"### 📄 Website and API Documentation", "## New Contributors"}, 23, "/compare/Lucene.Net_4_8_0_beta00017...Lucene.Net_4_8_0_beta00018", true},
		{"generated-4-empty.md", nil, 0, "/compare/0.4.8...0.4.9", true},
		{"generated-5-first-release.md", []string{"## Commits", "## New Contributors"}, 6, "/commits/static-data-portal-1.0.4", false},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			gen := string(corpus.Read(t, "release-notes", tt.file))
			if tt.hasComments != strings.Contains(gen, "<!-- Release notes generated") {
				t.Fatalf("corpus file differs from its description (config comment)")
			}
			if got := countBullets(gen); got != tt.genBullets {
				t.Fatalf("corpus file has %d bullets, its description %d", got, tt.genBullets)
			}
			out := Compose(validNotes, gen)

			if !strings.HasPrefix(out, strings.TrimRight(validNotes, "\n")+"\n\n") {
				t.Errorf("output does not start with the curated notes:\n%s", out)
			}
			wantHeadings := append(slices.Clone(curatedHeadings), tt.headings...)
			if got := headings(out); !slices.Equal(got, wantHeadings) {
				t.Errorf("headings = %q, want %q", got, wantHeadings)
			}
			if got, want := countBullets(out), countBullets(validNotes)+tt.genBullets; got != want {
				t.Errorf("%d bullets, want %d", got, want)
			}
			if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
				t.Errorf("output does not end with exactly one newline: %q", out[max(0, len(out)-40):])
			}
			outLines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			last := outLines[len(outLines)-1]
			var inputFooter string
			for _, l := range strings.Split(gen, "\n") {
				if strings.HasPrefix(l, "**Full Changelog**") {
					inputFooter = l
				}
			}
			if last != inputFooter || !strings.HasSuffix(last, tt.footerTail) {
				t.Errorf("last line = %q, want the input's %q ending in %q", last, inputFooter, tt.footerTail)
			}
			if strings.Count(out, "**Full Changelog**") != 1 {
				t.Errorf("the footer appears %d times", strings.Count(out, "**Full Changelog**"))
			}
			generatedPart := strings.TrimPrefix(out, strings.TrimRight(validNotes, "\n"))
			for _, gone := range []string{"## What's Changed", "<!--", "\n\n\n"} {
				if strings.Contains(generatedPart, gone) {
					t.Errorf("the generated part still holds %q", gone)
				}
			}
			// Every generated line other than the dropped ones survives unchanged.
			for _, l := range strings.Split(gen, "\n") {
				if l != "" && l != "## What's Changed" && !strings.HasPrefix(l, "<!--") && !strings.Contains(generatedPart, l+"\n") {
					t.Errorf("generated line %q is missing", l)
				}
			}
		})
	}
}

func FuzzCompose(f *testing.F) {
	f.Add(curatedFixture, "<!-- Release notes generated x -->\n\n## What's Changed\n* a\n\n\n**Full Changelog**: https://github.com/o/r/compare/a...b\n")
	f.Add("", "**Full Changelog**: x\r\n\r\n")
	f.Add("a\r", "b\r\r\n**Full Changelog**\r")
	f.Fuzz(func(t *testing.T, curated, generated string) {
		out := Compose(curated, generated)
		if out == "" {
			if strings.TrimSpace(curated) != "" || strings.Contains(generated, "**Full Changelog**") {
				t.Fatalf("empty output for %q, %q", curated, generated)
			}
			return
		}
		if !strings.HasSuffix(out, "\n") || strings.HasSuffix(out, "\n\n") {
			t.Fatalf("output %q does not end with exactly one newline", out)
		}
		var footer string
		for _, l := range strings.Split(strings.ReplaceAll(generated, "\r\n", "\n"), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "**Full Changelog**") {
				footer = l
			}
		}
		if footer == "" {
			return
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if last := lines[len(lines)-1]; last != footer {
			t.Fatalf("last line %q, want the Full Changelog line %q", last, footer)
		}
	})
}
