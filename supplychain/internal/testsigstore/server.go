package testsigstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
)

// Fault makes one service answer every request with an HTTP error, as a
// failing public instance would, until it is cleared.
type Fault struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// Faults are the faults of both services; nil means the service works.
type Faults struct {
	Fulcio *Fault `json:"fulcio,omitempty"`
	Rekor  *Fault `json:"rekor,omitempty"`
}

// Counts is what the services issued and logged so far.
type Counts struct {
	Certificates int `json:"certificates"`
	Entries      int `json:"entries"`
}

// maxRequest bounds request bodies: a signing request is a key, a token and
// one DSSE envelope.
const maxRequest = 4 << 20

// Handler serves this Sigstore over HTTP with the public services' APIs that
// sigstore-go's own clients call (sign.NewFulcio, sign.NewRekor), so a
// program signs against it exactly as against Fulcio and Rekor, only with
// other URLs:
//
//	POST /api/v2/signingCert   Fulcio v2: a certificate for the token's identity
//	POST /api/v1/log/entries   Rekor v1: a dsse entry with inclusion proof and SET
//	POST /test/faults          set or clear Faults (JSON), for fault tests
//	GET  /test/counts          Counts (JSON)
//
// It lets a test in another module, which cannot import sigstore-go, drive
// the real supplychain command against an offline Sigstore.
func (s *Sigstore) Handler() http.Handler {
	h := &handler{ss: s}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v2/signingCert", h.signingCert)
	mux.HandleFunc("POST /api/v1/log/entries", h.logEntries)
	mux.HandleFunc("POST /test/faults", h.setFaults)
	mux.HandleFunc("GET /test/counts", h.counts)
	return mux
}

type handler struct {
	ss *Sigstore

	mu     sync.Mutex
	faults Faults
}

func (h *handler) fault(service string) *Fault {
	h.mu.Lock()
	defer h.mu.Unlock()
	if service == "fulcio" {
		return h.faults.Fulcio
	}
	return h.faults.Rekor
}

// apiError writes the error body both services use ({"code", "message"}).
func apiError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"code": status, "message": msg})
}

func readJSON(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxRequest+1))
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	if len(b) > maxRequest {
		return errors.New("request too large")
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("request is not the expected JSON: %w", err)
	}
	return nil
}

func (h *handler) setFaults(w http.ResponseWriter, r *http.Request) {
	var f Faults
	if err := readJSON(r, &f); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	for _, x := range []*Fault{f.Fulcio, f.Rekor} {
		if x != nil && (x.Status < 400 || x.Status > 599) {
			apiError(w, http.StatusBadRequest, fmt.Sprintf("fault status %d is not an HTTP error", x.Status))
			return
		}
	}
	h.mu.Lock()
	h.faults = f
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (h *handler) counts(w http.ResponseWriter, _ *http.Request) {
	certs, entries := h.ss.Counts()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(Counts{Certificates: certs, Entries: entries})
}

// fulcioRequest is Fulcio v2's CreateSigningCertificate request; the token
// comes in the Authorization header (sigstore-go) or in credentials.
type fulcioRequest struct {
	Credentials struct {
		OIDCIdentityToken string `json:"oidcIdentityToken"`
	} `json:"credentials"`
	PublicKeyRequest struct {
		PublicKey struct {
			Algorithm string `json:"algorithm"`
			Content   string `json:"content"`
		} `json:"publicKey"`
		ProofOfPossession string `json:"proofOfPossession"`
	} `json:"publicKeyRequest"`
}

func (h *handler) signingCert(w http.ResponseWriter, r *http.Request) {
	if f := h.fault("fulcio"); f != nil {
		apiError(w, f.Status, f.Message)
		return
	}
	var req fulcioRequest
	if err := readJSON(r, &req); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	token := req.Credentials.OIDCIdentityToken
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		token = bearer
	}
	if token == "" {
		apiError(w, http.StatusUnauthorized, "no identity token")
		return
	}
	block, _ := pem.Decode([]byte(req.PublicKeyRequest.PublicKey.Content))
	if block == nil {
		apiError(w, http.StatusBadRequest, "public key is not PEM")
		return
	}
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		apiError(w, http.StatusBadRequest, "public key: "+err.Error())
		return
	}
	if err := proofOfPossession(pub, token, req.PublicKeyRequest.ProofOfPossession); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	der, err := h.ss.GetCertificate(r.Context(), publicKeyOnly{pub}, &sign.CertificateProviderOptions{IDToken: token})
	if err != nil {
		// Like Fulcio, an unusable token is the caller's fault.
		apiError(w, http.StatusUnauthorized, err.Error())
		return
	}
	chain := []string{
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.ss.inter.Raw})),
		string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.ss.root.Raw})),
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"signedCertificateDetachedSct": map[string]any{"chain": map[string]any{"certificates": chain}},
	})
}

