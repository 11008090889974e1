package publish

import (
	"context"
	"dagger/shipyard/internal/flow"
	"errors"
	"slices"

	"dagger.io/dagger"
)

// The image steps run alone, each as the whole flow of a function (a GitHub job runs one
// step with only the credentials it needs): what each is given is checked first, then the
// step runs under the function's name.

// PushByDigest pushes each image to <registry>/<org>/<repository> by digest, untagged: the
// registry command reads the container as an OCI tarball mounted into its own container
// (no export through the module) and writes it, neither creating nor moving a tag, and
// checks afterwards that none appeared on the digest. The manifest bytes are pushed as the
// engine wrote them, so the digest is the engine's. An image built for several platforms
// is pushed as the OCI image index of its platform images.
//
// An image the registry already has costs one HEAD request, so a re-run after a failure
// pushes only what is missing. Every image is attempted; the error names each that failed.
// fn is the function it is a call of, which names its flow in logs and errors.
func PushByDigest(ctx context.Context, fn string, images []Artifact, t Target) ([]Pushed, error) {
	s := &ImageState{Target: t, Built: images}
	if err := Alone(ctx, fn, s, StepPush); err != nil {
		return nil, err
	}
	return s.Pushed, nil
}

// ScanDigests scans exactly the pushed digests with the scanner, under its policy (for
// tesk-core's, Trivy's: fail on CRITICAL and HIGH findings that have a fix, except those
// accepted in the ignore file given as ignore). The scanner pulls each repo@sha256:…
// anonymously: this graph receives no credential of any kind, so a scan job needs no
// secret; its caches are the call's trust level's. The directory holds
// <name>.json, <name>.sarif and summary.txt, also when the scan fails.
// fn is the function it is a call of, which names its flow in logs and errors.
func ScanDigests(ctx context.Context, fn string, sc Scanner, pushed []Pushed, ignore []byte) (*dagger.Directory, []ScanVerdict, error) {
	if ignore == nil {
		ignore = []byte{}
	}
	s := &ImageState{Scanner: sc, Pushed: pushed, Ignore: ignore}
	err := Alone(ctx, fn, s, StepScan)
	return s.Reports, s.Scans, err
}

// Attest signs an SLSA v1 build provenance statement (in-toto Statement v1) for each pushed
// digest and attaches it to the digest as an OCI referrer (a Sigstore bundle, found by
// `cosign verify-attestation --new-bundle-format` and `gh attestation verify
// --bundle-from-oci`). For a multi-platform image the index and each platform image get
// their own, naming the platforms built (see Subjects). A digest that already carries its
// provenance keeps it: a re-run writes nothing. images gives each digest's Dockerfile and
// build arguments.
// fn is the function it is a call of, which names its flow in logs and errors.
func Attest(ctx context.Context, fn string, in SignInputs, t Target, pushed []Pushed, images []Artifact) ([]Evidence, error) {
	s := &ImageState{Signing: in, Target: t, Pushed: pushed, Built: images}
	if err := Alone(ctx, fn, s, StepAttest); err != nil {
		return nil, err
	}
	return s.Evidence, nil
}

// AttestSBOMs writes the CycloneDX JSON SBOM of each pushed digest with the pinned Trivy
// (pulling the digest anonymously, as the scan does), then signs it as an in-toto statement
// of predicate type https://cyclonedx.org/bom and attaches the Sigstore bundle to the digest
// as an OCI referrer, like the provenance. Of a multi-platform image, each platform image
// gets the SBOM of what it holds and the index one that lists those images (IndexSBOM),
// which is what `cosign verify-attestation --type cyclonedx` finds from a tag. A digest
// that already carries an SBOM bundle signed by the token's identity keeps it: a re-run
// writes nothing.
// fn is the function it is a call of, which names its flow in logs and errors.
func AttestSBOMs(ctx context.Context, fn string, in SignInputs, sc Scanner, t Target, pushed []Pushed) ([]Evidence, error) {
	s := &ImageState{Signing: in, Scanner: sc, Target: t, Pushed: pushed}
	if err := Alone(ctx, fn, s, StepSBOM); err != nil {
		return nil, err
	}
	return s.Evidence, nil
}

// Sign signs each pushed digest keylessly (a Fulcio certificate for the OIDC token's
// identity, a Rekor entry) with the statement cosign v2.6 signs with --new-bundle-format,
// and attaches the Sigstore bundle to the digest as an OCI referrer, where `cosign verify`
// finds it. A multi-platform image's index and each of its platform images are signed, as
// `cosign sign --recursive` does (see Subjects). A digest that already carries its
// signature keeps it: a re-run writes nothing.
// fn is the function it is a call of, which names its flow in logs and errors.
func Sign(ctx context.Context, fn string, in SignInputs, t Target, pushed []Pushed) ([]Evidence, error) {
	s := &ImageState{Signing: in, Target: t, Pushed: pushed}
	if err := Alone(ctx, fn, s, StepSign); err != nil {
		return nil, err
	}
	return s.Evidence, nil
}

