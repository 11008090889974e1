package ci

import (
	"context"
	"errors"
	"testing"
)

// TestCancelledWorkFailsClosed: work that a cancel kept from starting fails the call; it is
// never counted as passed.
func TestCancelledWorkFailsClosed(t *testing.T) {
	p, e := newPipeline(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := p.Test(ctx, DefaultPythonVersions(), LevelAll); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled test matrix: %v", err)
	}
	if _, _, err := p.ScanReports(ctx, []ScanInput{{Name: "filer", Ref: "registry.example/filer@sha256:" + sha256Zeros}}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled scan: %v", err)
	}
	if execs := e.Graph().Execs(); len(execs) != 0 {
		t.Errorf("a cancelled run ran %d command(s)", len(execs))
	}
}

const sha256Zeros = "0000000000000000000000000000000000000000000000000000000000000000"