// proofOfPossession checks, as Fulcio does, that the requester holds the
// private key: a signature over the token's subject (its email, else sub).
func proofOfPossession(pub crypto.PublicKey, token, sigB64 string) error {
	key, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		return fmt.Errorf("only ECDSA keys are certified here, not %T", pub)
	}
	sig, err := base64.StdEncoding.DecodeString(sigB64)
	if err != nil {
		return errors.New("proof of possession is not base64")
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return errors.New("identity token is not a JWT")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return errors.New("identity token payload is not base64url")
	}
	var claims struct {
		Email string `json:"email"`
		Sub   string `json:"sub"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		return errors.New("identity token claims are not JSON")
	}
	for _, subject := range []string{claims.Email, claims.Sub} {
		if subject == "" {
			continue
		}
		digest := sha256.Sum256([]byte(subject))
		if ecdsa.VerifyASN1(key, digest[:], sig) {
			return nil
		}
	}
	return errors.New("proof of possession does not verify")
}

// publicKeyOnly is the requester's key as GetCertificate needs it: only the
// public half is ever read there.
type publicKeyOnly struct{ pub crypto.PublicKey }

var errPublicOnly = errors.New("only the public key is known")

func (k publicKeyOnly) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}
func (k publicKeyOnly) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}
func (k publicKeyOnly) GetHint() []byte                { return nil }
func (k publicKeyOnly) GetKeyAlgorithm() string        { return "ECDSA" }
func (k publicKeyOnly) GetPublicKey() crypto.PublicKey { return k.pub }
func (k publicKeyOnly) GetPublicKeyPem() (string, error) {
	der, err := x509.MarshalPKIXPublicKey(k.pub)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}
func (k publicKeyOnly) SignData(context.Context, []byte) ([]byte, []byte, error) {
	return nil, nil, errPublicOnly
}

// rekorProposedEntry is the part of a Rekor v1 dsse v0.0.1 proposed entry
// this log reads.
type rekorProposedEntry struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
	Spec       struct {
		ProposedContent struct {
			Envelope  string   `json:"envelope"`
			Verifiers [][]byte `json:"verifiers"` // base64 in JSON: PEM certificates
		} `json:"proposedContent"`
	} `json:"spec"`
}

func (h *handler) logEntries(w http.ResponseWriter, r *http.Request) {
	if f := h.fault("rekor"); f != nil {
		apiError(w, f.Status, f.Message)
		return
	}
	var pe rekorProposedEntry
	if err := readJSON(r, &pe); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if pe.Kind != "dsse" {
		apiError(w, http.StatusBadRequest, fmt.Sprintf("only dsse entries are logged here, not %q", pe.Kind))
		return
	}
	content := pe.Spec.ProposedContent
	if len(content.Verifiers) != 1 {
		apiError(w, http.StatusBadRequest, "want exactly one verifier (the signing certificate)")
		return
	}
	b, err := dsseBundle(content.Envelope)
	if err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err := h.ss.GetTransparencyLogEntry(r.Context(), content.Verifiers[0], b); err != nil {
		apiError(w, http.StatusBadRequest, err.Error())
		return
	}
	tle := b.VerificationMaterial.TlogEntries[len(b.VerificationMaterial.TlogEntries)-1]
	leaf := sha256.Sum256(append([]byte{0}, tle.CanonicalizedBody...))
	uuid := hex.EncodeToString(leaf[:])
	// Rekor names the new entry by its UUID in ETag and Location, and
	// sigstore-go's client picks the entry out of the body by that ETag.
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("ETag", uuid)
	w.Header().Set("Location", "/api/v1/log/entries/"+uuid)
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{uuid: rekorEntry(tle)})
}

// dsseBundle reads the DSSE envelope of a proposed entry into a bundle for the virtual log.
func dsseBundle(envelope string) (*protobundle.Bundle, error) {
	var env ssldsse.Envelope
	if err := json.Unmarshal([]byte(envelope), &env); err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	if len(env.Signatures) != 1 {
		return nil, errors.New("want a DSSE envelope with one signature")
	}
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, errors.New("envelope payload is not base64")
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return nil, errors.New("envelope signature is not base64")
	}
	return &protobundle.Bundle{
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload:     payload,
			PayloadType: env.PayloadType,
			Signatures:  []*protodsse.Signature{{Sig: sig, Keyid: env.Signatures[0].KeyID}},
		}},
		VerificationMaterial: &protobundle.VerificationMaterial{},
	}, nil
}

// rekorEntry is a log entry as Rekor's v1 API returns it.
func rekorEntry(tle *protorekor.TransparencyLogEntry) map[string]any {
	proof := tle.InclusionProof
	hashes := make([]string, 0, len(proof.Hashes))
	for _, x := range proof.Hashes {
		hashes = append(hashes, hex.EncodeToString(x))
	}
	return map[string]any{
		"body":           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		"integratedTime": tle.IntegratedTime,
		"logID":          hex.EncodeToString(tle.LogId.KeyId),
		"logIndex":       tle.LogIndex,
		"verification": map[string]any{
			"inclusionProof": map[string]any{
				"checkpoint": proof.Checkpoint.Envelope,
				"hashes":     hashes,
				"logIndex":   proof.LogIndex,
				"rootHash":   hex.EncodeToString(proof.RootHash),
				"treeSize":   proof.TreeSize,
			},
			"signedEntryTimestamp": tle.InclusionPromise.SignedEntryTimestamp,
		},
	}
}
