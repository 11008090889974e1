package publish

import (
	"context"
	"dagger/shipyard/internal/flow"

	"dagger.io/dagger"
)

// ImageState is the state the image steps share: where the images go, what was built, and
// what each step found or wrote. It knows nothing of the flow around it (a push to dev, a
// release); the flow fills in the inputs and reads the outcomes.
type ImageState struct {
	Target  Target
	Signing SignInputs
	// Scanner scans the pushed digests under the producing system's policy.
	Scanner Scanner
	// Built are the artifacts built from the source (or described: attest needs only their
	// recipe).
	Built []Artifact
	// Ignore is the content of the ignore file; nil reads the pipeline source's.
	Ignore []byte
	// ReuseTag is a tag that names the source's image for good (its commit tag): an image
	// that carries it already keeps that digest and is not pushed again.
	ReuseTag string
	// Version is a version tag that never moves: the push stops when it is on another
	// digest already, before anything is scanned, signed or tagged.
	Version string
	// Tags are written by the tag step; Latest moves the policy's latest tag after them, for
	// every image together or for none, when StillLatest agrees right before.
	Tags        []string
	Latest      bool
	StillLatest StillLatest
	// BranchOrder rechecks the commit order on the policy's branch right before the branch
	// tag moves.
	BranchOrder BranchOrder
	// Store is the forge's attestation store the verified bundles also go to (GitHub's);
	// nil: the registry's referrers are the only store.
	Store AttestationStore
	// Stored counts the bundles the store-attestations step uploaded, and those it found
	// there already.
	Stored StoreReport
	// VerifyRequest is the image and signer the verify step checks.
	VerifyRequest VerifyRequest
	// Log receives one line per outcome (nil: none).
	Log func(format string, args ...any)

	// Outcomes, as far as the steps got.
	Pushed   []Pushed
	Reused   []string
	Scans    []ScanVerdict
	Reports  *dagger.Directory
	Evidence []Evidence
	Verified []Verification
	Applied  []ApplyReport
}

// Advice is what the maintainer does when an image step fails, worded by each flow.
type Advice struct {
	// Untagged: a step before the tags failed, so nothing is tagged yet.
	Untagged string
	// Scan: Trivy failed to run, or found what the policy blocks.
	Scan string
	// Moved: a tag that never moves is on another digest already.
	Moved string
	// Tag: the tag step failed otherwise.
	Tag string
}

// advice is which of a flow's Advice follows a step's failure.
type advice int

const (
	noAdvice advice = iota
	adviceUntagged
	adviceScan
	adviceTag
)

// of is the advice a names in adv.
func (a advice) of(adv Advice) string {
	switch a {
	case adviceUntagged:
		return adv.Untagged
	case adviceScan:
		return adv.Scan
	case adviceTag:
		return adv.Tag
	}
	return ""
}

// imageStep is one image step as its file declares it, beside its body: its name,
// whether it writes, which advice follows its failure, and the body, which does its work
// only: the runner names the step in logs and errors.
type imageStep struct {
	name   string
	writes bool
	next   advice
	run    func(*ImageState, context.Context) error
}

// StillLatest is the GitHub half of the recheck before latest moves, asked right before
// the registry command runs: whether the release is still the highest published on
// GitHub, and the final versions above it that have a git tag. The registry command reads
// those versions' tags in every repository right before it writes latest (a release whose
// images are out while its GitHub release is not yet), so the window left is the
// command's start and its reads: a GitHub release published meanwhile is not seen; the
// release workflow serialises releases for that.
type StillLatest func(ctx context.Context) (ok bool, higher []string, err error)

// keepPushed checks the version of what was pushed, keeps it as the images later steps
// work on, and logs each reference.
func (s *ImageState) keepPushed(ctx context.Context, pushed []Pushed) error {
	if err := s.checkVersion(ctx, pushed); err != nil {
		return err
	}
	s.Pushed = pushed
	for _, p := range pushed {
		flow.Logf(ctx, "%s", p.Ref())
	}
	return nil
}

// checkVersion plans Version on each pushed digest (the registry command's plan-tags):
// absent, or on the digest just pushed (a re-run), the flow goes on; on another digest of
// any repository it stops, naming each.
func (s *ImageState) checkVersion(ctx context.Context, pushed []Pushed) error {
	if s.Version == "" {
		return nil
	}
	_, err := s.Target.planTags(ctx, pushed, []string{s.Version})
	return err
}

// AttestationStore is a forge's store of attestations beside the registry's referrers,
// where its users look for them: GitHub's, which `gh attestation verify --owner …` and a
// repository's Attestations page read. Store puts one bundle there for the image digest
// it attests, unless the store lists that bundle for the digest already, and says whether
// it uploaded: a re-run stores nothing twice.
type AttestationStore interface {
	Store(ctx context.Context, image, digest string, bundle []byte) (uploaded bool, err error)
}

// StoreReport counts what the store-attestations step did.
type StoreReport struct {
	Uploaded int `json:"uploaded"`
	Present  int `json:"present"`
}
