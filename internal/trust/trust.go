// Package trust decides the trust level of each call of the module's functions, which
// decides the cache volumes it may mount: pull-request work and publishing never share
// one, and a caller's own images (--pin) never share one with the default pins. A call's
// level follows what its caller holds (its credentials, and where they act), not the
// function's name: a dry run or a credential-free call runs at the pull-request level
// whatever function it is.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/tokenmac"
)

// class is the kind of a Level.
type class int

const (
	untrusted class = iota
	release
	tree
)

func (c class) String() string {
	switch c {
	case release:
		return "release"
	case tree:
		return "tree"
	}
	return "untrusted"
}

// Level is the trust level of one call, and so of the cache volumes it may mount:
//
//   - Untrusted: what anyone can make the module run, a pull request's job on a shared
//     engine included: every credential-free call, every dry run, and every function that
//     runs the repository's code as a pull request may change it (tests, hooks, builds).
//   - release: a call that holds the credentials its function writes with, not as a dry
//     run; its volumes are named for where those credentials act (the GitHub API and
//     repository, the registry and organisation, Fulcio), so a credential for one place
//     never opens the volumes of another, and a call pointed at a server of the caller's
//     choosing gets volumes of its own; and by a MAC of the credentials' values over
//     those places (its seal), so that only a holder of the credentials can name them:
//     Dagger names a module's volumes by the module's name and source, so any commit of
//     Shipyard run on the same engine, a fork's pull-request head included, could
//     otherwise mount them by a name it computes.
//   - tree: the caches belong to one source tree, named by its digest: a function whose
//     output is published and that holds no credential (publish-check, whose dist/ goes to
//     PyPI) runs the tree's own code beside volumes only a call on the same files wrote.
//
// The levels never share a cache volume: code of a pull request could otherwise plant a
// download (a wheel in uv's cache, a Trivy database, a Go module) that a publishing step
// then uses. The zero Level is Untrusted.
type Level struct {
	class class
	// scope is where the call's credentials act (release), or its tree (tree).
	scope string
	// seal is what only a holder of a release level's credentials can compute: a MAC of
	// each credential's value over where it acts (sealOf). Empty at the other levels.
	seal string
}

// Untrusted is the pull-request level, the zero Level: a graph that names no level gets
// its caches.
func Untrusted() Level { return Level{} }

// ReleaseAt is the release level of a credential whose value is credential and that acts
// at scope; Of builds one from a Caller, and tests of a publishing graph name one directly.
// Its volumes are named by a MAC of the value: no level without it names them.
func ReleaseAt(scope string, credential Secret) Level {
	return Level{class: release, scope: scope, seal: sealOf(credential, scope)}
}

// sealLabel is what a release level's seal is a MAC of, before the place a credential acts.
const sealLabel = "shipyard release cache volumes\n"

// sealOf is a credential's part of a release level's seal: a MAC of where it acts, keyed
// by its value (tokenmac.Of, as the GitHub command names a token's ETag cache).
func sealOf(credential Secret, where string) string {
	return tokenmac.Of(credential.value, sealLabel+where, 16)
}

// String is the level's class, part of its cache volumes' names.
func (l Level) String() string { return l.class.String() }

// Publishes reports whether the level is a credentialed publishing call's.
func (l Level) Publishes() bool { return l.class == release }

// Credential is a kind of credential a caller gives the module.
type Credential string

// The credentials the module takes.
const (
	// GitHubToken is --github-token; it acts at --github-api on --repo.
	GitHubToken Credential = "github-token"
	// RegistryPassword is --registry-password; it acts at --registry in --org.
	RegistryPassword Credential = "registry-password"
	// IdentityToken is with-sigstore's --oidc-token or GitHub Actions' token request; it
	// acts at Fulcio.
	IdentityToken Credential = "identity-token"
)

// seals reports whether c's value keys the release level's seal: every credential the
// project keeps (a token, a password), and not the identity token, which GitHub Actions
// mints for each job (a MAC of it would name new volumes on every run) and which no
// function needs without the registry password (internal/functions holds every rule to
// that).
func (c Credential) seals() bool { return c != IdentityToken }

// Secret is the value of a credential a call holds, read at the boundary into this
// process's memory, and only for a call at the release level, whose seal it keys. It
// formats as "[redacted]", whatever the verb, so no log or error shows it.
type Secret struct{ value string }

