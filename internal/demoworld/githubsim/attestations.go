package githubsim

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// GitHub's artifact attestation store: a Sigstore bundle uploaded for a repository
// (actions/attest-build-provenance does it after signing) is listed by the SHA-256 digest
// of any subject of the in-toto statement it signs, for the repository and for its owner
// (organisation or user), which is where `gh attestation verify --owner` reads. ("Artifact
// attestations" in GitHub's REST API reference: repos, orgs and users.)

func attestationRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/attestations", handle: createAttestation},
		{method: http.MethodGet, pattern: "/repos/{owner}/{repo}/attestations/{subject_digest}", handle: listRepoAttestations},
		{method: http.MethodGet, pattern: "/orgs/{org}/attestations/{subject_digest}", handle: listOwnerAttestations("org", "/orgs/attestations#list-attestations")},
		{method: http.MethodGet, pattern: "/users/{username}/attestations/{subject_digest}", handle: listOwnerAttestations("username", "/users/attestations#list-attestations")},
	}
}

// attestation is one uploaded bundle, kept as it was sent.
type attestation struct {
	id            int64
	bundle        json.RawMessage
	subjects      []string // "sha256:<hex>"
	predicateType string
}

// Attestations returns the bundles uploaded for the repository, in upload order.
func (r *Repo) Attestations() []json.RawMessage {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	out := make([]json.RawMessage, 0, len(r.attestations))
	for _, a := range r.attestations {
		out = append(out, slices.Clone(a.bundle))
	}
	return out
}

// AddAttestation seeds an uploaded bundle, as a workflow's upload would store it, and
// returns its id; a bundle the store would refuse fails the test.
func (r *Repo) AddAttestation(bundle string) int64 {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	subjects, predicateType, err := readAttestation([]byte(bundle))
	var compact bytes.Buffer
	if err == nil {
		err = json.Compact(&compact, []byte(bundle))
	}
	if err != nil {
		r.fatalf("attestation: %v", err)
		return 0
	}
	a := &attestation{id: r.s.newID(), bundle: compact.Bytes(), subjects: subjects, predicateType: predicateType}
	r.attestations = append(r.attestations, a)
	return a.id
}

// errNotAttestation is a bundle the store cannot index: GitHub answers 422.
var errNotAttestation = errors.New("not a Sigstore bundle of an in-toto statement with sha256 subjects")

// readAttestation reads what the store indexes a bundle by: the sha256 digests of the
// subjects of the in-toto statement in its DSSE envelope, and the statement's predicate
// type. The bundle comes from the client, so anything else is refused, never trusted.
func readAttestation(bundle []byte) (subjects []string, predicateType string, err error) {
	var b struct {
		DSSEEnvelope *struct {
			Payload     string `json:"payload"`
			PayloadType string `json:"payloadType"`
		} `json:"dsseEnvelope"`
	}
	if err := json.Unmarshal(bundle, &b); err != nil || b.DSSEEnvelope == nil {
		return nil, "", errNotAttestation
	}
	if b.DSSEEnvelope.PayloadType != "application/vnd.in-toto+json" {
		return nil, "", errNotAttestation
	}
	payload, err := base64.StdEncoding.DecodeString(b.DSSEEnvelope.Payload)
	if err != nil {
		return nil, "", errNotAttestation
	}
	var st struct {
		Subject []struct {
			Digest map[string]string `json:"digest"`
		} `json:"subject"`
		PredicateType string `json:"predicateType"`
	}
	if err := json.Unmarshal(payload, &st); err != nil {
		return nil, "", errNotAttestation
	}
	for _, s := range st.Subject {
		h := strings.ToLower(s.Digest["sha256"])
		if len(h) != 64 {
			continue
		}
		if _, err := hex.DecodeString(h); err != nil {
			continue
		}
		if d := "sha256:" + h; !slices.Contains(subjects, d) {
			subjects = append(subjects, d)
		}
	}
	if len(subjects) == 0 || st.PredicateType == "" {
		return nil, "", errNotAttestation
	}
	return subjects, st.PredicateType, nil
}

