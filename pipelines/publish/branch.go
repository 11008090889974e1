package publish

import (
	"context"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
)

// BranchConfig is what a push to the tag policy's branch publishes (tesk-core's dev), and
// where.
type BranchConfig struct {
	// Flow is the function the publish is a call of (tesk-core: publish-dev), which names the flow in
	// logs and errors.
	Flow string
	// Source is the pushed commit's tree, where the images' Dockerfiles name their base
	// images.
	Source *dagger.Directory
	// Scanner scans the pushed digests under the source's policy.
	Scanner Scanner
	// Images are the images built from the pushed commit.
	Images  []Artifact
	Target  Target
	Signing SignInputs
	// Ignore is the content of the source's scan ignore file (empty: none).
	Ignore []byte
	// BranchOrder rechecks, right before the branch tag moves, that the commit is still the
	// newest of the branch with an image (read by the GitHub command).
	BranchOrder BranchOrder
	// Store is the forge's attestation store the verified bundles also go to; nil: none.
	Store AttestationStore
}

// BranchResult is what PublishBranch did, as far as it got. Its JSON is what the workflow logs.
type BranchResult struct {
	// Digests maps each image name to its pushed digest.
	Digests map[string]string `json:"digests"`
	// Reused lists images whose commit tag an earlier run had already published: their
	// digest is kept and the new build is not pushed.
	Reused []string `json:"reused,omitempty"`
	// Scanned lists the images whose digest passed the scan.
	Scanned  []string   `json:"scanned"`
	Evidence []Evidence `json:"evidence"`
	// Verified is the check of that evidence, as a user makes it, before tagging.
	Verified []Verification `json:"verified"`
	Tags     []ApplyReport  `json:"tags"`
	// Reports holds the scan reports (<name>.json, <name>.sarif, summary.txt).
	Reports *dagger.Directory `json:"-"`
}

// branchAdvice: every step before the tags leaves no tag behind, and each converges; a
// blocked scan is fixed as the scanner's policy says.
func branchAdvice(sc Scanner, p TagPolicy) Advice {
	return Advice{
		Untagged: "no tag was written; re-run to finish: what is pushed and attached is kept",
		Scan:     "no tag was written: " + scanAdvice(sc, "push again"),
		Moved:    p.CommitTag("<commit>") + " is on another digest: a commit's image never moves; find out who wrote it",
		Tag:      "re-run to finish: tags already on their digest are kept",
	}
}

// PublishBranch publishes the images of a commit pushed to the policy's branch: push by
// digest, scan exactly those digests, attest, sign, verify both with the signer's
// identity, and only then tag them with the commit's tag and the branch tag (tesk-core:
// sha-<commit> and dev). Any failure stops the flow before any tag is written, and the
// error (a flow.Error) says which step failed and that a re-run finishes: every step keeps
// what an earlier run completed (a pushed digest, a bundle already attached, a tag already
// on its digest), so re-running after success changes nothing.
func PublishBranch(ctx context.Context, d BranchConfig, sha string) (BranchResult, error) {
	s := &ImageState{Target: d.Target, Signing: d.Signing, Scanner: d.Scanner, Built: d.Images, Ignore: d.Ignore, BranchOrder: d.BranchOrder, Store: d.Store}
	if s.Ignore == nil {
		s.Ignore = []byte{}
	}
	// A push to a branch never sets latest, so no stillLatest check is needed.
	_, err := flow.Run(ctx, flow.Runner{Flow: d.Flow}, branchSteps(sha, d.Source, d.Scanner, d.Target.Tags), s)
	return branchResult(s), err
}

// branchSteps are the steps of a branch's commit sha: its inputs checked, then the image
// steps.
func branchSteps(sha string, src *dagger.Directory, sc Scanner, p TagPolicy) []flow.Step[ImageState] {
	return append([]flow.Step[ImageState]{{
		Name: StepInputs, Next: "nothing was pushed and no tag was written: give what the error names",
		Run: func(ctx context.Context, s *ImageState) error { return branchInputs(ctx, s, sha, src) },
	}}, Steps(branchAdvice(sc, p), func(s *ImageState) *ImageState { return s })...)
}

// branchInputs sets the tags of the commit and checks what publish-dev was given, the
// signing inputs included: without a way to sign, nothing would be tagged anyway.
func branchInputs(ctx context.Context, s *ImageState, sha string, src *dagger.Directory) error {
	tags, err := BranchTags(s.Target.Tags, sha)
	if err != nil {
		return err
	}
	s.ReuseTag, s.Tags = tags[0], tags
	if err := s.checkGiven(publishingNames()); err != nil {
		return err
	}
	if err := s.Signing.Provenance.CheckBuilder(); err != nil {
		return err
	}
	if s.Signing.Provenance.BaseImages == nil {
		if src == nil {
			return errors.New("no source to read the images' base images from")
		}
		if s.Signing.Provenance.BaseImages, err = ReadBaseImages(ctx, src, s.Built); err != nil {
			return fmt.Errorf("reading the base images: %w", err)
		}
	}
	return nil
}

func branchResult(s *ImageState) BranchResult {
	res := BranchResult{Reused: s.Reused, Evidence: s.Evidence, Verified: s.Verified, Tags: s.Applied, Reports: s.Reports}
	if s.Pushed != nil {
		res.Digests = Digests(s.Pushed)
	}
	for _, r := range s.Scans {
		res.Scanned = append(res.Scanned, r.Name)
	}
	return res
}