// SecretOf is the Secret of a credential's plaintext.
func SecretOf(plaintext string) Secret { return Secret{value: plaintext} }

func (Secret) String() string { return "[redacted]" }

// Format writes "[redacted]" for every verb (%v, %+v, %#v, %s, %q, %x, …).
func (Secret) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, "[redacted]") }

// Caller is what one call holds and asks, as the module's boundary reads it from the
// constructor's and the function's arguments: nothing here is trusted but the fact that
// a credential was given, where it is to act, and, for a call at the release level, its
// value, which seals the level's volume names.
type Caller struct {
	// Holds maps each credential given to where it acts, e.g. GitHubToken to
	// "https://api.github.com/ cloudcoil/cloudcoil".
	Holds map[Credential]string
	// Rehearsal is a call that writes nothing: --dry-run or --check. --demo is none by
	// itself: a function that writes writes for real whatever world the call reads.
	Rehearsal bool
	// Tree is the digest of the source tree (--source), for a function whose caches
	// belong to one tree (TreeKeyed); empty otherwise.
	Tree string
	// Values are the values of the credentials the call's release level is sealed with
	// (Sealing says which), read at the boundary; none for a call at another level.
	Values map[Credential]Secret
}

// Args are the module's arguments that decide what a call holds, as its boundary reads
// them: whether each credential was given (never its value), where it acts, and whether
// the call writes nothing.
type Args struct {
	// GitHubToken: --github-token was given; it acts at GitHubAPI on Repo.
	GitHubToken     bool
	GitHubAPI, Repo string
	// RegistryPassword: --registry-password was given; it acts at Registry in Org.
	RegistryPassword bool
	Registry, Org    string
	// IdentityToken: with-sigstore's --oidc-token or GitHub Actions' token request was
	// given; it acts at FulcioURL.
	IdentityToken bool
	FulcioURL     string
	// DryRun: --dry-run or --check. Demo: --demo, which answers the call's reads from the
	// demo world and makes no rehearsal: a call that writes is never one (the boundary
	// refuses --demo for such a call; one that got through would
	// write with the credentials it holds, so it is leveled by them).
	DryRun, Demo bool
}

// CallerOf is the Caller the arguments a describe. Each credential's scope is where it
// acts, so one for another place, or a server of the caller's choosing, opens other
// volumes. A dry run is a rehearsal: it writes nothing, so it runs at the pull-request
// level whatever it holds. --demo is not: only the dry run decides that a call writes
// nothing.
func CallerOf(a Args) Caller {
	holds := map[Credential]string{}
	if a.GitHubToken {
		holds[GitHubToken] = a.GitHubAPI + " " + a.Repo
	}
	if a.RegistryPassword {
		holds[RegistryPassword] = a.Registry + "/" + a.Org
	}
	if a.IdentityToken {
		holds[IdentityToken] = a.FulcioURL
	}
	return Caller{Holds: holds, Rehearsal: a.DryRun}
}

// Rule is how one function's calls are leveled; each function's is declared once, in
// internal/functions.
type Rule struct {
	// Needs are the credentials a call must hold to run at the release level; none: the
	// function never does (anyone can call it, so it runs at the pull-request level).
	Needs []Credential
	// Tree: the function's caches belong to its source tree.
	Tree bool
}

// Publishing is the rule of a function that publishes with the credentials c: a call
// holding them all, and no rehearsal, runs at the release level.
func Publishing(c ...Credential) Rule { return Rule{Needs: c} }

// Writes reports whether the rule is a function's that writes outside the engine (a
// registry, Sigstore, GitHub): one that publishes with credentials (Publishing).
func (r Rule) Writes() bool { return len(r.Needs) > 0 }

// TreeKeyed is the rule of a function whose caches belong to its source tree.
func TreeKeyed() Rule { return Rule{Tree: true} }

// Sealing are the credentials whose values (Caller.Values) Of needs for a call by c of a
// function whose rule is r: those that seal its release level (Credential.seals), when the
// call reaches it (it holds every credential r needs and is no rehearsal); none otherwise,
// so the boundary reads no credential's value for any other call.
func Sealing(r Rule, c Caller) []Credential {
	if r.Tree || !r.Writes() || c.Rehearsal {
		return nil
	}
	var out []Credential
	for _, need := range r.Needs {
		if _, held := c.Holds[need]; !held {
			return nil
		}
		if need.seals() {
			out = append(out, need)
		}
	}
	return out
}

