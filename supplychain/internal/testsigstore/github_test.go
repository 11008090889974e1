package testsigstore_test

import (
	"context"
	"crypto/x509"
	"encoding/asn1"
	"strings"
	"testing"
	"time"

	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"dagger/shipyard/supplychain/internal/testsigstore"
)

// issue returns the certificate the test Sigstore issues for a token of claims.
func issue(t *testing.T, claims map[string]any) *x509.Certificate {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	kp, err := sign.NewEphemeralKeypair(nil)
	if err != nil {
		t.Fatal(err)
	}
	der, err := ss.GetCertificate(context.Background(), kp, &sign.CertificateProviderOptions{IDToken: testsigstore.Token(claims)})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// A GitHub Actions token's certificate carries the extensions Fulcio's github-workflow
// provider fills from its claims, each read back as sigstore-go's verifier reads it.
func TestGitHubActionsCertificateExtensions(t *testing.T) {
	const sha = "0123456789abcdef0123456789abcdef01234567"
	claims := testsigstore.GitHubActionsClaims("elixir-cloud-aai/tesk-core", ".github/workflows/release.yml", "refs/tags/v0.11.0", sha)
	claims["iss"] = "https://token.actions.githubusercontent.com"
	claims["exp"] = time.Now().Add(10 * time.Minute).Unix()
	claims["run_id"] = "987654321"
	claims["run_attempt"] = "2"
	summary, err := certificate.SummarizeCertificate(issue(t, claims))
	if err != nil {
		t.Fatal(err)
	}
	const repo, signer = "https://github.com/elixir-cloud-aai/tesk-core", "https://github.com/elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0"
	tests := []struct {
		field, got, want string
	}{
		{"SAN", summary.SubjectAlternativeName, signer},
		{"Issuer (.8)", summary.Issuer, "https://token.actions.githubusercontent.com"},
		{"GithubWorkflowTrigger (.2)", summary.GithubWorkflowTrigger, "push"},
		{"GithubWorkflowSHA (.3)", summary.GithubWorkflowSHA, sha},
		{"GithubWorkflowName (.4)", summary.GithubWorkflowName, "Release"},
		{"GithubWorkflowRepository (.5)", summary.GithubWorkflowRepository, "elixir-cloud-aai/tesk-core"},
		{"GithubWorkflowRef (.6)", summary.GithubWorkflowRef, "refs/tags/v0.11.0"},
		{"BuildSignerURI (.9)", summary.BuildSignerURI, signer},
		{"BuildSignerDigest (.10)", summary.BuildSignerDigest, sha},
		{"RunnerEnvironment (.11)", summary.RunnerEnvironment, "github-hosted"},
		{"SourceRepositoryURI (.12)", summary.SourceRepositoryURI, repo},
		{"SourceRepositoryDigest (.13)", summary.SourceRepositoryDigest, sha},
		{"SourceRepositoryRef (.14)", summary.SourceRepositoryRef, "refs/tags/v0.11.0"},
		{"SourceRepositoryIdentifier (.15)", summary.SourceRepositoryIdentifier, claims["repository_id"].(string)},
		{"SourceRepositoryOwnerURI (.16)", summary.SourceRepositoryOwnerURI, "https://github.com/elixir-cloud-aai"},
		{"SourceRepositoryOwnerIdentifier (.17)", summary.SourceRepositoryOwnerIdentifier, claims["repository_owner_id"].(string)},
		{"BuildConfigURI (.18)", summary.BuildConfigURI, signer},
		{"BuildConfigDigest (.19)", summary.BuildConfigDigest, sha},
		{"BuildTrigger (.20)", summary.BuildTrigger, "push"},
		{"RunInvocationURI (.21)", summary.RunInvocationURI, repo + "/actions/runs/987654321/attempts/2"},
		{"SourceRepositoryVisibilityAtSigning (.22)", summary.SourceRepositoryVisibilityAtSigning, "public"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %q, want %q", tt.field, tt.got, tt.want)
		}
	}
	if claims["repository_id"] == claims["repository_owner_id"] || claims["repository_id"] == "" {
		t.Errorf("ids %v, %v", claims["repository_id"], claims["repository_owner_id"])
	}
}

// Fulcio's ciprovider renders numeric claims without a fraction, adds the deployment
// environment only when the token names one, and the token's sub as .24; the test
// Sigstore leaves out an extension whose claim a small test token lacks.
func TestGitHubExtensionsFromClaims(t *testing.T) {
	oid := func(n int) asn1.ObjectIdentifier { return asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, n} }
	// value returns the extension's string (DER UTF8String, or raw for the deprecated ones).
	value := func(cert *x509.Certificate, n int) (string, bool) {
		for _, e := range cert.Extensions {
			if e.Id.Equal(oid(n)) {
				if n >= 2 && n <= 6 {
					return string(e.Value), true
				}
				var s string
				if _, err := asn1.UnmarshalWithParams(e.Value, &s, "utf8"); err != nil {
					t.Fatalf("extension .%d: %v", n, err)
				}
				return s, true
			}
		}
		return "", false
	}
	exp := time.Now().Add(10 * time.Minute).Unix()
	full := func(change func(map[string]any)) map[string]any {
		c := testsigstore.GitHubActionsClaims("o/r", ".github/workflows/ci.yml", "refs/heads/main", strings.Repeat("c", 40))
		c["iss"], c["exp"] = "https://token.actions.githubusercontent.com", exp
		change(c)
		return c
	}
	tests := []struct {
		name   string
		claims map[string]any
		ext    int
		want   string // "" for absent
	}{
		{"numeric run id", full(func(c map[string]any) { c["run_id"] = float64(42) }), 21, "https://github.com/o/r/actions/runs/42/attempts/1"},
		{"no environment", full(func(map[string]any) {}), 23, ""},
		{"a deployment environment", full(func(c map[string]any) { c["environment"] = "release" }), 23, "release"},
		{"the token subject", full(func(map[string]any) {}), 24, "repo:o/r:ref:refs/heads/main"},
		{"a reusable workflow signs", full(func(c map[string]any) {
			c["job_workflow_ref"] = "org/shared/.github/workflows/build.yml@refs/tags/v2"
		}), 9, "https://github.com/org/shared/.github/workflows/build.yml@refs/tags/v2"},
		{"while the caller's workflow is the build config", full(func(c map[string]any) {
			c["job_workflow_ref"] = "org/shared/.github/workflows/build.yml@refs/tags/v2"
		}), 18, "https://github.com/o/r/.github/workflows/ci.yml@refs/heads/main"},
		{"a small token without the owner", map[string]any{
			"iss": "https://token.actions.githubusercontent.com", "sub": "repo:o/r:ref:refs/heads/main",
			"job_workflow_ref": "o/r/.github/workflows/ci.yml@refs/heads/main", "exp": exp,
		}, 16, ""},
		{"a token that is not GitHub's gets none", map[string]any{
			"iss": "https://issuer.example", "email": "dev@example.org", "repository_owner": "o", "exp": exp,
		}, 16, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := value(issue(t, tt.claims), tt.ext)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("extension .%d = %q (present %v), want %q", tt.ext, got, ok, tt.want)
			}
		})
	}
}
