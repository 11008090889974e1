package githubcmd_test

import (
	"os"
	"testing"

	"dagger/shipyard/internal/testkit/githubexec"
)

func TestMain(m *testing.M) { os.Exit(githubexec.Main(m)) }
