// Package functions holds what each function of the module is: the trust rule its calls are
// leveled by (internal/trust), whether it runs the signing tool, whether it builds images
// for every default platform when none is configured, and the engine's cache policy for its
// calls, with the reason. Each is declared once, beside the function, as pragmas of its doc
// comment (Dagger reads +cache and ignores the others):
//
//	// +cache="never"
//	// +trust="publishing(registry-password, identity-token)"  (or "tree-keyed"; none: untrusted)
//	// +signs
//	// +allPlatforms
//	// +cacheReason="writes to the registry and Sigstore"
//
// declarations.go is generated from them (go generate ./internal/functions); a test fails
// when it is out of date. A function without a declaration refuses to run.
package functions

//go:generate go run ./gen -root ../.. -out declarations.go

import (
	"fmt"
	"maps"
	"slices"

	"dagger/shipyard/internal/trust"
)

// Cache is the engine's cache policy for a function's calls: its +cache pragma.
type Cache string

const (
	// Cached is Dagger's default (no pragma): a result is reused for the same arguments.
	Cached Cache = ""
	// Session reuses a result within one client session only.
	Session Cache = "session"
	// Never computes every call afresh: for what writes, or reads state outside its
	// inputs (GitHub, a registry, PyPI, Sigstore, today's vulnerability database).
	Never Cache = "never"
)

// Declaration is what one function is.
type Declaration struct {
	// Name is its CLI name (Dagger's, from Method), which errors and logs name it by.
	Name string
	// Method is its Go method on the module's main type.
	Method string
	// Trust levels its calls, and so the cache volumes they may mount.
	Trust trust.Rule
	// Signs: it runs the signing tool, so with-sigstore's settings reach it.
	Signs bool
	// AllPlatforms: its images are published (or are what a publish pushes), so it builds
	// for every default platform unless with-platforms says otherwise.
	AllPlatforms bool
	// Cache is its calls' cache policy, and Why the reason: a release gate once said "go"
	// from the cache after CI had failed.
	Cache Cache
	Why   string
}

// Of is the declaration of the function fn (its CLI name). An unknown name is an error:
// no trust level, signing setup or cache policy is a safe guess for a function nobody
// declared.
func Of(fn string) (Declaration, error) {
	d, ok := declarations[fn]
	if !ok {
		return Declaration{}, fmt.Errorf("the function %q is not declared: give its doc comment a +cacheReason (and +trust, +signs, +allPlatforms as it needs), then go generate ./internal/functions", fn)
	}
	d.Trust.Needs = slices.Clone(d.Trust.Needs)
	return d, nil
}

// OfMethod is the declaration of the function whose Go method is method, as a call finds
// its own (runtime.Callers gives the method, not the CLI name).
func OfMethod(method string) (Declaration, error) {
	for _, d := range declarations {
		if d.Method == method {
			return Of(d.Name)
		}
	}
	return Declaration{}, fmt.Errorf("the method %s is not a declared function: give its doc comment a +cacheReason, then go generate ./internal/functions", method)
}

// Names lists the declared functions, sorted.
func Names() []string { return slices.Sorted(maps.Keys(declarations)) }