// mayAttest reports whether the call's token may upload attestations to the call's
// repository. A classic token needs its user's write role and the repo (or public_repo)
// scope. Any other token needs attestations: write, which GitHub grants apart from
// contents: write (a workflow that attests holds id-token: write and attestations: write,
// and may read contents only); an App installation's token has no user role, so a Role is
// only held to when one is set (a fine-grained personal token's user).
func (c *call) mayAttest() bool {
	t := c.token
	if t.Scopes != nil {
		return rolePermissions(t.role())["push"] && (t.scoped("repo") || t.scoped("public_repo"))
	}
	if c.lacks("attestations") || c.lacks("attestations=write") {
		return false
	}
	return t.Role == "" || rolePermissions(t.Role)["push"]
}

// createAttestation answers POST /repos/{owner}/{repo}/attestations: 201 {"id"} for a
// Sigstore bundle of an in-toto statement, 422 for anything else. GitHub stores what it is
// sent: the same bundle sent twice is stored twice, so keeping uploads from repeating is
// the client's part.
func createAttestation(c *call) reply {
	const docs = "/repos/attestations#create-an-attestation"
	if !c.mayAttest() {
		return c.writeRefused(docs, "attestations=write")
	}
	var in struct {
		Bundle json.RawMessage `json:"bundle"`
	}
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if len(in.Bundle) == 0 || bytes.Equal(in.Bundle, []byte("null")) {
		return validationFailed(docs, fieldError{Resource: "Attestation", Code: "missing_field", Field: "bundle"})
	}
	subjects, predicateType, err := readAttestation(in.Bundle)
	if err != nil {
		return validationFailed(docs, fieldError{Resource: "Attestation", Code: "invalid", Field: "bundle"})
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, in.Bundle); err != nil {
		return validationFailed(docs, fieldError{Resource: "Attestation", Code: "invalid", Field: "bundle"})
	}
	a := &attestation{id: c.s.newID(), bundle: compact.Bytes(), subjects: subjects, predicateType: predicateType}
	c.repo.attestations = append(c.repo.attestations, a)
	return reply{status: http.StatusCreated, body: map[string]int64{"id": a.id}}
}

// mayReadAttestations reports whether the token may list attestations: every simulated
// repository is public, so only a fine-grained or App token that lacks the attestations
// permission altogether is refused, as GitHub requires attestations: read of those.
func (c *call) mayReadAttestations() bool {
	return c.token.Scopes != nil || !c.lacks("attestations")
}

// listRepoAttestations answers GET /repos/{owner}/{repo}/attestations/{subject_digest}.
func listRepoAttestations(c *call) reply {
	const docs = "/repos/attestations#list-attestations"
	if !c.mayReadAttestations() {
		return c.readRefused(docs, "attestations=read")
	}
	return c.attestationPage([]*Repo{c.repo})
}

// listOwnerAttestations answers GET /orgs/{org}/attestations/{subject_digest} and
// /users/{username}/attestations/{subject_digest}: the attestations of every repository
// the owner holds that the token can see.
func listOwnerAttestations(param, docs string) func(c *call) reply {
	return func(c *call) reply {
		if !c.mayReadAttestations() {
			return c.readRefused(docs, "attestations=read")
		}
		owner := c.r.PathValue(param)
		var repos []*Repo
		for _, r := range c.s.repos {
			if strings.EqualFold(r.owner, owner) && c.tokenSees(r) {
				repos = append(repos, r)
			}
		}
		if len(repos) == 0 {
			return notFound(docs)
		}
		slices.SortFunc(repos, func(a, b *Repo) int { return int(a.id - b.id) })
		return c.attestationPage(repos)
	}
}

// tokenSees reports whether the call's token can see a repository (Token.Repos).
func (c *call) tokenSees(r *Repo) bool {
	repos := c.token.Repos
	return len(repos) == 0 || slices.ContainsFunc(repos, func(n string) bool { return strings.EqualFold(n, r.FullName()) })
}

// readRefused is GitHub's 403 to a fine-grained or App token without the permission a
// read needs, naming it in X-Accepted-GitHub-Permissions.
func (c *call) readRefused(docs, accepted string) reply {
	rep := noPushAccess(docs)
	rep.header = http.Header{acceptedPermissionsHeader: {accepted}}
	return rep
}

