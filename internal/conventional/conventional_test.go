package conventional

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"dagger/shipyard/internal/demoworld/corpus"
)

// lines splits a corpus file into its lines, keeping trailing spaces: "fix: " and "fix:" are
// rejected for different reasons.
func lines(t *testing.T, file string) []string {
	t.Helper()
	text := string(corpus.Read(t, "conventional", file))
	out := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(out) == 0 || out[0] == "" {
		t.Fatalf("conventional/%s has no titles", file)
	}
	return out
}

// checkerOnly reports whether a title passes the checker's rules alone (the corpus is about
// the checker, which has no length limit).
func checkerOnly(title string) error {
	_, err := Parse(title)
	return err
}

func TestCorpusValidTitlesAccepted(t *testing.T) {
	for _, title := range lines(t, "valid.txt") {
		if err := checkerOnly(title); err != nil {
			t.Errorf("Parse(%q) = %v, want accepted", title, err)
		}
		err := CheckTitle(title)
		long := utf8.RuneCountInString(title) > MaxTitleLength
		switch {
		case long && (len(Errors(err)) != 1 || Errors(err)[0].Rule != RuleTooLong):
			t.Errorf("CheckTitle(%q) = %v, want only the length rule", title, err)
		case !long && err != nil:
			t.Errorf("CheckTitle(%q) = %v, want nil", title, err)
		}
	}
}

func TestCorpusInvalidTitlesRejected(t *testing.T) {
	for _, title := range lines(t, "invalid.txt") {
		if err := checkerOnly(title); err == nil {
			t.Errorf("Parse(%q) accepted, want rejected", title)
		}
		if err := CheckTitle(title); err == nil {
			t.Errorf("CheckTitle(%q) accepted, want rejected", title)
		}
	}
}

// reasonPattern reads expected.tsv's checker_reason column.
var reasonPattern = regexp.MustCompile(`^(no type|no subject|unknown type '([^']*)')$`)

func TestCorpusExpectedVerdicts(t *testing.T) {
	rows := lines(t, "expected.tsv")
	if got := strings.Join(strings.Split(rows[0], "\t")[:3], ","); got != "title,checker_default,checker_reason" {
		t.Fatalf("expected.tsv header starts %q", got)
	}
	valid, invalid := lines(t, "valid.txt"), lines(t, "invalid.txt")
	seen := 0
	for i, row := range rows[1:] {
		cols := strings.Split(row, "\t")
		if len(cols) != 5 {
			t.Fatalf("expected.tsv row %d has %d columns: %q", i+2, len(cols), row)
		}
		title, verdict, reason := cols[0], cols[1], cols[2]
		err := checkerOnly(title)
		switch verdict {
		case "accept":
			if err != nil {
				t.Errorf("%q: checker accepts, Parse says %v", title, err)
			}
			if !slices.Contains(valid, title) {
				t.Errorf("%q: accepted in expected.tsv but not in valid.txt", title)
			}
		case "reject":
			if !slices.Contains(invalid, title) {
				t.Errorf("%q: rejected in expected.tsv but not in invalid.txt", title)
			}
			m := reasonPattern.FindStringSubmatch(reason)
			if m == nil {
				t.Fatalf("%q: unmapped reason %q", title, reason)
			}
			want := map[string]Rule{"no type": RuleNoType, "no subject": RuleNoSubject}[m[1]]
			wording := map[Rule]string{RuleNoType: "No release type found in pull request title", RuleNoSubject: "No subject found"}[want]
			if m[2] != "" {
				want, wording = RuleUnknownType, `Unknown release type "`+m[2]+`"`
			}
			var te *TitleError
			if !errors.As(err, &te) || te.Rule != want || !strings.Contains(te.Message, wording) {
				t.Errorf("%q: checker rejects (%s), Parse says %v", title, reason, err)
			}
		default:
			t.Fatalf("%q: unknown verdict %q", title, verdict)
		}
		seen++
	}
	if seen != len(valid)+len(invalid) {
		t.Errorf("expected.tsv has %d rows, valid.txt and invalid.txt %d titles", seen, len(valid)+len(invalid))
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		title string
		want  Title
	}{
		{"feat: add thing", Title{Type: "feat", Subject: "add thing"}},
		{"fix(parser): handle arrays", Title{Type: "fix", Scope: "parser", Subject: "handle arrays"}},
		{"feat(api)!: drop v1", Title{Type: "feat", Scope: "api", Breaking: true, Subject: "drop v1"}},
		{"chore!: drop Node 6", Title{Type: "chore", Breaking: true, Subject: "drop Node 6"}},
		{"feat(): empty scope", Title{Type: "feat", Subject: "empty scope"}},
		{"fix(a(b)): nested", Title{Type: "fix", Scope: "a(b)", Subject: "nested"}},
		{"fix:  leading space", Title{Type: "fix", Subject: " leading space"}},
		{"fix: key: value", Title{Type: "fix", Subject: "key: value"}},
		// The greedy scope reads "b)" into the header; the breaking pattern splits it earlier.
		{"fix(a)!: b): c", Title{Type: "fix", Scope: "a)!: b", Breaking: true, Subject: "c"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.title)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", tt.title, got, err, tt.want)
		}
	}
}

