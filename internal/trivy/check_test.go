package trivy

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/corpus"
)

// want describes one expected problem: its line, whether it is a warning, and words its
// message must hold (the entry, the field, the fix).
type want struct {
	line    int
	warning bool
	words   []string
}

func w(line int, words ...string) want      { return want{line: line, words: words} }
func warnAt(line int, words ...string) want { return want{line: line, warning: true, words: words} }
func missing(line int, id string, f ...string) []want {
	var out []want
	for _, field := range f {
		out = append(out, w(line, fmt.Sprintf("%q", id), "no "+field, "add"))
	}
	return out
}

func assertProblems(t *testing.T, got []Problem, wants []want) {
	t.Helper()
	for i := 0; i < max(len(got), len(wants)); i++ {
		switch {
		case i >= len(got):
			t.Errorf("missing problem %d: %+v", i, wants[i])
			continue
		case i >= len(wants):
			t.Errorf("unexpected problem: %s", got[i])
			continue
		}
		g, x := got[i], wants[i]
		ok := g.Line == x.line && g.Warning == x.warning
		for _, word := range x.words {
			ok = ok && strings.Contains(g.Message, word)
		}
		if !ok {
			t.Errorf("problem %d = %s, want line %d warning %v with %q", i, g, x.line, x.warning, x.words)
		}
	}
}

