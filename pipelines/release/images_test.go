package release

import (
	"testing"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// The release makes its provenance once, from the origin the call gave (the repository and
// the builder) and its plan's tag and commit; the call's signing inputs carry none.
func TestReleaseProvenanceIsTheOriginAtThePlan(t *testing.T) {
	origin := publish.Origin{
		SourceRepository: "https://github.com/elixir-cloud-aai/tesk-core",
		BuilderID:        "https://github.com/elixir-cloud-aai/tesk-core/actions",
		BuildType:        "https://shipyard.example/release/v1",
		GitHub:           map[string]string{"GITHUB_WORKFLOW_REF": "elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0"},
	}
	cfg := ImageConfig{Sign: publish.SignInputs{FulcioURL: "https://fulcio.example"}, Origin: origin}
	commit := "6cf339cd6a2aded108839cda83b58c93ec99b2f4"
	in := cfg.withSource(releasegate.Plan{Tag: "v0.11.0", Commit: commit})
	p := in.Provenance
	if p.SourceRepository != origin.SourceRepository || p.SourceRef != "refs/tags/v0.11.0" || p.SourceCommit != commit ||
		p.BuilderID != origin.BuilderID || p.BuildType != origin.BuildType || p.GitHub["GITHUB_WORKFLOW_REF"] == "" {
		t.Errorf("provenance %+v", p)
	}
	if in.FulcioURL != "https://fulcio.example" {
		t.Errorf("the signing inputs lost their settings: %+v", in)
	}
	if cfg.Sign.Provenance.SourceCommit != "" {
		t.Error("withSource changed the configuration's own signing inputs")
	}
}
