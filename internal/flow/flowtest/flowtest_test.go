package flowtest

import (
	"slices"
	"testing"
)

func TestMisnamed(t *testing.T) {
	known := []string{"check-inputs", "push-by-digest", "scan-digests", "sign", "tag", "release-plan", "read main", "read"}
	declared := []string{"check-inputs", "sign"}
	tests := []struct {
		name, msg string
		want      []string
	}{
		{"once", "sign: filer: the digest is not in the registry", nil},
		{"a flow named after its one step", "sign: filer (r@sha256:aa): supplychain sign: exit 1", nil},
		{"twice", "sign: sign: no OIDC token", []string{"step sign is named twice"}},
		{"twice with the image", "sign: sign filer: denied", []string{"step sign is named twice"}},
		{"the image and its reference", "publish: sign filer (r@sha256:aa): sign: denied", []string{"step sign is named twice"}},
		{"a step of another flow", "sign: push-by-digest: denied", []string{"step push-by-digest is not a step of this flow [check-inputs sign]"}},
		{"a word that is a step name in a sentence", "sign: tag v0.11.0 resolved to no commit", nil},
		{"the advice is not read", "sign: denied\n  next: re-run sign: sign again", nil},
		{"no step at all", "denied", nil},
		{"a name of several words", "sign: read main: denied", []string{"step read main is not a step of this flow [check-inputs sign]"}},
		{"the longest name wins", "sign: read main filer: denied", []string{"step read main is not a step of this flow [check-inputs sign]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Misnamed(tt.msg, declared, known); !slices.Equal(got, tt.want) {
				t.Errorf("Misnamed(%q) = %q, want %q", tt.msg, got, tt.want)
			}
		})
	}
}
