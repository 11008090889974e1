package testsigstore

import (
	"crypto/x509/pkix"
	"encoding/asn1"
	"fmt"
	"strconv"
	"strings"
)

// Fulcio's certificate for a GitHub Actions identity token carries the run's facts as
// extensions, each a template over the token's claims: Fulcio's config/identity/config.yaml
// (ci-issuer-metadata, github-workflow) names them, pkg/identity/ciprovider fills them in,
// and pkg/certificate/extensions.go (Extensions.Render) writes them. Verifiers read them:
// `gh attestation verify` holds --owner and --repo to the source repository's owner and
// URI (.16, .12) and the issuer to .8; cosign's --certificate-github-workflow-* flags read
// the deprecated .2 to .6.

// githubBaseURL is the url default of Fulcio's github-workflow templates.
const githubBaseURL = "https://github.com"

// githubExtension is one extension of the github-workflow provider: its OID, the template
// Fulcio fills (claim names in braces; a bare name is the claim's value), and whether it
// is one of the deprecated ones Fulcio writes as the raw string rather than DER UTF8String.
type githubExtension struct {
	oid        asn1.ObjectIdentifier
	template   string
	deprecated bool
}

// githubExtensions are the github-workflow provider's extensions in Render's order; the
// issuer (.1, .8) and the token subject (.24) come from the token itself.
var githubExtensions = []githubExtension{
	{fulcioOID(2), "event_name", true},
	{fulcioOID(3), "sha", true},
	{fulcioOID(4), "workflow", true},
	{fulcioOID(5), "repository", true},
	{fulcioOID(6), "ref", true},
	{fulcioOID(9), githubBaseURL + "/{job_workflow_ref}", false},
	{fulcioOID(10), "job_workflow_sha", false},
	{fulcioOID(11), "runner_environment", false},
	{fulcioOID(12), githubBaseURL + "/{repository}", false},
	{fulcioOID(13), "sha", false},
	{fulcioOID(14), "ref", false},
	{fulcioOID(15), "repository_id", false},
	{fulcioOID(16), githubBaseURL + "/{repository_owner}", false},
	{fulcioOID(17), "repository_owner_id", false},
	{fulcioOID(18), githubBaseURL + "/{workflow_ref}", false},
	{fulcioOID(19), "workflow_sha", false},
	{fulcioOID(20), "event_name", false},
	{fulcioOID(21), githubBaseURL + "/{repository}/actions/runs/{run_id}/attempts/{run_attempt}", false},
	{fulcioOID(22), "repository_visibility", false},
	{fulcioOID(23), "environment", false},
}

// oidTokenSubject is Fulcio's extension for the token's sub claim.
var oidTokenSubject = fulcioOID(24)

func fulcioOID(n int) asn1.ObjectIdentifier {
	return asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, n}
}

// GitHubActionsClaims are the claims of a GitHub Actions identity token for a run of the
// workflow file (".github/workflows/release.yml") of repository ("owner/name") at ref
// (refs/tags/v1), commit sha, as GitHub issues them to a job on a GitHub-hosted runner of
// a public repository pushed to: the workflow is both the job's and the run's (no reusable
// workflow). Ids are made up but fixed per name, as GitHub's are. The caller adds iss, aud
// and exp, and may change any claim.
func GitHubActionsClaims(repository, workflow, ref, sha string) map[string]any {
	owner, _, _ := strings.Cut(repository, "/")
	workflowRef := repository + "/" + workflow + "@" + ref
	return map[string]any{
		"sub":                   "repo:" + repository + ":ref:" + ref,
		"ref":                   ref,
		"ref_type":              map[bool]string{true: "tag", false: "branch"}[strings.HasPrefix(ref, "refs/tags/")],
		"sha":                   sha,
		"repository":            repository,
		"repository_owner":      owner,
		"repository_id":         fakeID(repository),
		"repository_owner_id":   fakeID(owner),
		"repository_visibility": "public",
		"run_id":                "1234567890",
		"run_number":            "7",
		"run_attempt":           "1",
		"actor":                 "octocat",
		"actor_id":              "583231",
		"workflow":              "Release",
		"workflow_ref":          workflowRef,
		"workflow_sha":          sha,
		"job_workflow_ref":      workflowRef,
		"job_workflow_sha":      sha,
		"event_name":            "push",
		"runner_environment":    "github-hosted",
	}
}

// fakeID is a stable numeric id for a name.
func fakeID(name string) string {
	h := uint32(2166136261)
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return strconv.FormatUint(uint64(h%900000000+100000000), 10)
}

// githubCertExtensions renders the github-workflow extensions of a token's claims as
// Fulcio would. Fulcio refuses a token that lacks a claim a template names; the test
// Sigstore leaves that extension out instead, so the small tokens of tests that only check
// the certificate's identity still get a certificate (a verifier that needs a missing one,
// as gh does, then refuses it).
//
// It returns the deprecated ones apart, since Fulcio writes the issuer's v2 extension
// between them and the rest.
func githubCertExtensions(claims map[string]any) (deprecated, exts []pkix.Extension, err error) {
	values := claimStrings(claims)
	for _, e := range githubExtensions {
		v, ok := fill(e.template, values)
		if !ok || v == "" {
			continue
		}
		if e.deprecated {
			deprecated = append(deprecated, pkix.Extension{Id: e.oid, Value: []byte(v)})
			continue
		}
		der, err := asn1.MarshalWithParams(v, "utf8")
		if err != nil {
			return nil, nil, fmt.Errorf("extension %v: %w", e.oid, err)
		}
		exts = append(exts, pkix.Extension{Id: e.oid, Value: der})
	}
	if sub := values["sub"]; sub != "" {
		der, err := asn1.MarshalWithParams(sub, "utf8")
		if err != nil {
			return nil, nil, fmt.Errorf("token subject: %w", err)
		}
		exts = append(exts, pkix.Extension{Id: oidTokenSubject, Value: der})
	}
	return deprecated, exts, nil
}

// fill fills a template: a bare claim name is that claim's value; otherwise each {name}
// is replaced. It reports false when a claim it names is absent.
func fill(template string, values map[string]string) (string, bool) {
	if !strings.Contains(template, "{") {
		v, ok := values[template]
		return v, ok
	}
	var b strings.Builder
	rest := template
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			return b.String(), true
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return "", false
		}
		v, ok := values[rest[open+1:open+end]]
		if !ok {
			return "", false
		}
		b.WriteString(rest[:open])
		b.WriteString(v)
		rest = rest[open+end+1:]
	}
}

// claimStrings is each claim as the string Fulcio's templates see (ciprovider's
// mapValuesToString): whole numbers without a fraction, anything else as Go prints it.
func claimStrings(claims map[string]any) map[string]string {
	out := make(map[string]string, len(claims))
	for k, v := range claims {
		switch n := v.(type) {
		case float64:
			out[k] = strconv.FormatFloat(n, 'f', -1, 64)
		case string:
			out[k] = n
		default:
			out[k] = fmt.Sprintf("%v", v)
		}
	}
	return out
}
