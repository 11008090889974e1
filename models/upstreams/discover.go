package upstreams

import (
	"slices"
	"strings"
)

// Release is what the GitHub releases API says about one release: its tag and the two flags
// that keep it out of discovery.
type Release struct {
	Tag        string `json:"tag"`
	Draft      bool   `json:"draft"`
	Prerelease bool   `json:"prerelease"`
}

// maxTagLength bounds the work done on a tag; Git refs this long are not release tags.
const maxTagLength = 256

// ReleaseVersion maps a tag to the release version it names. Only the integration's product
// scheme with exactly X.Y.Z counts: chart tags, sub-module tags (pkg/apis/…/vX.Y.Z), twin
// module tags under another prefix, moving tags, pre-releases of any spelling and suffixes a
// lenient parser would read as post-releases (v2.2.8-1, 1.15.0-r3, v1.3.3.7) are all
// rejected, because anchoring on the whole tag leaves them nowhere to hide.
func ReleaseVersion(integration Integration, tag string) (v Version, ok bool) {
	if len(tag) > maxTagLength {
		return Version{}, false
	}
	var text string
	switch {
	case integration.TagPrefix != nil:
		rest, found := strings.CutPrefix(tag, *integration.TagPrefix)
		if !found {
			return Version{}, false
		}
		text = rest
	case integration.TagPattern != "":
		re := integration.pattern
		if re == nil {
			// An Integration built without Validate: compile here, and an invalid pattern
			// simply matches nothing.
			var err error
			if re, err = compilePattern(integration.TagPattern); err != nil {
				return Version{}, false
			}
		}
		m := re.FindStringSubmatch(tag)
		if m == nil {
			return Version{}, false
		}
		text = m[re.SubexpIndex("version")]
	default:
		return Version{}, false
	}
	v, err := ParseVersion(text)
	if err != nil {
		return Version{}, false
	}
	v.Tag = tag
	return v, true
}

// Candidates returns the final releases of the integration, newest first, ordered by version
// (never by tag string or date). Drafts and pre-releases are dropped whatever their tag
// says; when two tags name the same version, the lexically smaller tag is kept so the
// result does not depend on the order GitHub lists them in.
func Candidates(integration Integration, releases []Release) []Version {
	byVersion := map[Version]Version{} // key has an empty Tag
	for _, r := range releases {
		if r.Draft || r.Prerelease {
			continue
		}
		v, ok := ReleaseVersion(integration, r.Tag)
		if !ok {
			continue
		}
		key := Version{Major: v.Major, Minor: v.Minor, Patch: v.Patch}
		if old, seen := byVersion[key]; !seen || v.Tag < old.Tag {
			byVersion[key] = v
		}
	}
	out := make([]Version, 0, len(byVersion))
	for _, v := range byVersion {
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b Version) int { return b.Compare(a) })
	return out
}
