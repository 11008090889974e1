package version

import (
	"fmt"
	"strconv"
	"strings"
)

// Release is the release segment of a version, X.Y.Z…: the plain numbers that requirement
// bounds, Python minor lines and final releases are made of.
type Release []int

// maxReleaseDigits keeps every number within an int on every platform.
const maxReleaseDigits = 9

// ParseRelease reads numbers separated by dots and nothing else: no v, epoch, pre, post,
// dev or local part. Use ParsePEP440 for versions that may carry those.
func ParseRelease(s string) (Release, error) {
	if s == "" {
		return nil, fmt.Errorf("version %q: empty release", s)
	}
	parts := strings.Split(s, ".")
	out := make(Release, 0, len(parts))
	for _, p := range parts {
		if p == "" || len(p) > maxReleaseDigits || strings.Trim(p, "0123456789") != "" {
			return nil, fmt.Errorf("version %q is not a release number X.Y.Z (digits and dots only, each at most %d digits)", s, maxReleaseDigits)
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("version %q: %w", s, err)
		}
		out = append(out, n)
	}
	return out, nil
}

// Compare orders releases as PEP 440 does: missing segments count as zero, so 1.0 equals
// 1.0.0 and 1.10 is above 1.9.
func (r Release) Compare(o Release) int {
	for i := range max(len(r), len(o)) {
		var x, y int
		if i < len(r) {
			x = r[i]
		}
		if i < len(o) {
			y = o[i]
		}
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
	}
	return 0
}

func (r Release) String() string {
	parts := make([]string, len(r))
	for i, n := range r {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ".")
}