// TagImages points tags at each pushed digest, as the flow fn (the function it is a call
// of, tag-images), which names it in logs and errors. The registry command plans every tag of
// every image first (plan-tags): if any tag is refused — a version or commit tag already
// on another digest, which never moves — no tag of any image is written and the error
// names both digests. Then it applies the plans image by image (apply-tags), rechecking
// immutable tags right before writing, immutable tags before moving ones. A tag already on
// its digest is kept, so a re-run writes nothing. The tag names are t's policy. Its latest
// tag is refused: it follows the highest release, and only the release moves it
// (MoveLatest), for every image or none.
//
// The branch tag follows the newest commit of the policy's branch: it needs the commit's
// own tag in the same call, and branchOrder, asked right before the plans are applied when
// one creates or moves it; the registry command reads the tag and the images of the newer
// commits right before it is written, fails if it moved since the plan, and leaves it
// (reported skipped) when it is on the image of a newer commit or the commit is not on the
// branch, so a re-run of an older run never moves it back.
//
// Call it only after the digests were scanned, attested and signed: that is what makes a
// moving tag safe to follow.
func TagImages(ctx context.Context, fn string, t Target, pushed []Pushed, tags []string, branchOrder BranchOrder) ([]ApplyReport, error) {
	s := &ImageState{Target: t, Pushed: pushed, Tags: tags, BranchOrder: branchOrder}
	err := Alone(ctx, fn, s, StepTag)
	return s.Applied, err
}

// Verify checks that an image has a valid Sigstore signature and SLSA build provenance
// from an identity and OIDC issuer, against trustedRoot, as the verify step alone (see
// VerifyRequest). It resolves a tag to its digest first, here, so the check and its
// cached result are about that digest, then runs `supplychain verify` in the tool
// container. It fails on an unsigned image, a wrong identity or issuer, and bundles of
// another digest. The registry is read with the registry command in registryTool,
// anonymously unless WithRegistryLogin gives a login.
// fn is the function it is a call of, which names its flow in logs and errors.
func Verify(ctx context.Context, fn string, tool, registryTool *dagger.Container, image, identityRegexp, issuer string, trustedRoot *dagger.File, opts ...VerifyOption) (Verification, error) {
	s := &ImageState{VerifyRequest: VerifyRequest{Tool: tool, RegistryTool: registryTool, Image: image,
		Identity: identityRegexp, Issuer: issuer, TrustedRoot: trustedRoot, Options: opts}}
	if err := Alone(ctx, fn, s, StepVerify); err != nil {
		return Verification{}, err
	}
	return s.Verified[0], nil
}

// AssembleAlone is assemble-index run as a flow of its own (the function of that name):
// Assemble, named once by the runner. s.Target is checked when the run is built.
// fn is the function it is a call of, which names its flow in logs and errors.
func AssembleAlone(ctx context.Context, fn string, s *ImageState, platforms []string, pushes []PlatformPush) error {
	steps := []flow.Step[ImageState]{{Name: StepAssemble, Writes: true, Next: untaggedAdvice,
		Run: func(ctx context.Context, s *ImageState) error { return s.Assemble(ctx, platforms, pushes) }}}
	_, err := flow.Run(ctx, flow.Runner{Flow: fn, Log: s.Log}, steps, s)
	return err
}

// StoreAttestations is store-attestations run alone (its function, fn): each pushed digest,
// and of an index each platform image (Subjects), is verified against req's signer, keeping
// the provenance and SBOM bundles that verified, and those bundles go to store. A job that
// attests and signs in calls of their own runs it after them and before tagging; nothing is
// stored unless every digest verifies. req names the signer and the trusted root; its Image
// is ignored.
func StoreAttestations(ctx context.Context, fn string, req VerifyRequest, pushed []Pushed, store AttestationStore) (StoreReport, error) {
	s := &ImageState{VerifyRequest: req, Pushed: pushed, Store: store}
	steps := []flow.Step[ImageState]{
		{Name: StepInputs, Next: "nothing was written: give what the error names", Run: func(_ context.Context, s *ImageState) error { return s.checkStoreGiven() }},
		{Name: StepVerify, Next: "nothing was stored: publish the digests' evidence first (attest, attest-sbom, sign)", Run: func(ctx context.Context, s *ImageState) error { return s.verifyPushed(ctx) }},
	}
	steps = append(steps, Steps(aloneAdvice(nil), func(s *ImageState) *ImageState { return s }, StepStoreAttestations)...)
	_, err := flow.Run(ctx, flow.Runner{Flow: fn, Log: s.Log}, steps, s)
	return s.Stored, err
}

// checkStoreGiven checks what store-attestations alone is given: the digests, a signer to
// verify them against, and a store.
func (s *ImageState) checkStoreGiven() error {
	if err := checkPushed(s.Pushed); err != nil {
		return err
	}
	r := s.VerifyRequest
	r.Image = s.Pushed[0].Ref() // each digest's, in turn
	if err := r.check(); err != nil {
		return err
	}
	if s.Store == nil {
		return errors.New("no attestation store to write to")
	}
	return nil
}

// verifyPushed verifies each pushed digest against the request's signer, keeping the
// provenance and, where the digest has one, the SBOM bundle that verified.
func (s *ImageState) verifyPushed(ctx context.Context) error {
	for _, p := range Subjects(s.Pushed) {
		r := s.VerifyRequest
		r.Image = p.Ref()
		r.Options = append(slices.Clone(r.Options), withBundles())
		v, err := r.verify(ctx)
		if err != nil {
			return err
		}
		v.Image = p.Name
		s.Verified = append(s.Verified, v)
		flow.Logf(ctx, "%s: %d bundle(s) verified", v.Ref, len(v.Verified))
	}
	return nil
}
