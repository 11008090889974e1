package githubsim

import (
	"crypto/sha1"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"time"
)

func tagRoutes() []route {
	return []route{
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/git/tags/{sha}", handle: getTag},
	}
}

// Verification is the signature check GitHub reports on a tag object.
type Verification struct {
	Verified bool
	// Reason is one of GitHub's values: valid, unsigned, unknown_key, expired_key,
	// not_signing_key, gpgverify_error, gpgverify_unavailable, unknown_signature_type,
	// no_user, unverified_email, bad_email, malformed_signature, invalid.
	Reason string
	// Signature is the armored signature (empty for an unsigned tag, which serves null);
	// a placeholder is used when a signed tag leaves it empty.
	Signature string
	// Payload is the signed text; by default the tag object without its signature.
	Payload    string
	VerifiedAt time.Time
}

// ValidSignature is a signature GitHub verified.
func ValidSignature() Verification { return Verification{Verified: true, Reason: "valid"} }

// Unverified is a tag GitHub could not verify for reason ("unsigned" means no signature).
func Unverified(reason string) Verification { return Verification{Reason: reason} }

type tagObject struct {
	sha, name, message string
	target             string // sha of the tagged commit (or tag object)
	date               time.Time
	v                  Verification
}

// LightweightTag creates refs/tags/<name> pointing straight at a commit.
func (r *Repo) LightweightTag(name, commitSHA string) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if _, ok := r.commits[commitSHA]; !ok {
		r.fatalf("LightweightTag %s: unknown commit %s", name, commitSHA)
		return
	}
	r.tags[name] = commitSHA
}

// AnnotatedTag creates a tag object for a commit with the given verification, points
// refs/tags/<name> at it, and returns the tag object's SHA.
func (r *Repo) AnnotatedTag(name, commitSHA string, v Verification) string {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if _, ok := r.commits[commitSHA]; !ok {
		r.fatalf("AnnotatedTag %s: unknown commit %s", name, commitSHA)
		return ""
	}
	t := &tagObject{name: name, message: "Release " + name + "\n", target: commitSHA, date: r.s.stamp(), v: v}
	payload := fmt.Sprintf("object %s\ntype commit\ntag %s\ntagger Release Admin <admin@example.org> %d +0000\n\n%s",
		commitSHA, name, t.date.Unix(), t.message)
	if v.Reason != "unsigned" {
		if t.v.Signature == "" {
			t.v.Signature = "-----BEGIN PGP SIGNATURE-----\n\n" +
				base64.StdEncoding.EncodeToString([]byte("sig:"+name)) + "\n-----END PGP SIGNATURE-----\n"
		}
		if t.v.Payload == "" {
			t.v.Payload = payload
		}
		if t.v.VerifiedAt.IsZero() && t.v.Verified {
			t.v.VerifiedAt = t.date
		}
	}
	sum := sha1.Sum([]byte(fmt.Sprintf("tag %d\x00%s%s", len(payload), payload, t.v.Signature)))
	t.sha = hex.EncodeToString(sum[:])
	r.tagObjects[t.sha] = t
	r.tags[name] = t.sha
	return t.sha
}

// getTag answers GET /repos/{owner}/{repo}/git/tags/{sha} for annotated tag objects.
func getTag(c *call) reply {
	t, found := c.repo.tagObjects[c.r.PathValue("sha")]
	if !found {
		return notFound("/git/tags#get-a-tag")
	}
	verification := map[string]any{
		"verified":    t.v.Verified,
		"reason":      t.v.Reason,
		"signature":   nullable(t.v.Signature),
		"payload":     nullable(t.v.Payload),
		"verified_at": nil,
	}
	if !t.v.VerifiedAt.IsZero() {
		verification["verified_at"] = timestamp(t.v.VerifiedAt)
	}
	return okJSON(map[string]any{
		"node_id": nodeID("TAG", t.sha),
		"tag":     t.name,
		"sha":     t.sha,
		"url":     c.repoURL("/git/tags/%s", t.sha),
		"message": t.message,
		"tagger": map[string]any{
			"name": "Release Admin", "email": "admin@example.org", "date": timestamp(t.date),
		},
		"object":       c.objectOf(t.target),
		"verification": verification,
	})
}

// nullable serves an empty string as JSON null, as GitHub does for absent values.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nodeID is a stable GraphQL-style node id.
func nodeID(kind, key string) string {
	return base64.RawStdEncoding.EncodeToString([]byte(kind + ":" + key))
}
