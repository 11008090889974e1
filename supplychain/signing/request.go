package signing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"dagger/shipyard/supplychain/registry"
)

// SigstoreAudience is the audience Fulcio accepts in an identity token.
const SigstoreAudience = "sigstore"

// TokenRequest is GitHub Actions' identity token endpoint: the job's
// ACTIONS_ID_TOKEN_REQUEST_URL and the bearer token ACTIONS_ID_TOKEN_REQUEST_TOKEN (present
// when the job has permissions id-token: write). Both are secrets: they stay in memory and
// are redacted from errors.
type TokenRequest struct {
	URL, BearerToken string
	// PlainHTTP are the hosts (host names or IPs, without port) plain HTTP may go to, the
	// command's --plain-http, by the rule every request of the command follows
	// (registry.PlainHTTPAllowed): whoever reads the bearer token mints identity tokens
	// with it, so any other http:// URL, or a redirect to one, is refused before the
	// request is sent.
	PlainHTTP []string
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
	if err := r.checkPlainHTTP(u, "the token request URL (ACTIONS_ID_TOKEN_REQUEST_URL)"); err != nil {
		return nil, err
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
	client := &http.Client{Timeout: 30 * time.Second}
	if r.Client != nil {
		c := *r.Client
		client = &c
	}
	// A redirect is held to the same rule: Go's client keeps the Authorization header on a
	// redirect to the same host, whatever its scheme and port.
	client.CheckRedirect = func(next *http.Request, via []*http.Request) error {
		if err := r.checkPlainHTTP(next.URL, "the token endpoint's redirect"); err != nil {
			return err
		}
		if r.Client != nil && r.Client.CheckRedirect != nil {
			return r.Client.CheckRedirect(next, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	resp, err := client.Do(req)
	var refused *url.Error
	if errors.Is(err, ErrPlainHTTP) && errors.As(err, &refused) {
		// A refused redirect: the error says so without the URL the client quotes.
		return nil, refused.Err
	}
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

// checkPlainHTTP refuses u, what the error calls what, when it is not https and PlainHTTP
// does not name its host. The error names the host alone: the URL's path and query are
// secret.
func (r TokenRequest) checkPlainHTTP(u *url.URL, what string) error {
	if u.Scheme == "https" || registry.PlainHTTPAllowed(u.Hostname(), r.PlainHTTP) {
		return nil
	}
	return fmt.Errorf("%w: %s is %s to %s, and the bearer token would go with it: %w; give the endpoint's https URL (GitHub Actions' is https)",
		ErrToken, what, u.Scheme, u.Hostname(), ErrPlainHTTP)
}
