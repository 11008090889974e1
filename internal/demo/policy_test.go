package demo_test

import (
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/internal/demo"
)

func TestRelease(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		fn     string
		dryRun bool
		want   string // the step the dry run stops before; "" when refused
	}{
		{name: "the release as a dry run", fn: "release", dryRun: true, want: "build"},
		{name: "the release itself publishes", fn: "release"},
		{name: "a push job", fn: "release-push", dryRun: true},
		{name: "a platform's push job", fn: "release-push-platform"},
		{name: "the assemble job", fn: "release-assemble"},
		{name: "the scan job", fn: "release-scan"},
		{name: "the publish job", fn: "release-publish"},
		{name: "the GitHub release job", fn: "release-publish-release"},
		{name: "no function", dryRun: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			stop, err := demo.Release(tt.fn, tt.dryRun)
			if tt.want == "" {
				if !errors.Is(err, demo.ErrRelease) || stop != (demo.Stop{}) {
					t.Fatalf("Release(%q, %t) = %+v, %v; want ErrRelease", tt.fn, tt.dryRun, stop, err)
				}
				return
			}
			if err != nil || stop.Before != tt.want || !strings.Contains(stop.Reason, "registry") {
				t.Fatalf("Release(%q, %t) = %+v, %v; want a stop before %s, for want of a registry", tt.fn, tt.dryRun, stop, err, tt.want)
			}
		})
	}
}

func TestGitURL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, given, want, err string
	}{
		{name: "the demo's git host", want: "http://svc-1a2b:8082/elixir-cloud-aai/tesk-core.git"},
		{name: "a --git-url given", given: "https://github.com/elixir-cloud-aai/tesk-core.git", err: "drop --git-url"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := demo.GitURL(tt.given, "http://svc-1a2b:8082/", "elixir-cloud-aai/tesk-core")
			if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("GitURL(%q) = %q, %v; want %q, error %q", tt.given, got, err, tt.want, tt.err)
			}
		})
	}
}
