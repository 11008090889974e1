package release

import (
	"errors"
	"fmt"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// ImageConfig is what the image steps need: where the images go and how they are signed.
type ImageConfig struct {
	// Target is the registry, organisation and login. Its organisation must be the plan's.
	Target publish.Target
	// Sign holds the supplychain tool, the OIDC token, Sigstore's URLs and the builder of
	// the provenance; the source of the provenance is set from the plan.
	Sign publish.SignInputs
}

// withSource completes the provenance with what the release built: the repository, the tag
// and the commit.
func (s ImageConfig) withSource(cfg Config, plan releasegate.Plan) publish.SignInputs {
	in := s.Sign
	in.Provenance.SourceRepository = cfg.repoURL()
	in.Provenance.SourceRef = "refs/tags/" + plan.Tag
	in.Provenance.SourceCommit = plan.Commit
	return in
}

// checkTarget refuses to publish somewhere the plan did not name.
func (s ImageConfig) checkTarget(plan releasegate.Plan) error {
	if s.Target.Org == "" {
		return errors.New("no registry organisation given")
	}
	for _, img := range plan.Images {
		want := s.Target.Org + "/" + img.Name
		if img.Repository != want {
			return fmt.Errorf("the plan publishes %s, the registry target %s: give the same organisation to both", img.Repository, want)
		}
	}
	return nil
}
