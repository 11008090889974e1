package flowexecs

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/gobuild"
)

// The expected tool builds are the command lines publish builds them with.
func TestToolBuildsAreGobuildsArgs(t *testing.T) {
	for _, c := range []struct{ name, got, want string }{
		{"SigningTool", SigningTool, strings.Join(gobuild.Args("/out/", "./cmd/supplychain", "./cmd/registry"), " ")},
		{"RegistryTool", RegistryTool, strings.Join(gobuild.Args("/out/", "./cmd/registry"), " ")},
		{"GitHubTool", GitHubTool, strings.Join(gobuild.Args("/out/", "./cmd/github"), " ")},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
}
