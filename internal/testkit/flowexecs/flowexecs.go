// Package flowexecs lists the commands Shipyard's flows run in containers, for the tests
// that run a flow on the strict engine double: a test expects these (they succeed unless it
// says otherwise), and any other command fails it. One list per flow, shared by the flow's
// package tests and the module's.
package flowexecs

import "slices"

// Each list is returned as a copy, so no test can change another's expectations.

// CI are the commands of tesk-core's CI jobs.
func CI() []string { return slices.Clone(ci) }

var ci = []string{
	// lint
	"git init -q 2>/dev/null || (apt-get update -qq && apt-get install -y -qq git >/dev/null && git init -q); git add -A",
	"uv run pre-commit run --all-files --show-diff-on-failure --color never",
	"uv lock --check",
	"uvx --from cffconvert==2.0.0 cffconvert --validate --infile CITATION.cff",
	// test, on each Python version
	"uv sync --frozen --extra dev",
	"uv run coverage run -m pytest",
	"uv run coverage report -m",
	"uv run coverage xml -o /out/coverage.xml",
	// docs
	"uv sync --frozen --extra docs --no-install-project",
	"uv run mkdocs build --strict --site-dir /site",
	// scan, of each image
	scan[0], scan[1],
	// e2e on k3s
	"sh -c for i in $(seq 1 180); do",
	"kubectl wait --for=condition=Ready nodes --all --timeout=180s",
	"kubectl apply -f tests/e2e/manifests/",
	"kubectl wait --for=condition=Ready pod/tesk-e2e-http --timeout=120s",
	"uv run pytest tests/e2e",
}

// Scan are the commands of one Trivy scan.
func Scan() []string { return slices.Clone(scan) }

var scan = []string{
	"trivy image --cache-backend memory --scanners vuln --format json --output /out/",
	"trivy convert --format sarif --output /out/",
}

// SigningTool builds the supplychain command with the registry command, for the functions
// that sign; the commands' own execs run the real commands.
const SigningTool = "go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /out/ ./cmd/supplychain ./cmd/registry"

// RegistryTool builds the registry command alone, for the functions that do not sign.
const RegistryTool = "go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /out/ ./cmd/registry"

// GitHubTool builds the module's GitHub command, for the functions that read GitHub through
// it (tag-images and publish-dev read dev's commit order).
const GitHubTool = "go build -trimpath -gcflags=all=-dwarf=false -ldflags=-s -w -o /out/ ./cmd/github"

// Publish are the commands publishing and releasing run around the signing, registry and
// GitHub tools.
func Publish() []string { return append([]string{SigningTool, RegistryTool, GitHubTool}, scan...) }

// Model are the commands of the Cloudcoil model flows.
func Model() []string { return slices.Clone(model) }

var model = []string{
	"make gen-repo-",
	"uv lock --upgrade-package cloudcoil",
	"uv lock",
	"uv sync --frozen",
	"uv sync --locked",
	"rm -rf cloudcoil/models",
	"uv run --frozen cloudcoil-model-codegen",
	"uv run --frozen --with-editable /cloudcoil-checkout cloudcoil-model-codegen",
	"make fix-lint",
	"make lint",
	"make test",
	"make check-artifacts",
	"uv build --out-dir /dist",
	"base64 -w 0 /dist/",
	"base64 -w 0 /repo/dist/",
	// update-repos: the generated repository archived with its modes
	"mkdir -p /out/tree && tar -C /repo",
}

// CleanSARIF is what `trivy convert --format sarif` writes for a scan without findings:
// one run of the tool Trivy, no results. A test that answers a scan's JSON report answers
// its SARIF log with this, as Trivy writes both.
const CleanSARIF = `{"version": "2.1.0", "$schema": "https://json.schemastore.org/sarif-2.1.0-rtm.5.json", "runs": [{"tool": {"driver": {"name": "Trivy", "informationUri": "https://github.com/aquasecurity/trivy", "rules": []}}, "results": [], "columnKind": "utf16CodeUnits"}]}`
