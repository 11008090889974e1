// Package version parses and orders the versions Shipyard decides on: PEP 440 versions
// (the Python packages inside the images and the model packages) and the release tags of
// tesk-core (vX.Y.Z, optionally followed by aN, bN or rcN), which are ordered as PEP 440
// orders their versions.
//
// PEP 440 parsing and ordering come from github.com/aquasecurity/go-pep440-version (the
// library Trivy uses), which passes pypa/packaging's test vectors. Three gaps of that
// library are closed here, each kept small and tested:
//   - it trims ASCII whitespace only and matches letters case-insensitively with Unicode
//     folding (the Kelvin sign reads as "k"): input is trimmed of Unicode whitespace and
//     refused when it holds other non-ASCII characters, as packaging refuses it;
//   - it splits local labels ("+ubuntu-1") on "." only and keeps leading zeros, so
//     1.0+ubuntu-1 and 1.0+ubuntu.1 differ there: the local label is normalised first;
//   - it compares numeric local segments only up to 2^64-1: local labels are compared
//     here, by value whatever their length.
//
// The rules that are Shipyard's own (release tag forms, "pre-release below 1.0.0",
// IsLatest) live in tag.go. Everything here is a pure function over strings, so the rules
// can be tested on real data without any repository, registry or engine.
package version

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	pep440 "github.com/aquasecurity/go-pep440-version"
)

// ErrNumberTooLarge is wrapped by parse errors for a numeric component that does not fit:
// an epoch or release segment beyond int (so Release() is exact), or any other number
// beyond 64 bits.
var ErrNumberTooLarge = errors.New("number too large")

// PEP440 is a parsed PEP 440 version. The zero value is not a valid version; obtain values
// from ParsePEP440.
type PEP440 struct {
	public  pep440.Version // without the local label, which localParts holds
	epoch   int
	release []int
	local   []localPart
}

// localPart is one segment of a local version label. Numeric segments keep their digits
// (without leading zeros) so arbitrarily long ones compare exactly.
type localPart struct {
	numeric bool
	text    string
}

// ParsePEP440 parses s as PEP 440 specifies, accepting the alternate spellings it
// normalises: a leading "v", surrounding whitespace, any letter case, "alpha"/"beta"/"c"/
// "pre"/"preview" for pre-releases, "r"/"rev" and the implicit "1.0-1" for post-releases,
// "-", "_" and "." separators, and omitted numbers (meaning 0).
//
// Non-ASCII characters other than surrounding whitespace are refused: PEP 440 versions are
// ASCII, and refusing early keeps Unicode case folding (e.g. the Kelvin sign) out of it.
func ParsePEP440(s string) (PEP440, error) {
	trimmed := strings.TrimFunc(s, unicode.IsSpace)
	if trimmed == "" {
		return PEP440{}, fmt.Errorf("PEP 440 version %q: empty", abbreviate(s))
	}
	for i := 0; i < len(trimmed); i++ {
		if trimmed[i] >= 0x80 {
			return PEP440{}, fmt.Errorf("PEP 440 version %q: non-ASCII character at byte %d", abbreviate(s), i)
		}
	}
	// The library would trim ASCII whitespace around the public part ("1.0 +abc").
	if strings.ContainsFunc(trimmed, unicode.IsSpace) {
		return PEP440{}, notPEP440(s)
	}
	public, label, hasLocal := strings.Cut(strings.ToLower(trimmed), "+")
	var v PEP440
	if hasLocal {
		parts := strings.FieldsFunc(label, isLocalSeparator)
		// FieldsFunc drops empty segments; the library checks the label's shape, with the
		// separators unified so that check is the only one.
		if len(parts) == 0 || len(label) != len(strings.Join(parts, ".")) {
			return PEP440{}, notPEP440(s)
		}
		for _, seg := range parts {
			if isDigits(seg) {
				v.local = append(v.local, localPart{numeric: true, text: trimZeros(seg)})
			} else {
				v.local = append(v.local, localPart{text: seg})
			}
		}
		// The label goes through the library too, so its grammar is the library's.
		if _, err := pep440.Parse("0+" + strings.Join(parts, ".")); err != nil {
			return PEP440{}, notPEP440(s)
		}
	}
	p, err := pep440.Parse(public)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return PEP440{}, fmt.Errorf("PEP 440 version %q: %w (at most %d)", abbreviate(s), ErrNumberTooLarge, uint64(1<<64-1))
		}
		return PEP440{}, notPEP440(s)
	}
	v.public = p
	if v.epoch, v.release, err = epochRelease(p.BaseVersion()); err != nil {
		return PEP440{}, fmt.Errorf("PEP 440 version %q: %w", abbreviate(s), err)
	}
	return v, nil
}