func concat(parts ...[]want) []want {
	var out []want
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// The documented example has no statements or expiries on most entries: right for Trivy,
// wrong for tesk-core, which wants a reason and a date on every accepted finding.
func TestCheckIgnoreFileDocumentedExample(t *testing.T) {
	content := corpus.Read(t, "trivy", "trivyignore-examples.yaml")
	both := []string{"statement", "expired_at"}
	common := func(expiry want) []want {
		return concat(
			missing(4, "CVE-2022-40897", "expired_at"),
			missing(8, "CVE-2023-2650", both...),
			missing(9, "CVE-2023-3446", both...),
			missing(10, "CVE-2023-3817", both...),
			missing(13, "CVE-2023-29491", "statement"),
			[]want{expiry},
			missing(17, "AVD-DS-0001", both...),
			missing(18, "AVD-DS-0002", "expired_at"),
			missing(24, "aws-access-key-id", both...),
			missing(25, "aws-secret-access-key", both...),
			missing(30, "GPL-3.0", both...),
			missing(33, "MIT AND GPL-2.0-or-later", both...),
			missing(34, "Apache-2.0 WITH LLVM-exception", both...),
			missing(35, "LLVM-exception", both...),
		)
	}
	t.Run("a week before the expiry", func(t *testing.T) {
		assertProblems(t, CheckIgnoreFile(content, time.Date(2023, 8, 25, 12, 0, 0, 0, time.UTC)),
			common(warnAt(14, `"CVE-2023-29491"`, "expires on 2023-09-01", "in 7 days", "renew")))
	})
	t.Run("the day of the expiry", func(t *testing.T) {
		assertProblems(t, CheckIgnoreFile(content, time.Date(2023, 9, 1, 9, 0, 0, 0, time.UTC)),
			common(w(14, `"CVE-2023-29491"`, "expired on 2023-09-01", "reports the finding again", "renew")))
	})
}

// Trivy's own fixture, checked on the day of Trivy's test clock.
func TestCheckIgnoreFileTrivyFixture(t *testing.T) {
	content := corpus.Read(t, "trivy", "trivyignore-testdata.yaml")
	both := []string{"statement", "expired_at"}
	var wants []want
	for _, e := range []struct {
		line int
		id   string
	}{{4, "CVE-2019-0001"}, {7, "CVE-2019-0002"}, {10, "CVE-2019-0003"}, {11, "CVE-2019-0004"}} {
		wants = append(wants, missing(e.line, e.id, both...)...)
	}
	wants = concat(wants,
		missing(14, "CVE-2019-0005", "statement"),
		missing(16, "CVE-2019-0006", "statement"),
		[]want{w(17, `"CVE-2019-0006"`, "expired on 2020-01-01")},
		missing(18, "CVE-2019-0007", both...),
	)
	for _, e := range []struct {
		line int
		id   string
	}{{24, "ID100"}, {25, "ID200"}, {28, "ID300"}, {31, "AVD-ID400"}, {33, "generic-unwanted-rule"}, {34, "generic-unwanted-rule2"},
		{37, "generic-wanted-rule"}, {41, "GPL-3.0"}, {44, "MIT"}, {45, "GPL-2.0-or-later"}, {46, "Apache-2.0 WITH LLVM-exception"}, {47, "LLVM-exception"}} {
		wants = append(wants, missing(e.line, e.id, both...)...)
	}
	assertProblems(t, CheckIgnoreFile(content, time.Date(2020, 8, 10, 7, 28, 17, 0, time.UTC)), wants)
}

// The plain .trivyignore format is not YAML Trivy would read as .trivyignore.yaml.
func TestCheckIgnoreFileRefusesPlainFormat(t *testing.T) {
	problems := CheckIgnoreFile(corpus.Read(t, "trivy", "trivyignore-plain.txt"), date(2024, 1, 1))
	assertProblems(t, problems, []want{w(2, "Trivy cannot load the file", "top level is", "make it a mapping")})
}

func TestCheckIgnoreFile(t *testing.T) {
	today := time.Date(2025, 6, 1, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		yaml string
		want []want
	}{
		{"fine", `
vulnerabilities:
  - id: CVE-2024-1
    statement: Not reachable; the filer never parses untrusted certificates.
    expired_at: 2025-09-01
`, nil},
		{"empty file", "", nil},
		{"comments only", "# nothing accepted\n", nil},
		{"expired", `
vulnerabilities:
  - id: CVE-2024-1
    statement: s
    expired_at: 2025-05-01
`, []want{w(5, `"CVE-2024-1"`, "expired on 2025-05-01", "renew", "later expired_at")}},
		{"expiring in 10 days", `
vulnerabilities:
  - id: CVE-2024-1
    statement: s
    expired_at: 2025-06-11
`, []want{warnAt(5, `"CVE-2024-1"`, "expires on 2025-06-11", "in 10 days")}},
		{"expiring in 14 days", "vulnerabilities:\n  - {id: a, statement: s, expired_at: 2025-06-15}\n",
			[]want{warnAt(2, "expires on 2025-06-15", "in 14 days")}},
		{"expiring in 15 days", "vulnerabilities:\n  - {id: a, statement: s, expired_at: 2025-06-16}\n", nil},
		{"missing statement", `
vulnerabilities:
  - id: CVE-2024-1
    expired_at: 2025-09-01
`, []want{w(3, `"CVE-2024-1"`, "no statement", "why")}},
		{"blank statement", "vulnerabilities:\n  - {id: a, statement: '  ', expired_at: 2025-09-01}\n",
			[]want{w(2, `"a"`, "no statement")}},
		{"missing expired_at", `
vulnerabilities:
  - id: CVE-2024-1
    statement: s
`, []want{w(3, `"CVE-2024-1"`, "no expired_at", "YYYY-MM-DD")}},
		{"null expired_at", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at:\n", []want{w(2, "no expired_at")}},
		{"missing id", "secrets:\n  - statement: s\n    expired_at: 2025-09-01\n", []want{w(2, "secrets entry at line 2", "no id")}},
		{"empty entry", "licenses:\n  -\n  - {id: MIT, statement: s, expired_at: 2025-09-01}\n", []want{w(2, "licenses", "empty entry")}},
		{"bad date", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-02-30\n",
			[]want{w(4, "Trivy cannot load the file", `"a"`, "not a date", "YYYY-MM-DD")}},
		{"not a date", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: next week\n",
			[]want{w(4, "Trivy cannot load the file", "not a date")}},
		{"quoted date", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: \"2025-09-01\"\n",
			[]want{w(4, "Trivy cannot load the file", "is quoted", "without quotes")}},
		{"date without zero padding", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-9-1\n",
			[]want{w(4, `"2025-9-1"`, "YYYY-MM-DD")}},
		{"date and time", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-09-01T12:00:00Z\n",
			[]want{w(4, "YYYY-MM-DD")}},
		{"misspelt expired_at", "vulnerabilities:\n  - id: a\n    statement: s\n    expires_at: 2025-09-01\n",
			[]want{w(2, "no expired_at"), w(4, `unknown key "expires_at"`, `did you mean "expired_at"?`)}},
		{"reason instead of statement", "vulnerabilities:\n  - id: a\n    reason: s\n    expired_at: 2025-09-01\n",
			[]want{w(2, "no statement"), w(3, `unknown key "reason"`, `did you mean "statement"?`)}},
		{"unrelated key", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-09-01\n    severity: HIGH\n",
			[]want{w(5, `unknown key "severity"`, "the keys are id, statement, expired_at, paths, purls")}},
		{"misspelt section", "vulnerabilites:\n  - {id: a, statement: s, expired_at: 2025-09-01}\n",
			[]want{w(1, `unknown top-level key "vulnerabilites"`, `did you mean "vulnerabilities"?`)}},
		{"purls outside vulnerabilities", "secrets:\n  - {id: a, statement: s, expired_at: 2025-09-01, purls: [\"pkg:npm/a\"]}\n",
			[]want{w(2, "purls only for vulnerabilities")}},
		{"bad glob", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-09-01\n    paths: [\"a/[b\"]\n",
			[]want{w(5, "Trivy cannot load the file", `path "a/[b" is not a valid glob`)}},
		{"bad purl", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-09-01\n    purls: [bash]\n",
			[]want{w(5, "Trivy cannot load the file", `"bash"`, "pkg:deb/debian/openssl")}},
		{"paths not a list", "vulnerabilities:\n  - id: a\n    statement: s\n    expired_at: 2025-09-01\n    paths: app/*.jar\n",
			[]want{w(5, "Trivy cannot load the file", "paths is", "list of strings")}},
		{"id not text", "vulnerabilities:\n  - id: [a]\n    statement: s\n    expired_at: 2025-09-01\n",
			[]want{w(2, "Trivy cannot load the file", "id is a list"), w(2, "no id")}},
		{"repeated key", "vulnerabilities:\n  - id: a\n    statement: s\n    statement: t\n    expired_at: 2025-09-01\n",
			[]want{w(4, "Trivy cannot load the file", `key "statement" repeats the one at line 3`)}},
		{"repeated section", "secrets: []\nsecrets: []\n", []want{w(2, "Trivy cannot load the file", `key "secrets"`)}},
		{"section not a list", "vulnerabilities: CVE-2024-1\n", []want{w(1, "Trivy cannot load the file", "vulnerabilities is", "list of entries")}},
		{"entry not a mapping", "vulnerabilities:\n  - CVE-2024-1\n", []want{w(2, "Trivy cannot load the file", "an entry is", "mapping")}},
		{"syntax error", "vulnerabilities:\n  - id: a\n    statement: b: c\n", []want{w(3, "Trivy cannot load the file", "invalid YAML", "mapping values")}},
		{"merge key", "base: &b {statement: s, expired_at: 2025-09-01}\nvulnerabilities:\n  - <<: *b\n    id: a\n",
			[]want{w(1, `unknown top-level key "base"`), w(3, "merge key"), w(3, `"a"`, "no statement"), w(3, `"a"`, "no expired_at")}},
		{"alias of an entry", "vulnerabilities:\n  - &e {id: a, statement: s, expired_at: 2025-09-01}\n  - *e\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems, rejected := check([]byte(tt.yaml), today)
			assertProblems(t, problems, tt.want)
			if _, err := ParseIgnoreFile([]byte(tt.yaml)); (err != nil) != rejected {
				t.Errorf("check says Trivy refuses = %v, ParseIgnoreFile error = %v", rejected, err)
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	if got := (Problem{Line: 3, Message: "m", Warning: true}).String(); got != "line 3: warning: m" {
		t.Errorf("String() = %q", got)
	}
	if got := (Problem{Line: 4, Message: "m"}).String(); got != "line 4: error: m" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzCheckIgnoreFile(f *testing.F) {
	for _, s := range []string{
		"vulnerabilities:\n  - id: CVE-1\n    statement: s\n    expired_at: 2025-09-01\n    paths: [\"**/a\"]\n    purls: [\"pkg:deb/debian/a@1\"]\n",
		"vulnerabilities:\n  - id: a\n    expired_at: \"2025-09-01\"\n",
		"vulnerabilities:\n  - &e {id: a}\n  - *e\nsecrets: *e\n",
		"base: &b {statement: s}\nlicenses:\n  - <<: *b\n    id: x\n",
		"- a\n", "a: b: c\n", "secrets: []\nsecrets: []\n", "misconfigurations:\n  -\n",
	} {
		f.Add([]byte(s))
	}
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, content []byte) {
		problems, rejected := check(content, now)
		// YAML also breaks lines at \r and, as yaml.v3 reads it, at NEL, LS and PS.
		lines := 2
		for _, br := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
			lines += strings.Count(string(content), br)
		}
		for _, p := range problems {
			if p.Message == "" || p.Line < 0 || p.Line > lines {
				t.Fatalf("problem %+v out of range for %d lines", p, lines)
			}
		}
		parsed, err := ParseIgnoreFile(content)
		if (err != nil) != rejected {
			t.Fatalf("check says Trivy refuses = %v, ParseIgnoreFile error = %v\nproblems: %v", rejected, err, problems)
		}
		if len(problems) == 0 {
			for _, e := range parsed.Vulnerabilities {
				if e.ID == "" || strings.TrimSpace(e.Statement) == "" || e.Expired(now) || e.ExpiredAt.IsZero() {
					t.Fatalf("no problems, but entry %+v breaks the rules", e)
				}
			}
		}
	})
}
