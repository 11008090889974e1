package version

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func lines(b []byte) []string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

func mustParse(t testing.TB, s string) PEP440 {
	t.Helper()
	v, err := ParsePEP440(s)
	if err != nil {
		t.Fatalf("ParsePEP440(%q): %v", s, err)
	}
	return v
}

// pypa/packaging's VERSIONS list is strictly ascending; every pair must compare that way,
// not only neighbours, so a non-transitive Compare shows up.
func TestPEP440OrderedCorpus(t *testing.T) {
	raw := lines(corpus.Read(t, "pep440", "ordered.txt"))
	if len(raw) < 2 {
		t.Fatalf("pep440/ordered.txt has %d lines", len(raw))
	}
	vs := make([]PEP440, len(raw))
	for i, s := range raw {
		vs[i] = mustParse(t, s)
	}
	for i := range vs {
		for j := range vs {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := vs[i].Compare(vs[j]); got != want {
				t.Errorf("Compare(%q, %q) = %d, want %d", raw[i], raw[j], got, want)
			}
		}
	}
	shuffled := slices.Clone(vs)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, PEP440.Compare)
	for i := range shuffled {
		if shuffled[i].String() != vs[i].String() {
			t.Fatalf("sorting the reversed list: position %d is %s, want %s", i, shuffled[i], vs[i])
		}
	}
}

func TestPEP440InvalidCorpus(t *testing.T) {
	raw := lines(corpus.Read(t, "pep440", "invalid.txt"))
	if len(raw) == 0 {
		t.Fatal("pep440/invalid.txt is empty")
	}
	for _, s := range raw {
		if v, err := ParsePEP440(s); err == nil {
			t.Errorf("ParsePEP440(%q) = %s, want an error", s, v)
		}
	}
}

func TestPEP440EqualCorpus(t *testing.T) {
	rows := lines(corpus.Read(t, "pep440", "equal.tsv"))
	if len(rows) == 0 {
		t.Fatal("pep440/equal.tsv is empty")
	}
	for _, row := range rows {
		in, norm, ok := strings.Cut(row, "\t")
		if !ok {
			t.Fatalf("equal.tsv row %q has no tab", row)
		}
		a, b := mustParse(t, in), mustParse(t, norm)
		if c := a.Compare(b); c != 0 {
			t.Errorf("Compare(%q, %q) = %d, want 0", in, norm, c)
		}
		if got := a.String(); got != norm {
			t.Errorf("ParsePEP440(%q).String() = %q, want %q", in, got, norm)
		}
	}
}

