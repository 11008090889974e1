package citation

import (
	"strings"
	"testing"
)

const cff = `cff-version: 1.2.0
title: tesk-core
message: If you use this software, please cite it as below.
type: software
authors:
  - given-names: Ada
    family-names: Lovelace
repository-code: https://github.com/elixir-cloud-aai/tesk-core
license: Apache-2.0
version: 0.11.0rc1
date-released: 2025-03-14
`

func TestCheckValid(t *testing.T) {
	tests := []struct {
		name, content, version string
	}{
		{"release candidate", cff, "0.11.0rc1"},
		{"quoted", "version: \"0.11.0\"\ndate-released: '2025-03-14'\n", "0.11.0"},
		{"number", "version: 0.11\ndate-released: 2025-03-14\n", "0.11"},
		{"crlf", strings.ReplaceAll(cff, "\n", "\r\n"), "0.11.0rc1"},
		{"alias", "x: &v 1.2.3\nversion: *v\ndate-released: 2024-02-29\n", "1.2.3"},
		{"flow mapping", "{version: 1.0.0, date-released: 2024-01-01}", "1.0.0"},
		{"document marker", "---\nversion: 1.0.0\ndate-released: 2024-01-01\n...\n", "1.0.0"},
	}
	for _, tt := range tests {
		if got := Check([]byte(tt.content), tt.version); len(got) != 0 {
			t.Errorf("%s: Check = %v, want no problems", tt.name, got)
		}
	}
}

func TestCheckProblems(t *testing.T) {
	type want struct {
		line int
		text string
	}
	const date = "date-released: 2025-03-14\n"
	tests := []struct {
		name, content, version string
		want                   []want
	}{
		{"pre-release suffix missing", strings.Replace(cff, "0.11.0rc1", "0.11.0", 1), "0.11.0rc1",
			[]want{{10, `version is "0.11.0" but the release is "0.11.0rc1" (it lacks the pre-release suffix "rc1")`}}},
		{"extra suffix", "version: 0.11.0rc1\n" + date, "0.11.0", []want{{1, `extra suffix "rc1"`}}},
		{"with v", "version: v0.11.0\n" + date, "0.11.0", []want{{1, "drop the v"}}},
		{"other version", "version: 0.10.6\n" + date, "0.11.0", []want{{1, `set version: "0.11.0", the tag without v`}}},
		{"number text differs", "version: 0.110\n" + date, "0.11", []want{{1, `version is "0.110"`}}},
		{"null version", "version:\n" + date, "0.11.0", []want{{1, "version has no single value"}}},
		{"list version", "version:\n  - 0.11.0\n" + date, "0.11.0", []want{{2, "version has no single value"}}},
		{"missing version", "title: x\n" + date, "0.11.0", []want{{1, "no top-level version"}}},
		{"nested version only", "x:\n  version: 0.11.0\n" + date, "0.11.0", []want{{1, "no top-level version"}}},
		{"missing date", "version: 0.11.0\n", "0.11.0", []want{{1, "no top-level date-released"}}},
		{"month 13", "version: 0.11.0\ndate-released: 2024-13-01\n", "0.11.0", []want{{2, `date-released "2024-13-01" is not a calendar date`}}},
		{"february 30", "version: 0.11.0\ndate-released: \"2024-02-30\"\n", "0.11.0", []want{{2, "not a calendar date"}}},
		{"timestamp", "version: 0.11.0\ndate-released: 2024-01-01T10:00:00Z\n", "0.11.0", []want{{2, "not an ISO date YYYY-MM-DD"}}},
		{"short date", "version: 0.11.0\ndate-released: 2024-1-5\n", "0.11.0", []want{{2, "not an ISO date"}}},
		{"null date", "version: 0.11.0\ndate-released: ~\n", "0.11.0", []want{{2, "date-released has no single value"}}},
		{"both wrong", "version: 0.10.0\n\ndate-released: 14.03.2025\n", "0.11.0", []want{{1, "version is"}, {3, "not an ISO date"}}},
		{"duplicate", "version: 0.11.0\n" + date + "version: 0.10.0\n", "0.11.0", []want{{3, `key "version" is defined again (first on line 1)`}}},
		{"syntax error", "version: 0.11.0\ndate-released: [2025\n", "0.11.0", []want{{2, "not valid YAML (did not find expected ',' or ']')"}}},
		{"unclosed quote", "version: 0.11.0\ntitle: 'open\nx: y\n", "0.11.0", []want{{2, "not valid YAML"}}},
		{"mapping in value", "version: 0.11.0\n" + date + "title: a: b\n", "0.11.0", []want{{3, "not valid YAML (mapping values are not allowed in this context)"}}},
		{"first line", ": x\n", "0.11.0", []want{{1, "not valid YAML"}}},
		{"bad indentation", "title: x\n  version: 0.11.0\n", "0.11.0", []want{{2, "not valid YAML"}}},
		{"tab indentation", "authors:\n\t- a\n", "0.11.0", []want{{2, "not valid YAML"}}},
		{"empty", "", "0.11.0", []want{{1, "CITATION.cff is empty"}}},
		{"comment only", "# nothing\n", "0.11.0", []want{{1, "CITATION.cff is empty"}}},
		{"list", "- version: 0.11.0\n", "0.11.0", []want{{1, "not a YAML mapping"}}},
		{"scalar", "0.11.0\n", "0.11.0", []want{{1, "not a YAML mapping"}}},
		{"no version given", cff, "", []want{{1, "no release version"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check([]byte(tt.content), tt.version)
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

// yamlLineBreaks counts line breaks the way the YAML parser does: CR LF, CR and LF, and the
// Unicode breaks NEL, LS and PS, each ends a line; counting only LF undercounts lines of
// files written with CR alone.
func yamlLineBreaks(s string) int {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	n := 0
	for _, r := range s {
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(cff), "0.11.0rc1")
	f.Add([]byte("version: &a [*a]\ndate-released: 2024-13-01"), "1.0.0")
	f.Add([]byte("{version: 1, date-released: !!str 2024-01-01}"), "1")
	f.Add([]byte("a: &a {b: *a}\n<<: *a\n"), "")
	f.Fuzz(func(t *testing.T, content []byte, version string) {
		problems := Check(content, version)
		lines := yamlLineBreaks(string(content)) + 2 // the parser may point just past the end
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines || p.Message == "" {
				t.Fatalf("problem %v out of range 1..%d or without message", p, lines)
			}
		}
	})
}

func TestVersion(t *testing.T) {
	for _, tt := range []struct {
		content, want, err string
	}{
		{"cff-version: 1.2.0\nversion: 0.11.0rc1\ndate-released: 2025-01-02\n", "0.11.0rc1", ""},
		{"version: 1.10\n", "1.10", ""}, // YAML would read a float; the text is the version
		{"version: &v 0.2.0\nx: *v\n", "0.2.0", ""},
		{"title: x\n", "", "no top-level version"},
		{"version:\n", "", "version has no single value"},
		{"version: [1]\n", "", "version has no single value"},
		{"- a\n", "", "not a YAML mapping"},
		{"version: 'x\n", "", "not valid YAML"},
	} {
		got, err := Version([]byte(tt.content))
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Version(%q) = %q, %v; want %q, %q", tt.content, got, err, tt.want, tt.err)
		}
	}
}

func FuzzVersion(f *testing.F) {
	f.Add("version: 0.11.0\n")
	f.Add("version: *a\n")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := Version([]byte(s))
		if err == nil && strings.TrimSpace(v) == "" {
			t.Fatalf("empty version without an error for %q", s)
		}
	})
}
