package publish

import (
	"context"
	"errors"
	"fmt"

	"dagger.io/dagger"

	"dagger/shipyard/internal/registry"
	"dagger/shipyard/pipelines/ci"
)

// Dev is what a push to dev publishes, and where.
type Dev struct {
	// Pipeline is the CI pipeline of the source (its Trivy pin and clock for the scan).
	Pipeline *ci.Pipeline
	// Images are the images built from the pushed commit (ci.Pipeline.Images).
	Images []ci.Image
	Target Target
	Sign   SignInputs
	// Ignore is the content of the source's .trivyignore.yaml (empty: none).
	Ignore []byte
	// Workdir holds the OCI tarballs during the push.
	Workdir string
}

// DevResult is what PublishDev did, as far as it got. Its JSON is what the workflow logs.
type DevResult struct {
	// Digests maps each image name to its pushed digest.
	Digests map[string]string `json:"digests"`
	// Reused lists images whose commit tag an earlier run had already published: their
	// digest is kept and the new build is not pushed.
	Reused []string `json:"reused,omitempty"`
	// Scanned lists the images whose digest passed the scan.
	Scanned  []string   `json:"scanned"`
	Evidence []Evidence `json:"evidence"`
	// Verified is the check of that evidence, as a user makes it, before tagging.
	Verified []Verification         `json:"verified"`
	Tags     []registry.ApplyReport `json:"tags"`
	// Reports holds the scan reports (<name>.json, <name>.sarif, summary.txt).
	Reports *dagger.Directory `json:"-"`
}

// PublishDev publishes the images of a commit pushed to dev: push by digest, scan exactly
// those digests, attest, sign, verify both with the signer's identity, and only then tag
// them sha-<commit> and dev. Any failure
// stops the flow before any tag is written, and the error says which step failed and that
// a re-run finishes: every step keeps what an earlier run completed (a pushed digest, a
// bundle already attached, a tag already on its digest), so re-running after success
// changes nothing.
func PublishDev(ctx context.Context, d Dev, sha string) (DevResult, error) {
	var res DevResult
	tags, err := DevTags(sha)
	if err != nil {
		return res, fmt.Errorf("publish-dev: %w", err)
	}
	// Checked before pushing: without a way to sign, nothing would be tagged anyway.
	if err := d.Sign.check("publish-dev"); err != nil {
		return res, fmt.Errorf("%w (nothing was pushed and no tag was written)", err)
	}
	if d.Pipeline == nil {
		return res, errors.New("publish-dev: no CI pipeline given")
	}
	if d.Sign.Provenance.BaseImages == nil {
		if d.Sign.Provenance.BaseImages, err = ReadBaseImages(ctx, d.Pipeline.Source, d.Images); err != nil {
			return res, fmt.Errorf("publish-dev: %w", err)
		}
	}
	stopped := func(err error) (DevResult, error) {
		return res, fmt.Errorf("publish-dev stopped before tagging (no tag was written; re-run to finish): %w", err)
	}

	pushed, err := pushForCommit(ctx, d, tags[0], &res)
	if err != nil {
		return stopped(err)
	}
	res.Digests = Digests(pushed)

	reports, results, err := ScanDigests(ctx, d.Pipeline, pushed, d.Ignore)
	res.Reports = reports
	if err != nil {
		return stopped(err)
	}
	for _, r := range results {
		res.Scanned = append(res.Scanned, r.Name)
	}

	attested, err := Attest(ctx, d.Sign, d.Target, pushed, d.Images)
	if err != nil {
		return stopped(err)
	}
	res.Evidence = append(res.Evidence, attested...)
	signed, err := Sign(ctx, d.Sign, d.Target, pushed)
	if err != nil {
		return stopped(err)
	}
	res.Evidence = append(res.Evidence, signed...)
	if res.Verified, err = VerifySigned(ctx, d.Sign, d.Target, pushed, res.Evidence); err != nil {
		return stopped(err)
	}

	// A push to dev never sets latest, so no stillLatest check is needed.
	applied, err := TagImages(ctx, d.Target, pushed, tags, nil)
	res.Tags = applied
	if err != nil {
		return res, fmt.Errorf("publish-dev: %w", err)
	}
	return res, nil
}

// pushForCommit pushes the images that have no commit tag yet and reuses the digest of
// those that have one. Builds are not always reproducible, so a re-run on a fresh engine
// may build another digest for the same commit; since the commit tag never moves and is
// written only after its digest was scanned, attested and signed, the digest it names is
// the commit's image and the re-run finishes the job with it.
func pushForCommit(ctx context.Context, d Dev, commitTag string, res *DevResult) ([]Pushed, error) {
	if err := d.Target.check(); err != nil {
		return nil, fmt.Errorf("push-by-digest: %w", err)
	}
	existing := make([]string, len(d.Images))
	err := forEach(len(d.Images), func(i int) error {
		repo := d.Target.Repository(d.Images[i])
		tags, err := registry.ResolveTags(ctx, repo, []string{commitTag}, d.Target.Auth, d.Target.RegistryOptions...)
		if err != nil {
			return fmt.Errorf("push-by-digest %s: looking for %s: %w", d.Images[i].Spec.Name, commitTag, err)
		}
		existing[i] = tags[commitTag]
		return nil
	})
	if err != nil {
		return nil, err
	}
	var build []ci.Image
	for i, img := range d.Images {
		if existing[i] == "" {
			build = append(build, img)
		} else {
			res.Reused = append(res.Reused, img.Spec.Name)
		}
	}
	var fresh []Pushed
	if len(build) > 0 {
		if fresh, err = PushByDigest(ctx, build, d.Target, d.Workdir); err != nil {
			return nil, err
		}
	}
	out := make([]Pushed, 0, len(d.Images))
	for i, img := range d.Images {
		if existing[i] != "" {
			out = append(out, Pushed{Name: img.Spec.Name, Repository: d.Target.Repository(img), Digest: existing[i]})
			continue
		}
		out = append(out, fresh[0])
		fresh = fresh[1:]
	}
	return out, nil
}
