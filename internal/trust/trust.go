// Package trust names the trust level of each of the module's functions, which decides the
// cache volumes it may mount: pull-request work and publishing never share one, and a
// caller's own images (--pin) never share one with the default pins.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"dagger/shipyard/internal/pins"
)

// Level is the trust level of a job, and so of the cache volumes it may mount. A job that
// runs the repository's code as a pull request may change it (tests, hooks, builds, e2e) is
// Untrusted; a job that writes outside the engine, or whose output a writing step consumes,
// is Release. The levels never share a cache volume: code of a pull request could otherwise
// plant a download (a wheel in uv's cache, a Trivy database, a Go module) that a publishing
// step then uses.
type Level int

const (
	// Untrusted is the zero level, so a graph that names no level gets the caches of
	// pull-request work and never those of a publishing step.
	Untrusted Level = iota
	// Release is the level of the functions that push, sign, tag, release or publish, and
	// of those whose output or verdict such a step consumes.
	Release
)

// String is the level's name, part of its cache volumes' names.
func (t Level) String() string {
	if t == Release {
		return "release"
	}
	return "untrusted"
}

// functions is the trust level of every function of the module, by its CLI name: the one
// place it is decided. A function missing here refuses to run (Of), and the module's tests
// fail until it is added, so a new function cannot run at a level nobody chose.
var functions = map[string]Level{
	// tesk-core CI: the repository's code as a pull request has it.
	"pr-title":           Untrusted,
	"lint":               Untrusted,
	"test":               Untrusted,
	"test-check":         Untrusted,
	"python-versions":    Untrusted,
	"patch-coverage":     Untrusted,
	"docs":               Untrusted,
	"image":              Untrusted,
	"images":             Untrusted,
	"scan":               Untrusted,
	"scan-check":         Untrusted,
	"end-to-end":         Untrusted,
	"ci":                 Untrusted,
	"release-plan":       Untrusted, // reads GitHub only; runs no container
	"next-release-check": Untrusted, // reads the tree and GitHub; runs no container
	"doctor":             Untrusted, // reads GitHub only; runs no container
	"with-sigstore":      Untrusted, // settings only
	"with-platforms":     Untrusted, // settings only

	// Cloudcoil checks of a pull request's tree.
	"gen-repo":             Untrusted,
	"validate-models":      Untrusted,
	"check-artifacts":      Untrusted,
	"model-ci":             Untrusted,
	"model-integrations":   Untrusted,
	"model-lines":          Untrusted,
	"check-extras":         Untrusted, // reads PyPI only; runs no container
	"propose-upstreams":    Untrusted, // reads the tree only; runs no container
	"model-template-patch": Untrusted, // a file built into the module

	// tesk-core publishing: each writes to the registry, Sigstore or GitHub, or is the
	// check a write waits for.
	"release":                 Release,
	"release-push":            Release,
	"release-push-platform":   Release,
	"release-assemble":        Release,
	"release-scan":            Release, // its verdict gates release-publish
	"release-publish":         Release,
	"release-publish-release": Release,
	"publish-dev":             Release,
	"push-by-digest":          Release,
	"push-platform-by-digest": Release,
	"assemble-index":          Release,
	"scan-digests":            Release, // the release's scan of what it pushed
	"attest":                  Release,
	"sign":                    Release,
	"tag-images":              Release,
	"verify":                  Release, // builds the signing tool; gates a deployment
	"scan-published":          Release, // scans what users pull, with a database a PR cannot plant

	// Cloudcoil publishing.
	"model-release":  Release,
	"publish-check":  Release, // its dist/ goes to PyPI
	"update-repos":   Release, // pushes generated trees to every model repository
	"model-versions": Release, // writes a branch and a pull request; keeps the ETag cache
}

// Of is the trust level of the module function named fn (its CLI name, e.g. update-repos).
// An unknown name is an error: no level is a safe guess for a function nobody classified.
func Of(fn string) (Level, error) {
	l, ok := functions[fn]
	if !ok {
		return Untrusted, fmt.Errorf("no trust level is decided for the function %q (internal/trust)", fn)
	}
	return l, nil
}

// Functions lists the functions the table classifies, sorted.
func Functions() []string { return slices.Sorted(maps.Keys(functions)) }

// CacheVolumeName is the key of a cache volume named name, mounted at this level by a graph
// that runs the images p: e.g. shipyard-uv-cache-release-3f2a…. The images are part of the
// key, so an overriding --pin (a caller's own image, which may write anything into the
// volume) never shares a volume with the default pins, at either level.
func (t Level) CacheVolumeName(name string, p pins.Pins) string {
	return name + "-" + t.String() + "-" + pinsKey(p)
}

// pinsKey is a short digest of every pinned image. JSON orders the map's keys, so equal
// pins give one key.
func pinsKey(p pins.Pins) string {
	b, _ := json.Marshal(p) // a struct of strings and a map of strings always marshals
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:12]
}

// UVCacheVolume is the base name of uv's download cache, which both systems' Python jobs
// mount at their level.
const UVCacheVolume = "shipyard-uv-cache"
