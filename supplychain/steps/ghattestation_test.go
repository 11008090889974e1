//go:build realtools

package steps_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The tests of this file run the real third-party programs .ci/realengine-tools builds
// (the build tag realtools; .ci/run runs them once the tools are built): here the GitHub
// CLI, named by SHIPYARD_GH.
const ghEnv = "SHIPYARD_GH"

// The bundles Shipyard signs for an image, as a release run of tesk-core's workflow signs
// them, pass `gh attestation verify`, offline against the test Sigstore's trusted root,
// for tesk-core's owner, repository and release workflow, and fail for another owner,
// another signer workflow and an artifact that is not the statement's subject. Each
// failing case differs from a passing one in one argument.
func TestGHAttestationVerifyAcceptsShipyardsBundles(t *testing.T) {
	gh := os.Getenv(ghEnv)
	if gh == "" {
		t.Fatalf("%s is unset: .ci/realengine-tools builds the GitHub CLI", ghEnv)
	}
	ev := signInReleaseRun(t)
	signed := ev.image
	other, _ := ev.env.reg.PushRandom(t, "elixir-cloud-aai/tesk-core-filer")
	dir := t.TempDir()
	bundles := write(t, dir, "bundles.jsonl", ev.bundles)
	trustedRoot := write(t, dir, "trusted_root.jsonl", ev.trustedRoot)
	// A local file is an artifact too: its digest is its bytes' SHA-256, which for the
	// image's manifest is the image's digest.
	manifestFile := write(t, dir, "manifest.json", ev.manifest)
	tampered := write(t, dir, "tampered.json", append(bytes.Clone(ev.manifest), '\n'))
	const repository, workflow, ref = teskRepository, releaseWorkflow, releaseRef

	signer := repository + "/" + workflow
	const sigstoreRefused = `verifying with issuer "sigstore.dev"`
	tests := []struct {
		name     string
		artifact string
		args     []string
		pass     bool
		says     string // in a failure's output: why
	}{
		{"the owner and the release workflow", "oci://" + signed.String(), []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, true, ""},
		{"the repository", "oci://" + signed.String(), []string{"--repo", repository}, true, ""},
		{"the SBOM", "oci://" + signed.String(), []string{"--repo", repository, "--signer-workflow", signer, "--predicate-type", "https://cyclonedx.org/bom"}, true, ""},
		{"the manifest as a file", manifestFile, []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, true, ""},
		{"the source ref", "oci://" + signed.String(), []string{"--owner", "elixir-cloud-aai", "--source-ref", ref}, true, ""},

		// Where the certificate's identity (SAN) or the subject does not match, gh says only
		// that Sigstore's verification failed; where an extension does not, which one.
		{"another owner", "oci://" + signed.String(), []string{"--owner", "someone-else"}, false, sigstoreRefused},
		{"another owner, the signer workflow right", "oci://" + signed.String(), []string{"--owner", "someone-else", "--signer-workflow", signer}, false,
			"expected SourceRepositoryOwnerURI to be https://github.com/someone-else"},
		{"another repository of the owner", "oci://" + signed.String(), []string{"--repo", "elixir-cloud-aai/tesk-api", "--signer-workflow", signer}, false,
			"expected SourceRepositoryURI to be https://github.com/elixir-cloud-aai/tesk-api"},
		{"another signer workflow", "oci://" + signed.String(), []string{"--owner", "elixir-cloud-aai", "--signer-workflow", repository + "/.github/workflows/ci.yml"}, false, sigstoreRefused},
		{"another source ref", "oci://" + signed.String(), []string{"--owner", "elixir-cloud-aai", "--source-ref", "refs/heads/main"}, false,
			"expected SourceRepositoryRef to be refs/heads/main"},
		{"another image with the bundles", "oci://" + other.String(), []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, false, sigstoreRefused},
		{"a file that is not the subject", tampered, []string{"--owner", "elixir-cloud-aai", "--signer-workflow", signer}, false, sigstoreRefused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// gh prints its verdict only to a terminal; --format json prints what it verified.
			args := append([]string{"attestation", "verify", tt.artifact, "--bundle", bundles, "--custom-trusted-root", trustedRoot, "--format", "json"}, tt.args...)
			stdout, stderr, err := runGH(t, gh, args...)
			if (err == nil) != tt.pass {
				t.Fatalf("gh %s: %v, want it to pass %v:\n%s%s", strings.Join(args, " "), err, tt.pass, stdout, stderr)
			}
			if !tt.pass {
				if _, exit := err.(*exec.ExitError); !exit {
					t.Fatalf("gh did not run to a verdict: %v\n%s", err, stderr)
				}
				if tt.says != "" && !strings.Contains(stderr, tt.says) {
					t.Errorf("gh's refusal does not say %q:\n%s", tt.says, stderr)
				}
				return
			}
			checkVerified(t, stdout, signed.DigestStr(), "https://github.com/"+repository)
		})
	}
}

// checkVerified reads what gh verified (--format json) and checks that it is a statement
// about digest signed in a run of repo.
func checkVerified(t *testing.T, stdout, digest, repo string) {
	t.Helper()
	var verified []struct {
		VerificationResult struct {
			Statement struct {
				PredicateType string `json:"predicateType"`
				Subject       []struct {
					Digest map[string]string `json:"digest"`
				} `json:"subject"`
			} `json:"statement"`
			Signature struct {
				Certificate struct {
					SourceRepositoryURI string `json:"sourceRepositoryURI"`
				} `json:"certificate"`
			} `json:"signature"`
		} `json:"verificationResult"`
	}
	if err := json.Unmarshal([]byte(stdout), &verified); err != nil || len(verified) == 0 {
		t.Fatalf("gh passed but printed no verified attestation (%v):\n%s", err, stdout)
	}
	for _, v := range verified {
		r := v.VerificationResult
		if r.Signature.Certificate.SourceRepositoryURI != repo || len(r.Statement.Subject) == 0 ||
			"sha256:"+r.Statement.Subject[0].Digest["sha256"] != digest {
			t.Errorf("verified %+v, want a statement about %s from %s", r, digest, repo)
		}
	}
}

// runGH runs gh offline-minded: a home and configuration of its own, no token of the
// machine's (the environment is built, not inherited), and no update check.
func runGH(t *testing.T, gh string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, gh, args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GH_CONFIG_DIR=" + filepath.Join(home, "gh"),
		"DOCKER_CONFIG=" + filepath.Join(home, "docker"), "GH_NO_UPDATE_NOTIFIER=1", "GH_PROMPT_DISABLED=1", "NO_COLOR=1",
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}
