// Package version parses and orders the versions Shipyard decides on: PEP 440 versions
// (the Python packages inside the images and the model packages) and the release tags of
// tesk-core (vX.Y.Z, optionally followed by aN, bN or rcN), which are ordered as PEP 440
// orders their versions.
//
// Everything here is a pure function over strings, so the rules can be tested on real data
// without any repository, registry or engine.
package version

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// pep440Pattern is the canonical pattern of PEP 440 (Appendix B), applied to input that is
// already trimmed, ASCII-only and lower-cased, so it needs no case-insensitive flag.
var pep440Pattern = regexp.MustCompile(`^v?` +
	`(?:([0-9]+)!)?` + // epoch
	`([0-9]+(?:\.[0-9]+)*)` + // release
	`(?:[-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?([0-9]+)?)?` + // pre-release
	`(?:-([0-9]+)|[-_.]?(post|rev|r)[-_.]?([0-9]+)?)?` + // post-release, incl. implicit 1.0-1
	`(?:[-_.]?(dev)[-_.]?([0-9]+)?)?` + // development release
	`(?:\+([a-z0-9]+(?:[-_.][a-z0-9]+)*))?$`) // local version

// Submatch indexes of pep440Pattern.
const (
	groupEpoch = 1 + iota
	groupRelease
	groupPreLabel
	groupPreNum
	groupImplicitPost
	groupPostLabel
	groupPostNum
	groupDevLabel
	groupDevNum
	groupLocal
)

// ErrNumberTooLarge is wrapped by parse errors for a numeric component that does not fit an
// int. Refusing such versions keeps Release() exact and ordering free of overflow.
var ErrNumberTooLarge = errors.New("number too large")

// PEP440 is a parsed PEP 440 version. The zero value is not a valid version; obtain values
// from ParsePEP440.
type PEP440 struct {
	epoch   int
	release []int
	pre     string // "", "a", "b" or "rc"
	preN    int
	hasPost bool
	postN   int
	hasDev  bool
	devN    int
	local   []localPart
}

// localPart is one dot-separated segment of a local version label. Numeric segments keep
// their digits (without leading zeros) so arbitrarily long ones compare exactly.
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
	m := pep440Pattern.FindStringSubmatch(strings.ToLower(trimmed))
	if m == nil {
		return PEP440{}, fmt.Errorf("PEP 440 version %q: not of the form [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]", abbreviate(s))
	}

	var v PEP440
	var err error
	num := func(digits, what string) int {
		if err != nil || digits == "" {
			return 0
		}
		var n int
		n, err = parseNumber(digits)
		if err != nil {
			err = fmt.Errorf("PEP 440 version %q: %s %w", abbreviate(s), what, err)
		}
		return n
	}

	v.epoch = num(m[groupEpoch], "epoch")
	for _, part := range strings.Split(m[groupRelease], ".") {
		v.release = append(v.release, num(part, "release segment"))
	}
	if label := m[groupPreLabel]; label != "" {
		v.pre = normalisePreLabel(label)
		v.preN = num(m[groupPreNum], "pre-release number")
	}
	switch {
	case m[groupImplicitPost] != "":
		v.hasPost = true
		v.postN = num(m[groupImplicitPost], "post-release number")
	case m[groupPostLabel] != "":
		v.hasPost = true
		v.postN = num(m[groupPostNum], "post-release number")
	}
	if m[groupDevLabel] != "" {
		v.hasDev = true
		v.devN = num(m[groupDevNum], "development release number")
	}
	if err != nil {
		return PEP440{}, err
	}
	if m[groupLocal] != "" {
		for _, seg := range strings.FieldsFunc(m[groupLocal], isLocalSeparator) {
			if isDigits(seg) {
				v.local = append(v.local, localPart{numeric: true, text: trimZeros(seg)})
			} else {
				v.local = append(v.local, localPart{text: seg})
			}
		}
	}
	return v, nil
}