func TestPEP440Normalise(t *testing.T) {
	tests := []struct{ in, want string }{
		// The two whitespace cases the corpus could not hold in a TSV cell.
		{"   v1.0\t\n", "1.0"},
		{"\u202f1.0\t\u2029\n ", "1.0"},
		{"V1.0", "1.0"},
		{"1!2.0-RC1-3-dev4+Ubuntu-1", "1!2.0rc1.post3.dev4+ubuntu.1"},
		{"1.0pre2", "1.0rc2"},
		{"1.0preview", "1.0rc0"},
		{"1.0_post_7", "1.0.post7"},
		{"2024.01.05", "2024.1.5"},
		{"1.0+01.a", "1.0+1.a"},
		{"1.0+" + strings.Repeat("9", 40), "1.0+" + strings.Repeat("9", 40)},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.in).String(); got != tt.want {
			t.Errorf("ParsePEP440(%q).String() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestPEP440Invalid(t *testing.T) {
	tests := []struct {
		in      string
		tooLong bool
	}{
		{in: ""},
		{in: " \t\n"},
		{in: "1.0-"},
		{in: "1.0+"},
		{in: "v"},
		{in: "1.0\u212a"}, // Kelvin sign folds to k under Unicode case rules
		{in: "1.0+\u212a"},
		{in: "1.0 rc1"},
		{in: "1.0rc1rc2"},
		{in: "1!2!3"},
		{in: "1.0 +abc"}, // the library alone trims the space before "+"
		{in: "1.0+a--b"},
		{in: "1.0+-a"},
		{in: "99999999999999999999999", tooLong: true},
		{in: "1." + strings.Repeat("1", 5000), tooLong: true},
		{in: "1.0a" + strings.Repeat("1", 5000), tooLong: true},
		{in: "1.0.post99999999999999999999", tooLong: true},
		{in: "99999999999999999999!1.0", tooLong: true},
	}
	for _, tt := range tests {
		_, err := ParsePEP440(tt.in)
		if err == nil {
			t.Errorf("ParsePEP440(%q) succeeded, want an error", abbreviate(tt.in))
			continue
		}
		if got := errors.Is(err, ErrNumberTooLarge); got != tt.tooLong {
			t.Errorf("ParsePEP440(%q): errors.Is(ErrNumberTooLarge) = %v, want %v (%v)", abbreviate(tt.in), got, tt.tooLong, err)
		}
		if len(err.Error()) > 400 {
			t.Errorf("ParsePEP440(%q): error of %d bytes; keep it short", abbreviate(tt.in), len(err.Error()))
		}
	}
}

func TestPEP440Accessors(t *testing.T) {
	tests := []struct {
		in      string
		final   bool
		release []int
		epoch   int
		local   string
	}{
		{"1.0", true, []int{1, 0}, 0, ""},
		{"1.0.post1", true, []int{1, 0}, 0, ""},
		{"1.0+local.7", true, []int{1, 0}, 0, "local.7"},
		{"1.0rc1", false, []int{1, 0}, 0, ""},
		{"1.0.dev0", false, []int{1, 0}, 0, ""},
		{"1.0.post1.dev0", false, []int{1, 0}, 0, ""},
		{"2!0.11.0b3", false, []int{0, 11, 0}, 2, ""},
		{"v010.0.02", true, []int{10, 0, 2}, 0, ""},
	}
	for _, tt := range tests {
		v := mustParse(t, tt.in)
		if v.IsFinal() != tt.final {
			t.Errorf("%q.IsFinal() = %v, want %v", tt.in, v.IsFinal(), tt.final)
		}
		if !slices.Equal(v.Release(), tt.release) {
			t.Errorf("%q.Release() = %v, want %v", tt.in, v.Release(), tt.release)
		}
		if v.Epoch() != tt.epoch {
			t.Errorf("%q.Epoch() = %d, want %d", tt.in, v.Epoch(), tt.epoch)
		}
		if v.Local() != tt.local {
			t.Errorf("%q.Local() = %q, want %q", tt.in, v.Local(), tt.local)
		}
	}
	v := mustParse(t, "1.2.3")
	v.Release()[0] = 9
	if v.String() != "1.2.3" {
		t.Errorf("Release() exposes the version's slice: after a write it is %s", v)
	}
}

func TestPEP440Compare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0.0", 0},
		{"1.0", "1.0.0.0.1", -1},
		{"1.0.dev0", "1.0a0", -1},
		{"1.0.post0.dev0", "1.0", 1},
		{"1.0.post1.dev0", "1.0.post0", 1},
		{"1.0rc1.post1", "1.0rc2.dev0", -1},
		{"1.0+" + strings.Repeat("9", 30), "1.0+" + strings.Repeat("9", 29), 1},
		{"1.0+0009", "1.0+9", 0},
		{"1.0+abc", "1.0+1", -1},
		{"1.0+1", "1.0+1.0", -1},
		{"1!0.1", "2.0", 1},
		// Gaps of the library closed in ParsePEP440: local separators, numeric local
		// segments beyond 64 bits.
		{"1.0+ubuntu-1", "1.0+ubuntu.1", 0},
		{"1.0+ubuntu_1", "1.0+Ubuntu.01", 0},
		{"1.0+" + strings.Repeat("9", 30), "1.0+abc", 1},
		{"10.0", "9.99", 1},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		if got := a.Compare(b); got != tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := b.Compare(a); got != -tt.want {
			t.Errorf("Compare(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

func FuzzParsePEP440(f *testing.F) {
	for _, s := range []string{"1.0", "v1!2.0rc1.post3.dev4+a.1", "1.0-1", " 1.0 ", "1.0+İ", "1.0.", "9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParsePEP440(s)
		if err != nil {
			return
		}
		// The normalised form parses back to an equal version with the same form.
		n := v.String()
		w, err := ParsePEP440(n)
		if err != nil {
			t.Fatalf("normalised %q of %q does not parse: %v", n, s, err)
		}
		if w.String() != n || v.Compare(w) != 0 || w.Compare(v) != 0 {
			t.Fatalf("%q -> %q -> %q (compare %d)", s, n, w.String(), v.Compare(w))
		}
	})
}
