//go:build realtools

package githubclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

// The tests of this file run the real third-party programs .ci/realengine-tools builds
// (the build tag realtools; .ci/run runs them once the tools are built): here the GitHub
// CLI, named by SHIPYARD_GH.
const ghEnv = "SHIPYARD_GH"

// The evidence Shipyard signed for an image in tesk-core's release run (the supplychain
// module's TestAttestationFixture makes and checks it), uploaded with UploadAttestation to
// the GitHub simulator's attestation store, is what `gh attestation verify` reads from
// GitHub's API: it passes for tesk-core's owner, repository and release workflow; it fails
// for another owner that holds copies of the bundles, another signer workflow and a file
// that is not the subject.
func TestGHAttestationVerifyReadsTheStore(t *testing.T) {
	gh := os.Getenv(ghEnv)
	if gh == "" {
		t.Fatalf("%s is unset: .ci/realengine-tools builds the GitHub CLI", ghEnv)
	}
	ctx := context.Background()
	const fixture = "testdata/tesk-core-attestation"
	manifest := filepath.Join(fixture, "manifest.json")
	trustedRoot := filepath.Join(fixture, "trusted_root.jsonl")
	raw, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	bundles, err := os.ReadFile(filepath.Join(fixture, "bundles.jsonl"))
	if err != nil {
		t.Fatal(err)
	}

	sim := githubsim.New(t)
	sim.AddToken(token, githubsim.Token{})
	sim.AddRepo("elixir-cloud-aai", "tesk-core")
	// Someone who copied tesk-core's bundles into a repository of their own.
	sim.AddRepo("someone-else", "tesk-core")
	c, err := NewClient(sim.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	for _, owner := range []string{"elixir-cloud-aai", "someone-else"} {
		for run := range 2 {
			for line := range bytes.Lines(bundles) {
				uploaded, err := github.UploadAttestation(ctx, c, owner, "tesk-core", "tesk-core-filer", digest, bytes.TrimSpace(line))
				if err != nil || uploaded != (run == 0) {
					t.Fatalf("run %d to %s: uploaded %v, %v", run+1, owner, uploaded, err)
				}
			}
		}
	}

	const signer = "github.com/elixir-cloud-aai/tesk-core/.github/workflows/release.yml"
	tampered := filepath.Join(t.TempDir(), "tampered.json")
	if err := os.WriteFile(tampered, append(raw, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		artifact string
		args     []string
		pass     bool
		says     string // in a failure's output: why
		reads    string // the simulator's endpoint gh read
	}{
		{"the owner and the release workflow", manifest, []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, true, "", "/orgs/elixir-cloud-aai/attestations/" + digest},
		{"the repository", manifest, []string{"--repo", "elixir-cloud-aai/tesk-core"}, true, "", "/repos/elixir-cloud-aai/tesk-core/attestations/" + digest},
		{"the SBOM", manifest, []string{"--repo", "elixir-cloud-aai/tesk-core", "--predicate-type", "https://cyclonedx.org/bom"}, true, "", "/repos/elixir-cloud-aai/tesk-core/attestations/" + digest},
		{"another owner holding copies", manifest, []string{"--owner", "someone-else", "--signer-workflow", signer}, false,
			"expected SourceRepositoryOwnerURI to be https://github.com/someone-else", "/orgs/someone-else/attestations/" + digest},
		{"another signer workflow", manifest, []string{"--owner", "elixir-cloud-aai", "--signer-workflow", "github.com/elixir-cloud-aai/tesk-core/.github/workflows/ci.yml"}, false,
			`verifying with issuer "sigstore.dev"`, "/orgs/elixir-cloud-aai/attestations/" + digest},
		{"a file that is not the subject", tampered, []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, false,
			"HTTP 404", "/orgs/elixir-cloud-aai/attestations/sha256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim.ResetLog()
			args := append([]string{"attestation", "verify", tt.artifact, "--custom-trusted-root", trustedRoot, "--format", "json"}, tt.args...)
			stdout, stderr, err := runGHAgainst(t, gh, sim, args...)
			if (err == nil) != tt.pass {
				t.Fatalf("gh %s: %v, want it to pass %v:\n%s%s", strings.Join(args, " "), err, tt.pass, stdout, stderr)
			}
			if !tt.pass {
				if _, exit := err.(*exec.ExitError); !exit {
					t.Fatalf("gh did not run to a verdict: %v\n%s", err, stderr)
				}
				if !strings.Contains(stderr, tt.says) {
					t.Errorf("gh's refusal does not say %q:\n%s", tt.says, stderr)
				}
			} else if !strings.Contains(stdout, `"verificationResult"`) {
				t.Errorf("gh passed but printed no verified attestation:\n%s", stdout)
			}
			var read bool
			for _, r := range sim.Requests() {
				read = read || (r.Method == "GET" && strings.HasPrefix(r.Path, tt.reads))
			}
			if !read {
				t.Errorf("gh did not read %s from the simulator: %+v", tt.reads, sim.Requests())
			}
		})
	}
}

// runGHAgainst runs gh with the simulator as github.localhost, the host gh's own
// development setup uses (http://api.github.localhost/), reached through the simulator
// as gh's HTTP proxy: Go's server answers a proxy's absolute-form request like any other.
// The token is in gh's configuration file, never in its arguments or environment, and the
// environment is built, not inherited, so no token of the machine's reaches gh.
func runGHAgainst(t *testing.T, gh string, sim *githubsim.Server, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	home := t.TempDir()
	config := filepath.Join(home, "gh")
	if err := os.MkdirAll(config, 0o700); err != nil {
		t.Fatal(err)
	}
	hosts := "github.localhost:\n    oauth_token: " + token + "\n    user: octocat\n    git_protocol: https\n"
	if err := os.WriteFile(filepath.Join(config, "hosts.yml"), []byte(hosts), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, gh, args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GH_CONFIG_DIR=" + config, "GH_HOST=github.localhost",
		"HTTP_PROXY=" + sim.URL, "NO_PROXY=", "GH_NO_UPDATE_NOTIFIER=1", "GH_PROMPT_DISABLED=1", "NO_COLOR=1",
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}
