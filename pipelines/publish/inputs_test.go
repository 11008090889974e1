package publish_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/pipelines/publish"
)

// An error about inputs names them in publishing's words until its caller spells them:
// through a flow's error and an input error that wraps it, keeping what it wraps.
func TestSpellNamesInputsInTheCallersWords(t *testing.T) {
	spelling := map[publish.Input]string{publish.InputBuilderID: "--builder-id", publish.InputBuildType: "--build-type", publish.InputGitHubEnv: "--github-env"}
	noBuilder := publish.Origin{}.CheckBuilder()
	inner := publish.InputErrorf("image filer: %w", noBuilder)
	wrapped := &flow.Error{Flow: "publish-dev", Step: "check-inputs", Err: inner}
	plain := errors.New("registry unreachable")
	// Wrapped by another kind of error on the way up, as a caller's fmt.Errorf("--digests: %w").
	byCaller := fmt.Errorf("--digests: %w", &flow.Error{Flow: "sign", Step: "check-inputs", Err: inner})

	tests := []struct {
		name string
		err  error
		want string
	}{
		{"as publishing says it", noBuilder, "the provenance would name no builder: outside GitHub Actions it needs the builder id and the build type (or give the GitHub Actions run's variables)"},
		{"spelled", publish.Spell(noBuilder, spelling), "the provenance would name no builder: outside GitHub Actions it needs --builder-id and --build-type (or give --github-env)"},
		{"inside an input error", publish.Spell(inner, spelling), "image filer: the provenance would name no builder: outside GitHub Actions it needs --builder-id and --build-type (or give --github-env)"},
		{"inside a flow's error", publish.Spell(wrapped, spelling), "publish-dev: check-inputs: image filer: the provenance would name no builder: outside GitHub Actions it needs --builder-id and --build-type (or give --github-env)"},
		{"an input left unspelled", publish.Spell(noBuilder, map[publish.Input]string{publish.InputBuilderID: "--builder-id"}), "it needs --builder-id and the build type (or give the GitHub Actions run's variables)"},
		{"inside a caller's wrapping", publish.Spell(byCaller, spelling), "--digests: sign: check-inputs: image filer: the provenance would name no builder: outside GitHub Actions it needs --builder-id and --build-type (or give --github-env)"},
		{"another error, as it is", publish.Spell(plain, spelling), "registry unreachable"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); !strings.HasSuffix(got, tt.want) {
			t.Errorf("%s: %q, want it to end in %q", tt.name, got, tt.want)
		}
		if tt.err != plain && !errors.Is(tt.err, publish.ErrNoBuilder) {
			t.Errorf("%s: %v no longer wraps ErrNoBuilder", tt.name, tt.err)
		}
	}
	if got := wrapped.Error(); strings.Contains(got, "--") {
		t.Errorf("spelling changed the error it was given: %q", got)
	}
	var ie *publish.InputError
	if !errors.As(publish.Spell(wrapped, spelling), &ie) {
		t.Errorf("the spelled flow error holds no input error")
	}
	var fe *flow.Error
	if !errors.As(publish.Spell(byCaller, spelling), &fe) || fe.Step != "check-inputs" || publish.Spell(plain, spelling) != plain {
		t.Errorf("spelling lost the wrapped flow error, or changed an error with no input")
	}
}

// A value the user gave, written into the message, is never read as a placeholder.
func TestSpellLeavesTheUsersValuesAlone(t *testing.T) {
	err := publish.InputErrorf("%s %q is not anchored", publish.InputIdentity, "^v[0-9]{1,3}%s$")
	got := publish.Spell(err, map[publish.Input]string{publish.InputIdentity: "--identity"}).Error()
	if got != `--identity "^v[0-9]{1,3}%s$" is not anchored` {
		t.Errorf("got %q", got)
	}
}

// The identity token's error says how to give one, and keeps its identity.
func TestNoIdentityTokenSaysHowToGiveOne(t *testing.T) {
	err := publish.NoIdentityToken()
	if !errors.Is(err, publish.ErrNoIdentityToken) {
		t.Fatalf("%v is not ErrNoIdentityToken", err)
	}
	var ie *publish.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%v is no input error", err)
	}
	want := []publish.Input{publish.InputTokenRequestURL, publish.InputTokenRequest, publish.InputIdentityToken}
	if got := ie.Names(); len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("names %v, want %v", got, want)
	}
}
