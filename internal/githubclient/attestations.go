package githubclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// maxAttestationPages bounds a listing of one subject's attestations (100 a page): gh
// attestation verify reads at most 1,000 either.
const maxAttestationPages = 10

// CreateAttestation stores a Sigstore bundle in the repository's attestation store and
// returns its id. go-github (v84) has no call for it, so the request is made through its
// client, with its transport, retries and error types all the same. A refusal (403, or 404
// for a classic token without the repo scope) wraps ErrNotAllowed.
func (c *Client) CreateAttestation(ctx context.Context, owner, repo string, bundle []byte) (int64, error) {
	what := fmt.Sprintf("github: upload an attestation to %s/%s", owner, repo)
	if !json.Valid(bundle) {
		return 0, fmt.Errorf("%s: the bundle is not JSON: %w", what, github.ErrRefused)
	}
	req, err := c.gh.NewRequest(http.MethodPost, fmt.Sprintf("repos/%s/%s/attestations", seg(owner), seg(repo)),
		struct {
			Bundle json.RawMessage `json:"bundle"`
		}{bundle})
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	var out struct {
		ID int64 `json:"id"`
	}
	resp, err := c.gh.Do(ctx, req, &out)
	if err = apiErr(resp, err); err != nil {
		if code := github.StatusOf(err); code == http.StatusForbidden || code == http.StatusNotFound {
			err = fmt.Errorf("%w: %w", github.ErrNotAllowed, err)
		}
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return out.ID, nil
}

// Attestations lists what the repository's attestation store holds for a subject digest
// ("sha256:<hex>"), oldest first, every page; none when GitHub answers 404. GitHub pages
// this list by cursor (after=), which go-github's ListAttestations cannot pass on, so each
// page is requested here and decoded into go-github's AttestationsResponse.
func (c *Client) Attestations(ctx context.Context, owner, repo, subjectDigest string) ([]github.Attestation, error) {
	var out []github.Attestation
	after := ""
	for range maxAttestationPages {
		q := url.Values{"per_page": {"100"}}
		if after != "" {
			q.Set("after", after)
		}
		u := fmt.Sprintf("repos/%s/%s/attestations/%s?%s", seg(owner), seg(repo), seg(subjectDigest), q.Encode())
		req, err := c.gh.NewRequest(http.MethodGet, u, nil)
		if err != nil {
			return nil, fmt.Errorf("github: attestations of %s in %s/%s: %w", subjectDigest, owner, repo, err)
		}
		var page gh.AttestationsResponse
		resp, err := c.gh.Do(ctx, req, &page)
		err = apiErr(resp, err)
		if isNotFound(err) && after == "" {
			// GitHub's answer when nothing is listed for the digest (or the repository is
			// hidden from the token, which an upload then says).
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("github: attestations of %s in %s/%s: %w", subjectDigest, owner, repo, err)
		}
		for _, a := range page.Attestations {
			if a != nil {
				out = append(out, github.Attestation{Bundle: a.Bundle, RepositoryID: a.RepositoryID})
			}
		}
		if resp.After == "" || resp.After == after {
			return out, nil
		}
		after = resp.After
	}
	return nil, fmt.Errorf("github: attestations of %s in %s/%s: more than %d pages", subjectDigest, owner, repo, maxAttestationPages)
}
