package demo_test

import (
	"errors"
	"strings"
	"testing"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/trust"
)

func TestWrites(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		fn     string
		rule   trust.Rule
		dryRun bool
		want   string // what the refusal says; "" when the call may run
	}{
		{name: "a function that writes to the registry", fn: "push-by-digest", rule: trust.Publishing(trust.RegistryPassword),
			want: "push-by-digest: --demo runs nothing that writes: it writes with registry-password (its declaration in internal/functions)"},
		{name: "one that signs", fn: "sign", rule: trust.Publishing(trust.RegistryPassword, trust.IdentityToken), want: "it writes with registry-password and identity-token"},
		{name: "the release", fn: "release", rule: trust.Publishing(trust.GitHubToken, trust.RegistryPassword, trust.IdentityToken),
			want: "it writes with github-token, registry-password and identity-token"},
		{name: "the way out", fn: "tag-images", rule: trust.Publishing(trust.RegistryPassword), want: "drop --demo to run it for real, or run it as a dry run"},
		{name: "a dry run of one that writes", fn: "release", rule: trust.Publishing(trust.GitHubToken), dryRun: true},
		{name: "model-versions --check", fn: "model-versions", rule: trust.Publishing(trust.GitHubToken), dryRun: true},
		{name: "a function that writes nothing", fn: "release-plan", rule: trust.Rule{}},
		{name: "a tree-keyed one", fn: "publish-check", rule: trust.TreeKeyed()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := demo.Writes(tt.fn, tt.rule, tt.dryRun)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Writes(%q, %+v, %t) = %v, want nil", tt.fn, tt.rule, tt.dryRun, err)
				}
				return
			}
			if !errors.Is(err, demo.ErrWrites) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Writes(%q, %+v, %t) = %v; want demo.ErrWrites saying %q", tt.fn, tt.rule, tt.dryRun, err, tt.want)
			}
		})
	}
}

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
