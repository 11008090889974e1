package publish

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"dagger/shipyard/internal/flow"
)

// Input is one thing publishing's caller gives it, named in publishing's words. How the
// caller's users give it (tesk-core's: a flag of a Shipyard function, such as
// --registry-username) is the caller's to say: an error about an input names it as an
// Input, and the caller spells it (Spell), so no caller's flag is written here.
type Input string

// The inputs publishing's errors name.
const (
	InputRegistry         Input = "registry"
	InputOrg              Input = "registry organisation"
	InputRegistryUsername Input = "registry user name"
	InputImageRefs        Input = "image references"
	InputPlatform         Input = "platform"
	InputPlatforms        Input = "platforms the images are published for"
	InputCommit           Input = "commit"
	InputRepository       Input = "repository"
	InputGitHubEnv        Input = "GitHub Actions run's variables"
	InputBuilderID        Input = "builder id"
	InputBuildType        Input = "build type"
	InputIdentityToken    Input = "OIDC identity token"
	InputTokenRequestURL  Input = "GitHub Actions token request URL"
	InputTokenRequest     Input = "GitHub Actions token request token"
	InputTrustedRoot      Input = "Sigstore trusted root"
	InputFulcioURL        Input = "Fulcio URL"
	InputRekorURL         Input = "Rekor URL"
	InputIdentity         Input = "signer identity regexp"
	InputIssuer           Input = "signer's OIDC issuer"
	InputMinSCTs          Input = "required certificate timestamps"
)

// Inputs lists every input, for a caller's test that spells each.
func Inputs() []Input {
	return []Input{InputRegistry, InputOrg, InputRegistryUsername, InputImageRefs, InputPlatform, InputPlatforms,
		InputCommit, InputRepository, InputGitHubEnv, InputBuilderID, InputBuildType, InputIdentityToken,
		InputTokenRequestURL, InputTokenRequest, InputTrustedRoot, InputFulcioURL, InputRekorURL, InputIdentity,
		InputIssuer, InputMinSCTs}
}

// InputError is an error about inputs the caller gave. Its message is rendered when read,
// from a format whose Input arguments are the inputs it names: in publishing's words ("the
// registry user name"), or in the caller's once spelled.
type InputError struct {
	format  string
	args    []any
	spelled map[Input]string
}

// InputErrorf is fmt.Errorf for an error naming inputs: each Input among args is one.
func InputErrorf(format string, args ...any) *InputError {
	return &InputError{format: format, args: args}
}

func (e *InputError) render() error {
	args := slices.Clone(e.args)
	for i, a := range args {
		if in, ok := a.(Input); ok {
			args[i] = e.name(in)
		}
	}
	return fmt.Errorf(e.format, args...)
}

// name is how the message names in: the caller's spelling, or publishing's words.
func (e *InputError) name(in Input) string {
	if s, ok := e.spelled[in]; ok && s != "" {
		return s
	}
	return "the " + string(in)
}

func (e *InputError) Error() string { return e.render().Error() }

// Unwrap gives the errors the message wraps (%w), so their identity survives spelling.
func (e *InputError) Unwrap() []error {
	switch w := e.render().(type) {
	case interface{ Unwrap() []error }:
		return w.Unwrap()
	case interface{ Unwrap() error }:
		return []error{w.Unwrap()}
	}
	return nil
}

// Names are the inputs an error names.
func (e *InputError) Names() []Input {
	var out []Input
	for _, a := range e.args {
		if in, ok := a.(Input); ok {
			out = append(out, in)
		}
	}
	return out
}

// Spell names err's inputs as the caller's users give them (spelling: Input → e.g. a
// flag). It reaches every InputError in err's chain: one that err is, or that a flow.Error,
// an InputError or any error wrapping one error holds (fmt.Errorf's %w). The errors on the
// way keep their identity for errors.Is and errors.As.
func Spell(err error, spelling map[Input]string) error {
	spelled, _ := spell(err, spelling)
	return spelled
}

// spell is Spell, and whether it named any input: an error with none keeps its identity.
func spell(err error, spelling map[Input]string) (error, bool) {
	switch e := err.(type) {
	case *InputError:
		spelled := *e
		spelled.spelled = spelling
		spelled.args = slices.Clone(e.args)
		for i, a := range spelled.args {
			if inner, ok := a.(error); ok {
				spelled.args[i], _ = spell(inner, spelling)
			}
		}
		return &spelled, true
	case *flow.Error:
		inner, changed := spell(e.Err, spelling)
		if !changed {
			return err, false
		}
		spelled := *e
		spelled.Err = inner
		return &spelled, true
	}
	inner := errors.Unwrap(err)
	if inner == nil {
		return err, false
	}
	spelledInner, changed := spell(inner, spelling)
	if !changed {
		return err, false
	}
	return &respelled{text: strings.Replace(err.Error(), inner.Error(), spelledInner.Error(), 1), spelled: spelledInner, err: err}, true
}

// respelled is an error that wraps one whose inputs Spell named: its message with the
// wrapped one's spelled. It unwraps to the spelled error, then to the original, so both
// chains still answer errors.Is and errors.As.
type respelled struct {
	text         string
	spelled, err error
}

func (e *respelled) Error() string   { return e.text }
func (e *respelled) Unwrap() []error { return []error{e.spelled, e.err} }
