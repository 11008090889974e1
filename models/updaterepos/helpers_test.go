package updaterepos

import (
	"strings"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// changes are the writes a run sent GitHub but those that change nothing: asking for
// release notes, which a run that writes does first to learn whether its token may
// (github.ProbeContentsWrite), and GitHub saves nothing of.
func changes(sim *githubsim.Server) []githubsim.Request {
	var out []githubsim.Request
	for _, r := range sim.Writes() {
		if !strings.HasSuffix(r.Path, "/releases/generate-notes") {
			out = append(out, r)
		}
	}
	return out
}
