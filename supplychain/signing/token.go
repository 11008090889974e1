package signing

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// Token is an OIDC identity token. Its raw bytes never leave this package
// except towards the certificate provider; String and GoString redact it so
// that a stray %v in a log line cannot print it.
type Token struct {
	raw     string
	Issuer  string
	Subject string
	Expiry  time.Time
	// WorkflowRef is GitHub's job_workflow_ref claim (o/r/.github/workflows/x.yml@ref),
	// empty for other issuers.
	WorkflowRef string
}

// GitHubActionsIssuer is the issuer of GitHub Actions' OIDC tokens.
const GitHubActionsIssuer = "https://token.actions.githubusercontent.com"

// Identity is the subject alternative name Fulcio certifies for this token: for GitHub
// Actions the URI of the workflow that runs the job, for a token with an email that
// email, otherwise the subject. A bundle already attached counts as ours only if its
// certificate names this identity and the token's issuer.
func (t *Token) Identity() string {
	if t.Issuer == GitHubActionsIssuer && t.WorkflowRef != "" {
		return "https://github.com/" + t.WorkflowRef
	}
	return t.Subject
}

// ErrToken is wrapped by every token error; messages never include token bytes.
var ErrToken = errors.New("OIDC token")

// maxTokenSize bounds what we read: real identity tokens are a few KiB.
const maxTokenSize = 64 << 10

// ReadToken reads an OIDC token from path, or from stdin when path is "-",
// and checks it with ParseToken.
func ReadToken(path string, stdin io.Reader, now time.Time) (*Token, error) {
	var r io.Reader
	switch path {
	case "":
		return nil, fmt.Errorf("%w: no token file given", ErrToken)
	case "-":
		if stdin == nil {
			return nil, fmt.Errorf("%w: no standard input", ErrToken)
		}
		r = stdin
	default:
		f, err := os.Open(path)
		if err != nil {
			// The path is not secret; the error names it only.
			return nil, fmt.Errorf("%w: reading token file: %w", ErrToken, err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxTokenSize+1))
	if err != nil {
		return nil, fmt.Errorf("%w: reading token: %w", ErrToken, err)
	}
	if len(b) > maxTokenSize {
		return nil, fmt.Errorf("%w: token is larger than %d bytes", ErrToken, maxTokenSize)
	}
	return ParseToken(b, now)
}

// ParseToken checks that raw is a JWT with an issuer, a subject and an expiry
// later than now. It does not check the JWT's signature: Fulcio does.
// Errors describe what is wrong without quoting any part of the token, which
// is why decoding errors are not wrapped.
func ParseToken(raw []byte, now time.Time) (*Token, error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" {
		return nil, fmt.Errorf("%w: token is empty", ErrToken)
	}
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return nil, fmt.Errorf("%w: token is not a JWT (want 3 dot-separated parts, got %d)", ErrToken, len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, fmt.Errorf("%w: token payload is not base64url", ErrToken)
	}
	var claims struct {
		Iss   string          `json:"iss"`
		Sub   string          `json:"sub"`
		Email string          `json:"email"`
		Exp   json.RawMessage `json:"exp"`
		// GitHub Actions: the workflow file and ref of the job, which Fulcio certifies.
		JobWorkflowRef string `json:"job_workflow_ref"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return nil, fmt.Errorf("%w: token payload is not a JSON object", ErrToken)
	}
	if claims.Iss == "" {
		return nil, fmt.Errorf("%w: token has no issuer (iss)", ErrToken)
	}
	if claims.Sub == "" && claims.Email == "" {
		return nil, fmt.Errorf("%w: token has no subject (sub)", ErrToken)
	}
	var exp float64
	if len(claims.Exp) == 0 || json.Unmarshal(claims.Exp, &exp) != nil || exp <= 0 {
		return nil, fmt.Errorf("%w: token has no numeric expiry (exp)", ErrToken)
	}
	expiry := time.Unix(int64(exp), 0).UTC()
	if !now.Before(expiry) {
		return nil, fmt.Errorf("%w: token expired at %s", ErrToken, expiry.Format(time.RFC3339))
	}
	return &Token{raw: s, Issuer: claims.Iss, Subject: firstNonEmpty(claims.Email, claims.Sub), Expiry: expiry, WorkflowRef: claims.JobWorkflowRef}, nil
}

// String redacts the token.
func (t *Token) String() string { return "[redacted OIDC token]" }

// GoString redacts the token.
func (t *Token) GoString() string { return t.String() }

// Redact replaces every occurrence of the given secrets in err's message.
// It is the last line of defence for errors built by libraries we do not
// control (an HTTP client echoing a response, say). The returned error keeps
// err in its chain for errors.Is but prints only the redacted text.
func Redact(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	// One pass over the message, longest secret first, so that a secret is
	// never matched inside another one or inside an earlier replacement.
	sorted := slices.SortedFunc(slices.Values(secrets), func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, s := range sorted {
		if s != "" {
			pairs = append(pairs, s, "[redacted]")
		}
	}
	if len(pairs) == 0 {
		return err
	}
	out := strings.NewReplacer(pairs...).Replace(msg)
	if out == msg {
		return err
	}
	msg = out
	return &redacted{msg: msg, err: err}
}

type redacted struct {
	msg string
	err error
}

func (r *redacted) Error() string { return r.msg }

// Is lets errors.Is see the sentinels of the original chain without
// exposing the original message through Unwrap.
func (r *redacted) Is(target error) bool { return errors.Is(r.err, target) }

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Redact removes the token from err's message (see Redact).
func (t *Token) Redact(err error) error {
	if t == nil {
		return err
	}
	return Redact(err, t.raw)
}
