package publish

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dagger/shipyard/internal/buildplatform"

	"dagger.io/dagger"
)

// ResolvePlatforms reads from the registry which platform images each pushed digest lists
// (none for a single image) and records them in Platforms. A digest names its index for
// good, so what the registry lists is the truth; a list that travelled with the digest (a
// handoff between jobs) must say the same, or it is refused: a job that believed it would
// scan, attest or sign other images than those a user pulls. Each of pushed was checked
// where it was read (ParseRefs, ParseRef, a handoff's parse, the push itself).
func ResolvePlatforms(ctx context.Context, t Target, pushed []Pushed) ([]Pushed, error) {
	out := slices.Clone(pushed)
	refs := make([]string, len(out))
	for i, p := range out {
		refs[i] = p.Ref()
	}
	read, err := t.resolveRefs(ctx, refs, true)
	if err != nil {
		return nil, fmt.Errorf("reading the platforms of %s: %w", names(out), err)
	}
	for i, p := range out {
		if p.Platforms != nil && !slices.Equal(p.Platforms, read[i].Platforms) {
			return nil, fmt.Errorf("image %s: the platforms given for %s are %v, the registry's index lists %v", p.Name, p.Ref(), p.Platforms, read[i].Platforms)
		}
		out[i].Platforms = read[i].Platforms
	}
	return out, nil
}

// Subjects are the digests that carry evidence for pushed images: each pushed digest and,
// for an index, each platform image it lists, named "filer (linux/arm64)" as the scan names
// it. cosign (verify, verify-attestation) and `gh attestation verify` look evidence up on
// the digest a tag resolves to, the index, and have no option to pick a platform; a
// runtime or an admission controller checks the platform image it pulls, and `cosign
// download sbom --platform` steps down to it. So both carry provenance, SBOM and signature,
// each statement's subject being the digest it is attached to.
func Subjects(pushed []Pushed) []Pushed {
	return subjectRefs(subjectsOf(pushed))
}

// subject is one digest that carries evidence: the image it belongs to and the platforms
// its provenance names (every platform of an index, the one of a platform image, none for
// a single image built for the engine's platform).
type subject struct {
	Pushed
	image     string
	platforms []string
	// listed are the platform images an index lists; none for any other image.
	listed []PlatformDigest
}

func subjectsOf(pushed []Pushed) []subject {
	out := make([]subject, 0, len(pushed))
	for _, p := range pushed {
		top := subject{Pushed: Pushed{Name: p.Name, Repository: p.Repository, Digest: p.Digest}, image: p.Name, listed: p.Platforms}
		for _, pd := range p.Platforms {
			top.platforms = append(top.platforms, pd.Platform)
		}
		out = append(out, top)
		for _, pd := range p.Platforms {
			out = append(out, subject{
				Pushed:    Pushed{Name: buildplatform.TargetName(p.Name, dagger.Platform(pd.Platform)), Repository: p.Repository, Digest: pd.Digest},
				image:     p.Name,
				platforms: []string{pd.Platform},
			})
		}
	}
	return out
}

func subjectRefs(subjects []subject) []Pushed {
	out := make([]Pushed, len(subjects))
	for i, s := range subjects {
		out[i] = s.Pushed
	}
	return out
}

// Scanned are the images a scan of pushed covers, each by its own digest: a single image,
// or each platform image an index lists (Trivy given an index would pick one platform, and
// the verdict must cover what every platform runs). They are named as Subjects names them.
func Scanned(pushed []Pushed) []Pushed {
	var out []Pushed
	for _, s := range subjectsOf(pushed) {
		if len(s.listed) == 0 {
			out = append(out, s.Pushed)
		}
	}
	return out
}

// names lists the names of pushed images, for messages.
func names(pushed []Pushed) string {
	out := make([]string, len(pushed))
	for i, p := range pushed {
		out[i] = p.Name
	}
	return strings.Join(out, ", ")
}