// parseNumber converts a run of ASCII digits, refusing values beyond int rather than
// wrapping around.
func parseNumber(digits string) (int, error) {
	n, err := strconv.Atoi(digits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, fmt.Errorf("%s: %w (at most %d)", abbreviate(digits), ErrNumberTooLarge, int(^uint(0)>>1))
		}
		return 0, fmt.Errorf("%q: %w", abbreviate(digits), err)
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

func normalisePreLabel(label string) string {
	switch label {
	case "a", "alpha":
		return "a"
	case "b", "beta":
		return "b"
	default: // c, rc, pre, preview
		return "rc"
	}
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
	return v.pre == "" && !v.hasDev
}

// String returns the normalised form PEP 440 defines, e.g. "1!2.0rc1.post3.dev4+ubuntu.1"
// for "1!2.0-RC1-3-dev4+Ubuntu-1". Epoch 0 is omitted.
func (v PEP440) String() string {
	var b strings.Builder
	if v.epoch != 0 {
		b.WriteString(strconv.Itoa(v.epoch))
		b.WriteByte('!')
	}
	for i, n := range v.release {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(n))
	}
	if v.pre != "" {
		b.WriteString(v.pre)
		b.WriteString(strconv.Itoa(v.preN))
	}
	if v.hasPost {
		b.WriteString(".post")
		b.WriteString(strconv.Itoa(v.postN))
	}
	if v.hasDev {
		b.WriteString(".dev")
		b.WriteString(strconv.Itoa(v.devN))
	}
	if len(v.local) > 0 {
		b.WriteByte('+')
		b.WriteString(v.Local())
	}
	return b.String()
}

// Compare returns -1, 0 or +1 as v sorts before, equal to or after o in PEP 440 order:
// epoch, release (trailing zeros ignored), then dev-only < a < b < rc < final, then
// post-releases, dev releases before their base, and local labels after their public
// version.
func (v PEP440) Compare(o PEP440) int {
	if c := cmp.Compare(v.epoch, o.epoch); c != 0 {
		return c
	}
	if c := compareRelease(v.release, o.release); c != 0 {
		return c
	}
	vr, vn := v.preKey()
	or, on := o.preKey()
	if c := cmp.Or(cmp.Compare(vr, or), cmp.Compare(vn, on)); c != 0 {
		return c
	}
	// No post-release sorts before any post-release.
	if c := cmp.Or(compareBool(v.hasPost, o.hasPost), cmp.Compare(v.postN, o.postN)); c != 0 {
		return c
	}
	// A development release sorts before the same version without one.
	if c := cmp.Or(compareBool(!v.hasDev, !o.hasDev), cmp.Compare(v.devN, o.devN)); c != 0 {
		return c
	}
	return compareLocal(v.local, o.local)
}

// Pre-release ranks. A version with only a dev release (1.0.dev0) sorts before every
// pre-release of the same release, and a final version after all of them.
const (
	rankDevOnly = iota
	rankAlpha
	rankBeta
	rankCandidate
	rankFinal
)

func (v PEP440) preKey() (rank, n int) {
	switch v.pre {
	case "a":
		return rankAlpha, v.preN
	case "b":
		return rankBeta, v.preN
	case "rc":
		return rankCandidate, v.preN
	}
	if v.hasDev && !v.hasPost {
		return rankDevOnly, 0
	}
	return rankFinal, 0
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}

func compareRelease(a, b []int) int {
	a, b = trimTrailingZeros(a), trimTrailingZeros(b)
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := cmp.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func trimTrailingZeros(r []int) []int {
	for len(r) > 0 && r[len(r)-1] == 0 {
		r = r[:len(r)-1]
	}
	return r
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
			c = compareDigits(x.text, y.text)
		case x.numeric != y.numeric:
			c = compareBool(x.numeric, y.numeric)
		default:
			c = strings.Compare(x.text, y.text)
		}
		if c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// compareDigits compares two digit strings without leading zeros by value, whatever their
// length.
func compareDigits(a, b string) int {
	return cmp.Or(cmp.Compare(len(a), len(b)), strings.Compare(a, b))
}
