// Package functions declares each function of the module once, by its CLI name: the trust
// rule its calls are leveled by (internal/trust), whether it runs the signing tool, whether
// it builds images for every default platform when none is configured, and the engine's
// cache policy for its calls, with the reason, which its +cache pragma must state. The
// module, the pipelines and the tests read this table; a function without a declaration
// refuses to run, and the module's tests fail until it has one that agrees with its pragma.
package functions

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
		return Declaration{}, fmt.Errorf("the function %q is not declared in internal/functions: declare its trust rule, signing, platforms and cache policy", fn)
	}
	d.Trust.Needs = slices.Clone(d.Trust.Needs)
	return d, nil
}

// Names lists the declared functions, sorted.
func Names() []string { return slices.Sorted(maps.Keys(declarations)) }

// declarations: one row a function.
var declarations = map[string]Declaration{
	"pr-title":                {Trust: trust.Rule{}, Cache: Cached, Why: "pure over its argument"},
	"lint":                    {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"test":                    {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"test-check":              {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"python-versions":         {Trust: trust.Rule{}, Cache: Cached, Why: "the source's pyproject.toml only"},
	"patch-coverage":          {Trust: trust.Rule{}, Cache: Cached, Why: "the source with its history, and digest-pinned images only"},
	"image":                   {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"docs":                    {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"images":                  {Trust: trust.Rule{}, AllPlatforms: true, Cache: Session, Why: "a list of containers: Dagger v0.21.8 cannot load one persisted by an earlier engine"},
	"end-to-end":              {Trust: trust.Rule{}, Cache: Cached, Why: "source and digest-pinned images only"},
	"check-artifacts":         {Trust: trust.Rule{}, Cache: Cached, Why: "the checkout only"},
	"model-ci":                {Trust: trust.Rule{}, Cache: Cached, Why: "the checkout and its lockfile only: uv sync --frozen installs the locked hashes"},
	"scan":                    {Trust: trust.Rule{}, Cache: Session, Why: "Trivy's vulnerability database changes daily"},
	"scan-check":              {Trust: trust.Rule{}, Cache: Session, Why: "Trivy's vulnerability database changes daily"},
	"ci":                      {Trust: trust.Rule{}, Cache: Session, Why: "includes the scan"},
	"gen-repo":                {Trust: trust.Rule{}, Cache: Session, Why: "generates from the Cloudcoil version published on PyPI"},
	"validate-models":         {Trust: trust.Rule{}, Cache: Session, Why: "generates from the Cloudcoil version published on PyPI"},
	"model-integrations":      {Trust: trust.Rule{}, Cache: Cached, Why: "the source's models/upstreams.json only"},
	"update-repos":            {Trust: trust.Publishing(trust.GitHubToken), Cache: Never, Why: "reads and writes the model repositories' main branches on GitHub"}, // its token is checked on --repo before it generates
	"model-versions":          {Trust: trust.Publishing(trust.GitHubToken), Cache: Never, Why: "reads GitHub and PyPI, writes a branch and a pull request"},        // writes a branch and a pull request; keeps the ETag cache
	"check-extras":            {Trust: trust.Rule{}, Cache: Never, Why: "reads PyPI, whose projects appear after the first upload"},                                // reads PyPI only; runs no container
	"model-lines":             {Trust: trust.Rule{}, Cache: Cached, Why: "the checkout's release workflow only"},
	"model-template-patch":    {Trust: trust.Rule{}, Cache: Cached, Why: "the checkout's template and models/upstreams.json only"},                    // reads the tree only; runs no container
	"propose-upstreams":       {Trust: trust.Rule{}, Cache: Never, Why: "reads PyPI: a new Cloudcoil release moves the current minor's version"},      // reads the tree and PyPI only; runs no container
	"model-release":           {Trust: trust.Publishing(trust.GitHubToken), Cache: Never, Why: "reads and writes GitHub releases, branches and tags"}, // its token is checked on --repo before it generates
	"publish-check":           {Trust: trust.TreeKeyed(), Cache: Never, Why: "the gate before an upload: reads the tag and installs from PyPI"},       // holds no credential; its dist/ goes to PyPI
	"release-plan":            {Trust: trust.Rule{}, Cache: Never, Why: "reads tags, releases and CI runs on GitHub"},                                 // reads GitHub only; runs no container
	"next-release-check":      {Trust: trust.Rule{}, Cache: Never, Why: "reads the releases on GitHub, which a later release changes"},                // reads the tree and GitHub; runs no container
	"doctor":                  {Trust: trust.Rule{}, Cache: Never, Why: "reads the repository's settings on GitHub and its uploads on PyPI"},          // reads GitHub and PyPI only; runs no container
	"release":                 {Trust: trust.Publishing(trust.GitHubToken, trust.RegistryPassword, trust.IdentityToken), Signs: true, AllPlatforms: true, Cache: Never, Why: "publishes images and a GitHub release"},
	"release-push":            {Trust: trust.Publishing(trust.GitHubToken, trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "writes to the registry"},
	"release-push-platform":   {Trust: trust.Publishing(trust.GitHubToken, trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "writes to the registry"},
	"release-assemble":        {Trust: trust.Publishing(trust.GitHubToken, trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "reads and writes the registry"},
	"release-scan":            {Trust: trust.Rule{}, Cache: Never, Why: "reads the registry and today's vulnerability database"}, // takes no credential of any kind
	"release-publish":         {Trust: trust.Publishing(trust.GitHubToken, trust.RegistryPassword, trust.IdentityToken), Signs: true, AllPlatforms: true, Cache: Never, Why: "signs and tags in the registry"},
	"release-publish-release": {Trust: trust.Publishing(trust.GitHubToken), AllPlatforms: true, Cache: Never, Why: "writes a GitHub release"},
	"publish-dev":             {Trust: trust.Publishing(trust.RegistryPassword, trust.IdentityToken), Signs: true, AllPlatforms: true, Cache: Never, Why: "writes to the registry and Sigstore"},
	"push-by-digest":          {Trust: trust.Publishing(trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "writes to the registry"},
	"push-platform-by-digest": {Trust: trust.Publishing(trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "writes to the registry"},
	"assemble-index":          {Trust: trust.Publishing(trust.RegistryPassword), AllPlatforms: true, Cache: Never, Why: "reads and writes the registry"},
	"scan-digests":            {Trust: trust.Rule{}, Cache: Never, Why: "reads the registry and today's vulnerability database"}, // takes no credential of any kind
	"attest":                  {Trust: trust.Publishing(trust.RegistryPassword, trust.IdentityToken), Signs: true, Cache: Never, Why: "writes to the registry and Sigstore"},
	"sign":                    {Trust: trust.Publishing(trust.RegistryPassword, trust.IdentityToken), Signs: true, Cache: Never, Why: "writes to the registry and Sigstore"},
	"tag-images":              {Trust: trust.Publishing(trust.RegistryPassword), Cache: Never, Why: "moves tags in the registry"},
	"scan-published":          {Trust: trust.Rule{}, Cache: Never, Why: "reads the registry and today's vulnerability database"},            // scans what users pull, anonymously
	"verify":                  {Trust: trust.Rule{}, Signs: true, Cache: Never, Why: "reads signatures from the registry"},                  // reads only; a password only reads a private registry
	"with-sigstore":           {Trust: trust.Rule{}, Cache: Cached, Why: "returns the module with the signing settings; touches nothing"},   // settings only
	"with-platforms":          {Trust: trust.Rule{}, Cache: Cached, Why: "returns the module with the platforms to build; touches nothing"}, // settings only
}