// predicateTypes are the short names the list endpoints' predicate_type accepts; any
// other value is matched as the predicate type itself.
var predicateTypes = map[string][]string{
	"provenance": {"https://slsa.dev/provenance/v1"},
	"sbom":       {"https://spdx.dev/Document/v2.3", "https://cyclonedx.org/bom"},
	"release":    {"https://in-toto.io/attestation/release/v0.1"},
}

// attestationPage lists the attestations of repos whose subjects include the path's
// digest (404 when none does), oldest first, filtered by predicate_type, a page of per_page (30, at most 100)
// after the cursor of after (or before that of before), with GitHub's cursor Link header.
// Each entry carries the bundle itself and no bundle_url: GitHub's bundle_url points at
// its blob storage (snappy-compressed), which the simulator does not serve, and a client
// such as gh falls back to the bundle when bundle_url is empty.
func (c *call) attestationPage(repos []*Repo) reply {
	digest := strings.ToLower(c.r.PathValue("subject_digest"))
	q := c.r.URL.Query()
	want := q.Get("predicate_type")
	type hit struct {
		repo *Repo
		a    *attestation
	}
	var hits []hit
	for _, r := range repos {
		for _, a := range r.attestations {
			if !slices.Contains(a.subjects, digest) {
				continue
			}
			if want != "" && a.predicateType != want && !slices.Contains(predicateTypes[want], a.predicateType) {
				continue
			}
			hits = append(hits, hit{r, a})
		}
	}
	if len(hits) == 0 {
		// GitHub answers 404, not an empty list, when nothing is listed for the digest (gh
		// users see "HTTP 404: Not Found (…/orgs/<owner>/attestations/sha256:…)", e.g.
		// sharkdp/fd issue 1936).
		return notFound(docsOf(c.r.URL.Path))
	}
	per, err := strconv.Atoi(q.Get("per_page"))
	if err != nil || per < 1 {
		per = 30
	}
	per = min(per, 100)
	lo, hi := 0, len(hits)
	if cur, ok := cursor(q.Get("after")); ok {
		lo = min(cur+1, len(hits))
		hi = min(lo+per, len(hits))
	} else if cur, ok := cursor(q.Get("before")); ok {
		hi = min(max(cur, 0), len(hits))
		lo = max(hi-per, 0)
	} else {
		hi = min(per, len(hits))
	}
	list := make([]map[string]any, 0, hi-lo)
	for _, h := range hits[lo:hi] {
		list = append(list, map[string]any{
			"bundle":        h.a.bundle,
			"repository_id": h.repo.id,
			"initiator":     "user",
		})
	}
	rep := okJSON(map[string]any{"attestations": list})
	var links []string
	if hi < len(hits) {
		links = append(links, "<"+c.cursorURL("after", hi-1)+`>; rel="next"`)
	}
	if lo > 0 {
		links = append(links, "<"+c.cursorURL("before", lo)+`>; rel="prev"`)
	}
	if len(links) > 0 {
		rep.header = http.Header{"Link": {strings.Join(links, ", ")}}
	}
	return rep
}

// docsOf is the documentation path of a list of attestations by its request path.
func docsOf(path string) string {
	switch {
	case strings.HasPrefix(path, "/orgs/"):
		return "/orgs/attestations#list-attestations"
	case strings.HasPrefix(path, "/users/"):
		return "/users/attestations#list-attestations"
	}
	return "/repos/attestations#list-attestations"
}

// cursor reads a cursor the Link header gave: the position of an entry, opaque to clients.
func cursor(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(string(raw), "pos:"))
	if err != nil || n < 0 || !strings.HasPrefix(string(raw), "pos:") {
		return 0, false
	}
	return n, true
}

// cursorURL is the request's URL with after or before set to the cursor of position pos,
// the other cursor dropped and the other parameters kept in their order.
func (c *call) cursorURL(param string, pos int) string {
	var kept []string
	for part := range strings.SplitSeq(c.r.URL.RawQuery, "&") {
		if part == "" || strings.HasPrefix(part, "after=") || strings.HasPrefix(part, "before=") {
			continue
		}
		kept = append(kept, part)
	}
	kept = append(kept, param+"="+base64.RawURLEncoding.EncodeToString([]byte("pos:"+strconv.Itoa(pos))))
	return c.s.URL + c.r.URL.EscapedPath() + "?" + strings.Join(kept, "&")
}
