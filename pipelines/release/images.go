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
	// Sign holds the supplychain tool, the OIDC token and Sigstore's URLs.
	Sign publish.SignInputs
	// Origin is the provenance's source repository and builder; the release makes the
	// provenance from it with the plan's tag and commit (withSource).
	Origin publish.Origin
}

// withSource is the signing inputs with the provenance of what the release builds: the
// origin's, at the plan's tag and commit.
func (s ImageConfig) withSource(plan releasegate.Plan) publish.SignInputs {
	in := s.Sign
	in.Provenance = s.Origin.Provenance("refs/tags/"+plan.Tag, plan.Commit)
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
