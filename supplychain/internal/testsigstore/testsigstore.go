// Package testsigstore is an offline Sigstore for tests: a Fulcio-like
// certificate authority that issues certificates for the identity in an OIDC
// token, and Sigstore's own test transparency log (sigstore-go's
// pkg/testing/ca VirtualSigstore) behind sigstore-go's sign.CertificateProvider
// and sign.Transparency interfaces, plus the trusted root to verify against.
//
// The CA is built with pkg/testing/ca's root and intermediate generators
// because VirtualSigstore only issues certificates for keys it generates
// itself, while a signer must get a certificate for its own key. Like Fulcio,
// it logs a precertificate to a certificate transparency log (its own key,
// listed in the trusted root) and embeds the log's signed certificate
// timestamp in the certificate, so verifiers keep the production default of
// at least one SCT.
package testsigstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"sync"
	"time"

	ct "github.com/google/certificate-transparency-go"
	cttls "github.com/google/certificate-transparency-go/tls"
	ctx509 "github.com/google/certificate-transparency-go/x509"
	"github.com/google/certificate-transparency-go/x509util"
	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
)

// Fulcio's certificate extension for the OIDC issuer (v2, DER UTF8String)
// and its deprecated v1 form (raw string); verifiers read either.
var (
	oidIssuerV1 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 1}
	oidIssuerV2 = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 57264, 1, 8}
	// RFC 6962: the precertificate poison and the embedded SCT list.
	oidCTPoison = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11129, 2, 4, 3}
	oidSCTList  = asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 11129, 2, 4, 2}
)

// Sigstore is an offline Fulcio + Rekor pair.
type Sigstore struct {
	vs        *ca.VirtualSigstore
	root      *x509.Certificate
	inter     *x509.Certificate
	interKey  *ecdsa.PrivateKey
	ctKey     *ecdsa.PrivateKey
	createdAt time.Time

	mu sync.Mutex
	// FulcioErr and RekorErr, when set, make the next calls fail, to inject faults.
	FulcioErr, RekorErr error
	// Certificates and Entries count what was issued and logged.
	Certificates, Entries int
	serial                int64
}

// New returns a fresh Sigstore with its own keys.
func New() (*Sigstore, error) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		return nil, fmt.Errorf("virtual sigstore: %w", err)
	}
	rootCert, rootKey, err := ca.GenerateRootCa()
	if err != nil {
		return nil, fmt.Errorf("root CA: %w", err)
	}
	inter, interKey, err := ca.GenerateFulcioIntermediate(rootCert, rootKey)
	if err != nil {
		return nil, fmt.Errorf("intermediate CA: %w", err)
	}
	ctKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("CT log key: %w", err)
	}
	return &Sigstore{vs: vs, root: rootCert, inter: inter, interKey: interKey, ctKey: ctKey, createdAt: time.Now()}, nil
}

// Token returns an unsigned JWT with the given claims; Fulcio would check
// its signature, this CA only reads it, as the signer does.
func Token(claims map[string]any) string {
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	return enc(map[string]string{"alg": "none", "typ": "JWT"}) + "." + enc(claims) + "." + base64.RawURLEncoding.EncodeToString([]byte("sig"))
}

// GetCertificate implements sign.CertificateProvider like Fulcio: the SAN is
// the token's GitHub workflow (job_workflow_ref, as a URI), else its email,
// else its subject as a URI; the issuer extension is the token's iss, and a
// GitHub Actions token's run facts are its other extensions (github.go).
func (s *Sigstore) GetCertificate(_ context.Context, keypair sign.Keypair, opts *sign.CertificateProviderOptions) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.FulcioErr != nil {
		return nil, s.FulcioErr
	}
	if opts == nil || opts.IDToken == "" {
		return nil, errors.New("fulcio: no identity token")
	}
	parts := strings.Split(opts.IDToken, ".")
	if len(parts) != 3 {
		return nil, errors.New("fulcio: malformed token")
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return nil, errors.New("fulcio: malformed token payload")
	}
	var claims struct {
		Iss            string  `json:"iss"`
		Sub            string  `json:"sub"`
		Email          string  `json:"email"`
		Exp            float64 `json:"exp"`
		JobWorkflowRef string  `json:"job_workflow_ref"`
	}
	var all map[string]any
	if json.Unmarshal(payload, &claims) != nil || json.Unmarshal(payload, &all) != nil {
		return nil, errors.New("fulcio: malformed token claims")
	}
	if time.Unix(int64(claims.Exp), 0).Before(time.Now()) {
		return nil, errors.New("fulcio: token expired")
	}
	now := time.Now()
	s.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(s.serial + 100),
		Subject:      pkix.Name{},
		NotBefore:    now.Add(-time.Minute),
		NotAfter:     now.Add(10 * time.Minute),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageCodeSigning},
	}
	switch {
	case claims.JobWorkflowRef != "":
		u, err := url.Parse("https://github.com/" + claims.JobWorkflowRef)
		if err != nil {
			return nil, fmt.Errorf("fulcio: workflow ref: %w", err)
		}
		tmpl.URIs = []*url.URL{u}
	case claims.Email != "":
		tmpl.EmailAddresses = []string{claims.Email}
	default:
		u, err := url.Parse(claims.Sub)
		if err != nil {
			return nil, fmt.Errorf("fulcio: subject: %w", err)
		}
		tmpl.URIs = []*url.URL{u}
	}
	issuerV2, err := asn1.MarshalWithParams(claims.Iss, "utf8")
	if err != nil {
		return nil, fmt.Errorf("fulcio: issuer: %w", err)
	}
	// A GitHub Actions token gets the github-workflow provider's extensions (github.go),
	// in the order Fulcio renders them: the deprecated ones after the v1 issuer, the rest
	// after the v2 issuer.
	var deprecated, ci []pkix.Extension
	if claims.JobWorkflowRef != "" {
		if deprecated, ci, err = githubCertExtensions(all); err != nil {
			return nil, fmt.Errorf("fulcio: %w", err)
		}
	}
	tmpl.ExtraExtensions = append([]pkix.Extension{{Id: oidIssuerV1, Value: []byte(claims.Iss)}}, deprecated...)
	tmpl.ExtraExtensions = append(append(tmpl.ExtraExtensions, pkix.Extension{Id: oidIssuerV2, Value: issuerV2}), ci...)
	der, err := s.issueWithSCT(tmpl, keypair.GetPublicKey(), now)
	if err != nil {
		return nil, fmt.Errorf("fulcio: issuing: %w", err)
	}
	s.Certificates++
	return der, nil
}