func TestCheckTitleRules(t *testing.T) {
	fifty := "feat: " + strings.Repeat("x", 44)
	fiftyRunes := "feat(i18n): " + strings.Repeat("中", 38) // 50 runes, 126 bytes
	tests := []struct {
		name  string
		title string
		rules []Rule
		quote []string
	}{
		{"fine", "fix: prevent racing of requests", nil, nil},
		{"exactly 50", fifty, nil, nil},
		{"50 runes of multibyte text", fiftyRunes, nil, nil},
		{"51", fifty + "y", []Rule{RuleTooLong}, []string{"is 51 characters; at most 50"}},
		{"51 runes", fiftyRunes + "文", []Rule{RuleTooLong}, []string{"is 51 characters; at most 50", "Shorten it by 1"}},
		{"no type", "Fix bug", []Rule{RuleNoType}, []string{"No release type found in pull request title", `"fix: handle empty input"`}},
		{"colon only", "fix:", []Rule{RuleNoType}, []string{"No release type found"}},
		{"no subject", "fix: ", []Rule{RuleNoSubject}, []string{"No subject found"}},
		{"uppercase type", "Feat: add thing", []Rule{RuleUnknownType}, []string{`Unknown release type "Feat"`, `write "feat"`}},
		{"unknown type", "feature: add thing", []Rule{RuleUnknownType}, []string{`Unknown release type "feature"`, "feat, fix, docs"}},
		{"line break", "fix: a\nb", []Rule{RuleNoType}, nil},
		{"carriage return", "fix: a\rb", []Rule{RuleNoType}, nil},
		{"both", "feature: " + strings.Repeat("x", 42), []Rule{RuleUnknownType, RuleTooLong}, []string{"is 51 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTitle(tt.title)
			var got []Rule
			var msgs []string
			for _, te := range Errors(err) {
				got = append(got, te.Rule)
				msgs = append(msgs, te.Message)
				if te.Title != tt.title || te.Error() != te.Message {
					t.Errorf("TitleError %+v does not carry the title and message", te)
				}
			}
			if !slices.Equal(got, tt.rules) {
				t.Fatalf("CheckTitle(%q) rules = %v (%v), want %v", tt.title, got, err, tt.rules)
			}
			for _, q := range tt.quote {
				if !strings.Contains(strings.Join(msgs, "\n"), q) {
					t.Errorf("messages %q lack %q", msgs, q)
				}
			}
			var first *TitleError
			if err != nil && (!errors.As(err, &first) || first.Rule != tt.rules[0]) {
				t.Errorf("errors.As(%v) = %v, want rule %s first", err, first, tt.rules[0])
			}
		})
	}
}

func TestErrorsOfForeignError(t *testing.T) {
	if got := Errors(errors.New("other")); got != nil {
		t.Errorf("Errors(foreign) = %v, want nil", got)
	}
	if got := Errors(nil); got != nil {
		t.Errorf("Errors(nil) = %v, want nil", got)
	}
}

// spec is the checker's header pattern as published; an accepted title has no line breaks, so
// Go's "." agrees with JavaScript's on it.
var spec = regexp.MustCompile(`^(\w*)(?:\((.*)\))?!?: (.*)$`)

func FuzzCheckTitle(f *testing.F) {
	for _, s := range []string{"feat: add thing", "fix(a(b)): x", "feat(api)!: y", "fix: ", "Feat: z",
		"fix:  two", "fix(): ", "feat!!: a", "🐛 fix: emoji", "feat(i18n): 支持简体中文", "fix: a\rb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, title string) {
		err := CheckTitle(title)
		if err == nil {
			m := spec.FindStringSubmatch(title)
			if m == nil || !slices.Contains(Types(), m[1]) || m[3] == "" {
				t.Fatalf("accepted %q, which the checker's pattern and types reject", title)
			}
			if n := utf8.RuneCountInString(title); n > MaxTitleLength {
				t.Fatalf("accepted %q of %d runes", title, n)
			}
			return
		}
		errs := Errors(err)
		if len(errs) == 0 || len(errs) > 2 {
			t.Fatalf("CheckTitle(%q) = %v: %d TitleErrors", title, err, len(errs))
		}
		for _, te := range errs {
			if te.Message == "" || te.Rule == "" {
				t.Fatalf("CheckTitle(%q): empty rule or message in %+v", title, te)
			}
		}
	})
}
