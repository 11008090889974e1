package main

import (
	"testing"

	"dagger/shipyard/internal/modsurface"
)

// cachePolicies is why each function may, or may not, be served from the engine's function
// cache (Dagger v0.21 caches results by default, keyed by the arguments). A function that
// writes somewhere, or reads state outside its inputs (GitHub, a registry, PyPI, Sigstore,
// today's vulnerability database), must never answer from an old result: a release gate
// once said "go" from the cache after CI had failed. The real-engine suite checks this by
// changing the outside state between two identical calls.
var cachePolicies = map[string]struct{ policy, why string }{
	"pr-title":                {"", "pure over its argument"},
	"lint":                    {"", "source and digest-pinned images only"},
	"test":                    {"", "source and digest-pinned images only"},
	"test-check":              {"", "source and digest-pinned images only"},
	"python-versions":         {"", "the source's pyproject.toml only"},
	"patch-coverage":          {"", "the source with its history, and digest-pinned images only"},
	"image":                   {"", "source and digest-pinned images only"},
	"docs":                    {"", "source and digest-pinned images only"},
	"images":                  {"session", "a list of containers: Dagger v0.21.8 cannot load one persisted by an earlier engine"},
	"end-to-end":              {"", "source and digest-pinned images only"},
	"check-artifacts":         {"", "the checkout only"},
	"model-ci":                {"", "the checkout and its lockfile only: uv sync --frozen installs the locked hashes"},
	"scan":                    {"session", "Trivy's vulnerability database changes daily"},
	"scan-check":              {"session", "Trivy's vulnerability database changes daily"},
	"ci":                      {"session", "includes the scan"},
	"gen-repo":                {"session", "generates from the Cloudcoil version published on PyPI"},
	"validate-models":         {"session", "generates from the Cloudcoil version published on PyPI"},
	"model-integrations":      {"", "the source's models/upstreams.json only"},
	"update-repos":            {"never", "reads and writes the model repositories' main branches on GitHub"},
	"model-versions":          {"never", "reads GitHub and PyPI, writes a branch and a pull request"},
	"check-extras":            {"never", "reads PyPI, whose projects appear after the first upload"},
	"model-lines":             {"", "the checkout's release workflow only"},
	"model-template-patch":    {"", "the checkout's template and models/upstreams.json only"},
	"propose-upstreams":       {"never", "reads PyPI: a new Cloudcoil release moves the current minor's version"},
	"model-release":           {"never", "reads and writes GitHub releases, branches and tags"},
	"publish-check":           {"never", "the gate before an upload: reads the tag and installs from PyPI"},
	"release-plan":            {"never", "reads tags, releases and CI runs on GitHub"},
	"next-release-check":      {"never", "reads the releases on GitHub, which a later release changes"},
	"doctor":                  {"never", "reads the repository's settings on GitHub and its uploads on PyPI"},
	"release":                 {"never", "publishes images and a GitHub release"},
	"release-push":            {"never", "writes to the registry"},
	"release-push-platform":   {"never", "writes to the registry"},
	"release-assemble":        {"never", "reads and writes the registry"},
	"release-scan":            {"never", "reads the registry and today's vulnerability database"},
	"release-publish":         {"never", "signs and tags in the registry"},
	"release-publish-release": {"never", "writes a GitHub release"},
	"publish-dev":             {"never", "writes to the registry and Sigstore"},
	"push-by-digest":          {"never", "writes to the registry"},
	"push-platform-by-digest": {"never", "writes to the registry"},
	"assemble-index":          {"never", "reads and writes the registry"},
	"scan-digests":            {"never", "reads the registry and today's vulnerability database"},
	"attest":                  {"never", "writes to the registry and Sigstore"},
	"sign":                    {"never", "writes to the registry and Sigstore"},
	"tag-images":              {"never", "moves tags in the registry"},
	"scan-published":          {"never", "reads the registry and today's vulnerability database"},
	"verify":                  {"never", "reads signatures from the registry"},
	"with-sigstore":           {"", "returns the module with the signing settings; touches nothing"},
	"with-platforms":          {"", "returns the module with the platforms to build; touches nothing"},
}

func TestEveryFunctionHasItsCachePolicy(t *testing.T) {
	s, err := modsurface.FromSource(".", "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range s.Names() {
		want, ok := cachePolicies[name]
		if !ok {
			t.Errorf("%s: no cache policy decided; add it to cachePolicies with the reason", name)
			continue
		}
		if got := s.Functions[name].Cache; got != want.policy {
			t.Errorf("%s: +cache=%q, want %q (%s)", name, got, want.policy, want.why)
		}
	}
	for name := range cachePolicies {
		if _, ok := s.Functions[name]; !ok {
			t.Errorf("cachePolicies names %s, which the module does not declare", name)
		}
	}
}