// Of is the trust level of a call by c of the function fn (its CLI name, for errors),
// whose rule is r: release only when c holds every credential r needs and is no rehearsal,
// scoped to where those credentials act and sealed with their values (Sealing); the tree's
// own for a tree-keyed function; otherwise Untrusted. A call at the release level without
// the value of a credential that seals it, or with an empty one, which anyone could MAC
// with, is an error: its volumes would be named by what a caller without it computes too.
func Of(fn string, r Rule, c Caller) (Level, error) {
	switch {
	case r.Tree && c.Tree == "":
		return Untrusted(), fmt.Errorf("%s: the trust level of its caches is its source tree's, and no tree digest was given (internal/trust)", fn)
	case r.Tree:
		return Level{class: tree, scope: c.Tree}, nil
	case !r.Writes() || c.Rehearsal:
		return Untrusted(), nil
	}
	var scope []string
	for _, need := range r.Needs {
		where, held := c.Holds[need]
		if !held {
			return Untrusted(), nil
		}
		scope = append(scope, string(need)+"="+where)
	}
	var seal []string
	for _, need := range Sealing(r, c) {
		place := string(need) + "=" + c.Holds[need]
		v, given := c.Values[need]
		if !given {
			return Untrusted(), fmt.Errorf("%s: %w: a MAC of the %s it writes with names them, and the boundary read no value (it reads those trust.Sealing names into Caller.Values)", fn, ErrNoSeal, need)
		}
		if v.value == "" {
			return Untrusted(), fmt.Errorf("%s: %w: a MAC of the %s it writes with names them, and anyone can compute one of an empty %s: give it a value, or call without it", fn, ErrNoSeal, need, need)
		}
		seal = append(seal, sealOf(v, place))
	}
	if len(seal) == 0 {
		return Untrusted(), fmt.Errorf("%s: %w: its rule needs no credential but %v, whose value seals nothing; declare it with one that does (internal/functions)", fn, ErrNoSeal, r.Needs)
	}
	return Level{class: release, scope: strings.Join(scope, "\n"), seal: strings.Join(seal, "")}, nil
}

// ErrNoSeal refuses a call at the release level whose cache volumes' names cannot be
// sealed with its credentials' values.
var ErrNoSeal = errors.New("no credential value seals the release level's cache volumes")

// CacheVolumeName is the key of a cache volume named name, mounted at this level by a graph
// that runs the images p: e.g. shipyard-uv-cache-release-3f2a…. The images are part of the
// key, so an overriding --pin (a caller's own image, which may write anything into the
// volume) never shares a volume with the default pins, at any level; so is the level's
// scope, so release volumes are those of one place the credentials act, and tree volumes
// those of one tree; and a release level's seal, so only a holder of its credentials can
// compute the name. The name holds a digest of these, never a credential.
func (l Level) CacheVolumeName(name string, p pins.Pins) string {
	return name + "-" + l.String() + "-" + key(p, l.scope, l.seal)
}

// BuildCacheVolumeName is the name of a cache volume that only the build of Shipyard's own
// commands mounts, in the Go image goImage: e.g. shipyard-go-build-release-5c1e…. Nothing
// of a caller's runs beside it (the source is the module's own; the image is a pin, and
// part of the key), so the level's scope is not part of it: a release reuses the build of
// any other release sealed alike (the same credentials where they act) instead of
// compiling the command again, while a pull request's call never shares it with a
// publishing one, nor names it without the credentials.
func (l Level) BuildCacheVolumeName(name, goImage string) string {
	b := []byte(goImage)
	if l.seal != "" {
		b = append(append(b, '\n'), l.seal...)
	}
	h := sha256.Sum256(b)
	return name + "-" + l.String() + "-" + hex.EncodeToString(h[:])[:12]
}

// key is a short digest of every pinned image, the scope and the seal. JSON orders the
// map's keys, so equal pins give one key; without a scope (Untrusted) it is the pins'
// alone.
func key(p pins.Pins, scope, seal string) string {
	b, _ := json.Marshal(p) // a struct of strings and a map of strings always marshals
	if scope != "" {
		b = append(append(b, '\n'), scope...)
	}
	if seal != "" {
		b = append(append(b, '\n'), seal...)
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:12]
}

// UVCacheVolume is the base name of uv's download cache, which both systems' Python jobs
// mount at their level.
const UVCacheVolume = "shipyard-uv-cache"
