package gobuild_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/internal/gobuild"
	"dagger/shipyard/internal/testkit/engine"
)

func TestRun(t *testing.T) {
	for _, tt := range []struct {
		name           string
		stdout, stderr string
		code           int
		want           *gobuild.ExitError
	}{
		{name: "success", stdout: "{}\n"},
		{name: "a failure with its message", stdout: "partial\n", stderr: "registry latest: refused\n", code: 3,
			want: &gobuild.ExitError{Code: 3, Stdout: "partial\n", Message: "registry latest: refused"}},
		{name: "a failure without a message", code: 1, want: &gobuild.ExitError{Code: 1}},
		{name: "a usage error is Shipyard's bug", stderr: "tool run: flag provided but not defined: -x\n", code: 2,
			want: &gobuild.ExitError{Code: 2, Message: "usage error (a bug of Shipyard's, please report it): tool run: flag provided but not defined: -x"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			e := engine.New(t)
			e.OnExec(engine.ExecRule{ArgsContain: "tool run", Stdout: tt.stdout, Stderr: tt.stderr, ExitCode: tt.code})
			ctr := e.Client(ctx).Container().From("docker.io/library/alpine:3.20")
			for range 2 {
				stdout, err := gobuild.Run(ctx, ctr, "TOOL_RUN", []string{"tool", "run"})
				var xe *gobuild.ExitError
				switch {
				case tt.want == nil && (err != nil || stdout != tt.stdout):
					t.Fatalf("Run = %q, %v; want %q", stdout, err, tt.stdout)
				case tt.want != nil && !errors.As(err, &xe):
					t.Fatalf("Run = %q, %v; want an ExitError", stdout, err)
				case tt.want != nil && (xe.Code != tt.want.Code || strings.TrimSpace(xe.Stdout) != strings.TrimSpace(tt.want.Stdout) || (tt.want.Message != "" && xe.Message != tt.want.Message) || xe.Message == ""):
					t.Fatalf("ExitError %#v, want %#v (and a message)", *xe, *tt.want)
				}
			}
			runs := e.Graph().ExecsWith("tool run")
			if len(runs) != 2 || runs[0].Env["TOOL_RUN"] == "" || runs[0].Env["TOOL_RUN"] == runs[1].Env["TOOL_RUN"] {
				t.Errorf("two calls made %d execs with values %q: each call must be a new exec", len(runs), []string{runs[0].Env["TOOL_RUN"]})
			}
		})
	}
}