func notPEP440(s string) error {
	return fmt.Errorf("PEP 440 version %q: not of the form [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]", abbreviate(s))
}

// epochRelease reads the library's normalised "[E!]X.Y…" into ints, refusing numbers
// beyond int rather than wrapping around.
func epochRelease(base string) (int, []int, error) {
	epoch := 0
	if e, rest, ok := strings.Cut(base, "!"); ok {
		n, err := parseNumber(e, "epoch")
		if err != nil {
			return 0, nil, err
		}
		epoch, base = n, rest
	}
	var release []int
	for _, seg := range strings.Split(base, ".") {
		n, err := parseNumber(seg, "release segment")
		if err != nil {
			return 0, nil, err
		}
		release = append(release, n)
	}
	return epoch, release, nil
}

func parseNumber(digits, what string) (int, error) {
	n, err := strconv.Atoi(digits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s %s: %w (at most %d)", what, abbreviate(digits), ErrNumberTooLarge, int(^uint(0)>>1))
		}
		return 0, fmt.Errorf("%s %q: %w", what, abbreviate(digits), err)
	}
	return n, nil
}

// abbreviate keeps error messages short when someone feeds thousands of digits.
func abbreviate(s string) string {
	const limit = 32
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "…"
}

func isLocalSeparator(r rune) bool { return r == '.' || r == '-' || r == '_' }

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func trimZeros(digits string) string {
	t := strings.TrimLeft(digits, "0")
	if t == "" {
		return "0"
	}
	return t
}

// Release returns the release segment, e.g. [1 0 2] for 1.0.2rc1, as written (trailing
// zeros kept). The slice is a copy.
func (v PEP440) Release() []int {
	return append([]int(nil), v.release...)
}

// Epoch returns the epoch, 0 when the version has none.
func (v PEP440) Epoch() int { return v.epoch }

// Local returns the normalised local version label (after "+"), or "" when there is none.
func (v PEP440) Local() string {
	parts := make([]string, len(v.local))
	for i, p := range v.local {
		parts[i] = p.text
	}
	return strings.Join(parts, ".")
}

// IsFinal reports whether v is a final release: it has neither a pre-release (a, b, rc)
// nor a development release. Post-releases and local versions of a final release are
// final too (1.0.post1 and 1.0+local are final; 1.0rc1 and 1.0.post1.dev0 are not), which
// matches pip's notion of a pre-release.
func (v PEP440) IsFinal() bool {
	return !v.public.IsPreRelease()
}

// String returns the normalised form PEP 440 defines, e.g. "1!2.0rc1.post3.dev4+ubuntu.1"
// for "1!2.0-RC1-3-dev4+Ubuntu-1". Epoch 0 is omitted.
func (v PEP440) String() string {
	if len(v.local) == 0 {
		return v.public.String()
	}
	return v.public.String() + "+" + v.Local()
}

// Compare returns -1, 0 or +1 as v sorts before, equal to or after o in PEP 440 order: the
// public versions as the library orders them, then local labels.
func (v PEP440) Compare(o PEP440) int {
	if c := v.public.Compare(o.public); c != 0 {
		return c
	}
	return compareLocal(v.local, o.local)
}

// compareLocal orders local labels as PEP 440 does: none sorts first; segments compare in
// turn, numeric ones by value and above alphanumeric ones, which compare as strings; a
// label that is a prefix of another sorts first.
func compareLocal(a, b []localPart) int {
	if len(a) == 0 || len(b) == 0 {
		return cmp.Compare(len(a), len(b))
	}
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		var c int
		switch {
		case x.numeric && y.numeric:
			c = cmp.Or(cmp.Compare(len(x.text), len(y.text)), strings.Compare(x.text, y.text))
		case x.numeric:
			c = 1
		case y.numeric:
			c = -1
		default:
			c = strings.Compare(x.text, y.text)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}