// issueWithSCT issues tmpl as Fulcio does: first a precertificate (the
// certificate with the critical poison extension), which the CT log signs
// a timestamp for, then the certificate itself with that SCT embedded in
// place of the poison. Both share everything else, so a verifier that removes
// the SCT list from the certificate gets the precertificate's signed content.
func (s *Sigstore) issueWithSCT(tmpl *x509.Certificate, pub crypto.PublicKey, now time.Time) ([]byte, error) {
	exts := tmpl.ExtraExtensions
	pre := *tmpl
	pre.ExtraExtensions = append(append([]pkix.Extension(nil), exts...), pkix.Extension{Id: oidCTPoison, Critical: true, Value: asn1.NullBytes})
	preDER, err := x509.CreateCertificate(rand.Reader, &pre, s.inter, pub, s.interKey)
	if err != nil {
		return nil, fmt.Errorf("precertificate: %w", err)
	}
	sct, err := s.timestamp(preDER, now)
	if err != nil {
		return nil, err
	}
	list, err := x509util.MarshalSCTsIntoSCTList([]*ct.SignedCertificateTimestamp{sct})
	if err != nil {
		return nil, fmt.Errorf("SCT list: %w", err)
	}
	listTLS, err := cttls.Marshal(*list)
	if err != nil {
		return nil, fmt.Errorf("SCT list: %w", err)
	}
	listExt, err := asn1.Marshal(listTLS)
	if err != nil {
		return nil, fmt.Errorf("SCT list: %w", err)
	}
	final := *tmpl
	final.ExtraExtensions = append(append([]pkix.Extension(nil), exts...), pkix.Extension{Id: oidSCTList, Value: listExt})
	return x509.CreateCertificate(rand.Reader, &final, s.inter, pub, s.interKey)
}

// timestamp is the CT log's signed certificate timestamp (RFC 6962 v1) of a
// precertificate issued by the intermediate.
func (s *Sigstore) timestamp(preDER []byte, now time.Time) (*ct.SignedCertificateTimestamp, error) {
	pre, err := ctx509.ParseCertificate(preDER)
	if err != nil {
		return nil, fmt.Errorf("precertificate: %w", err)
	}
	issuer, err := ctx509.ParseCertificate(s.inter.Raw)
	if err != nil {
		return nil, fmt.Errorf("intermediate: %w", err)
	}
	ms := uint64(now.UnixMilli())
	leaf, err := ct.MerkleTreeLeafFromChain([]*ctx509.Certificate{pre, issuer}, ct.PrecertLogEntryType, ms)
	if err != nil {
		return nil, fmt.Errorf("CT leaf: %w", err)
	}
	spki, err := x509.MarshalPKIXPublicKey(s.ctKey.Public())
	if err != nil {
		return nil, fmt.Errorf("CT log key: %w", err)
	}
	sct := ct.SignedCertificateTimestamp{SCTVersion: ct.V1, LogID: ct.LogID{KeyID: sha256.Sum256(spki)}, Timestamp: ms}
	input, err := ct.SerializeSCTSignatureInput(sct, ct.LogEntry{Leaf: *leaf})
	if err != nil {
		return nil, fmt.Errorf("SCT input: %w", err)
	}
	digest := sha256.Sum256(input)
	sig, err := ecdsa.SignASN1(rand.Reader, s.ctKey, digest[:])
	if err != nil {
		return nil, fmt.Errorf("signing SCT: %w", err)
	}
	sct.Signature = ct.DigitallySigned{
		Algorithm: cttls.SignatureAndHashAlgorithm{Hash: cttls.SHA256, Signature: cttls.ECDSA},
		Signature: sig,
	}
	return &sct, nil
}

