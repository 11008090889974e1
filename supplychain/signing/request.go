package signing

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// SigstoreAudience is the audience Fulcio accepts in an identity token.
const SigstoreAudience = "sigstore"

// TokenRequest is GitHub Actions' identity token endpoint: the job's
// ACTIONS_ID_TOKEN_REQUEST_URL and the bearer token ACTIONS_ID_TOKEN_REQUEST_TOKEN (present
// when the job has permissions id-token: write). Both are secrets: they stay in memory and
// are redacted from errors.
type TokenRequest struct {
	URL, BearerToken string
	// Client makes the request; nil means a client with a 30-second timeout.
	Client *http.Client
}

// Request asks the endpoint for a fresh identity token with the given audience and checks
// it like ParseToken. A step requests its token right before it signs, so that no build or
// earlier step can have used up the token's few minutes of life.
func (r TokenRequest) Request(ctx context.Context, audience string, now func() time.Time) (*Token, error) {
	if r.URL == "" || r.BearerToken == "" {
		return nil, fmt.Errorf("%w: the token request needs the URL and the bearer token (ACTIONS_ID_TOKEN_REQUEST_URL and _TOKEN; the job needs permissions id-token: write)", ErrToken)
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		// url's errors quote the URL, which is secret here.
		return nil, fmt.Errorf("%w: the token request URL is not an http(s) URL", ErrToken)
	}
	q := u.Query()
	q.Set("audience", audience)
	u.RawQuery = q.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, Redact(fmt.Errorf("%w: token request: %w", ErrToken, err), r.URL, r.BearerToken)
	}
	req.Header.Set("Authorization", "bearer "+r.BearerToken)
	req.Header.Set("Accept", "application/json")
	client := r.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, Redact(fmt.Errorf("%w: token request: %w", ErrToken, err), r.URL, u.String(), r.BearerToken)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenSize+1))
	if err != nil {
		return nil, Redact(fmt.Errorf("%w: reading the token response: %w", ErrToken, err), r.URL, u.String(), r.BearerToken)
	}
	if resp.StatusCode != http.StatusOK {
		// The body is not quoted: it may echo what was sent.
		return nil, fmt.Errorf("%w: the token endpoint answered %s (does the job have permissions id-token: write?)", ErrToken, resp.Status)
	}
	if len(body) > maxTokenSize {
		return nil, fmt.Errorf("%w: the token response is larger than %d bytes", ErrToken, maxTokenSize)
	}
	var out struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Value == "" {
		return nil, fmt.Errorf("%w: the token response has no value", ErrToken)
	}
	if now == nil {
		now = time.Now
	}
	return ParseToken([]byte(out.Value), now())
}
