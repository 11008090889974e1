package main

import (
	"testing"

	"dagger/shipyard/internal/functions"
	"dagger/shipyard/internal/modsurface"
)

// Every registered function is declared in internal/functions, every declaration is of a
// registered function, and each declaration's cache policy is what the function's +cache
// pragma says (Dagger v0.21 caches results by default, keyed by the arguments). A function
// that writes somewhere, or reads state outside its inputs, must never answer from an old
// result; the real-engine suite checks this by changing the outside state between two
// identical calls.
func TestEveryFunctionHasItsCachePolicy(t *testing.T) {
	s, err := modsurface.FromSource(".", "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		d, err := functions.Of(name)
		if err != nil {
			t.Error(err)
			continue
		}
		if d.Why == "" {
			t.Errorf("%s: its declaration gives no reason for its cache policy", name)
		}
		if got := s.Functions[name].Cache; got != string(d.Cache) {
			t.Errorf("%s: +cache=%q, but internal/functions declares %q (%s)", name, got, d.Cache, d.Why)
		}
	}
	for _, name := range functions.Names() {
		if _, ok := s.Functions[name]; !ok {
			t.Errorf("internal/functions declares %s, which the module does not register", name)
		}
	}
}