// ctLogs is the CT log of the trusted root: this Sigstore's own key, keyed
// like the Rekor logs by the hex SHA-256 of its public key.
func (s *Sigstore) ctLogs() (map[string]*root.TransparencyLog, error) {
	spki, err := x509.MarshalPKIXPublicKey(s.ctKey.Public())
	if err != nil {
		return nil, fmt.Errorf("CT log key: %w", err)
	}
	id := sha256.Sum256(spki)
	return map[string]*root.TransparencyLog{hex.EncodeToString(id[:]): {
		BaseURL:             "https://ctfe.localhost/test",
		ID:                  id[:],
		ValidityPeriodStart: s.createdAt.Add(-time.Hour),
		HashFunc:            crypto.SHA256,
		PublicKey:           s.ctKey.Public(),
		SignatureHashFunc:   crypto.SHA256,
	}}, nil
}

// GetTransparencyLogEntry implements sign.Transparency with the
// VirtualSigstore's Rekor: a dsse entry with an inclusion proof and a
// signed entry timestamp, as Rekor v1 returns them.
func (s *Sigstore) GetTransparencyLogEntry(_ context.Context, certPEM []byte, b *protobundle.Bundle) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.RekorErr != nil {
		return s.RekorErr
	}
	env := b.GetDsseEnvelope()
	if env == nil || len(env.Signatures) != 1 {
		return errors.New("rekor: only DSSE envelopes with one signature are logged here")
	}
	block, _ := pem.Decode(certPEM)
	if block == nil {
		return errors.New("rekor: no certificate")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return fmt.Errorf("rekor: certificate: %w", err)
	}
	sig := env.Signatures[0].Sig
	envelope := &ssldsse.Envelope{
		PayloadType: env.PayloadType,
		Payload:     base64.StdEncoding.EncodeToString(env.Payload),
		Signatures:  []ssldsse.Signature{{Sig: base64.StdEncoding.EncodeToString(sig), KeyID: env.Signatures[0].Keyid}},
	}
	integrated := time.Now().Unix()
	entry, err := s.vs.GenerateTlogEntry(cert, envelope, sig, integrated, true)
	if err != nil {
		return fmt.Errorf("rekor: %w", err)
	}
	tle := entry.TransparencyLogEntry()
	tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
	// The signed entry timestamp makes the integrated time trustworthy, which
	// verifiers need to check the short-lived certificate.
	set, err := s.vs.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: integrated,
		LogIndex:       tle.LogIndex,
		LogID:          hex.EncodeToString(tle.LogId.KeyId),
	})
	if err != nil {
		return fmt.Errorf("rekor: signing entry timestamp: %w", err)
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	b.VerificationMaterial.TlogEntries = append(b.VerificationMaterial.TlogEntries, tle)
	s.Entries++
	return nil
}

// TrustedRoot returns the trusted root of this Sigstore. Validity periods are
// open-ended so that a root kept on disk still verifies later, as the public
// one does for past signatures.
func (s *Sigstore) TrustedRoot() (*root.TrustedRoot, error) {
	// VirtualSigstore keys its logs by the hex log ID but stores that hex
	// text as the ID bytes, which only works in memory: the JSON form needs
	// the raw ID, from which readers derive the same hex key.
	open := func(in map[string]*root.TransparencyLog) (map[string]*root.TransparencyLog, error) {
		out := make(map[string]*root.TransparencyLog, len(in))
		for k, v := range in {
			c := *v
			id, err := hex.DecodeString(k)
			if err != nil {
				return nil, fmt.Errorf("log id %q: %w", k, err)
			}
			c.ID = id
			c.ValidityPeriodStart = s.createdAt.Add(-time.Hour)
			c.ValidityPeriodEnd = time.Time{}
			out[k] = &c
		}
		return out, nil
	}
	fulcio := &root.FulcioCertificateAuthority{
		Root:                s.root,
		Intermediates:       []*x509.Certificate{s.inter},
		ValidityPeriodStart: s.createdAt.Add(-time.Hour),
		URI:                 "https://fulcio.localhost",
	}
	ctlogs, err := s.ctLogs()
	if err != nil {
		return nil, err
	}
	rekor, err := open(s.vs.RekorLogs())
	if err != nil {
		return nil, err
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, []root.CertificateAuthority{fulcio}, ctlogs, nil, rekor)
	if err != nil {
		return nil, fmt.Errorf("trusted root: %w", err)
	}
	return tr, nil
}

// TrustedRootJSON returns the trusted root as the JSON file cosign and
// sigstore-go read (--trusted-root).
func (s *Sigstore) TrustedRootJSON() ([]byte, error) {
	tr, err := s.TrustedRoot()
	if err != nil {
		return nil, err
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("trusted root: %w", err)
	}
	return b, nil
}

// Counts returns how many certificates were issued and entries logged.
func (s *Sigstore) Counts() (certs, entries int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Certificates, s.Entries
}

// SetFaults sets (or clears, with nil) the errors Fulcio and Rekor return.
func (s *Sigstore) SetFaults(fulcio, rekor error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.FulcioErr, s.RekorErr = fulcio, rekor
}
