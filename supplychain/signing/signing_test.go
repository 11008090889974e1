package signing_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/sign"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/signing"
)

func TestCosignSignStatement(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	tests := []struct {
		digest string
		ok     bool
	}{
		{"sha256:" + hex, true},
		{hex, false},
		{"sha512:" + hex, false},
		{"sha256:abc", false},
	}
	for _, tt := range tests {
		t.Run(tt.digest, func(t *testing.T) {
			b, err := signing.CosignSignStatement(tt.digest)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if !tt.ok {
				return
			}
			// The fields cosign's signDigestBundle writes, and nothing else.
			var st map[string]any
			if err := json.Unmarshal(b, &st); err != nil {
				t.Fatal(err)
			}
			want := `{"_type":"https://in-toto.io/Statement/v1","predicateType":"https://sigstore.dev/cosign/sign/v1","subject":[{"digest":{"sha256":"` + hex + `"}}]}`
			got, _ := json.Marshal(st)
			if string(got) != want {
				t.Errorf("statement = %s\nwant        %s", got, want)
			}
		})
	}
}

func TestSignStatement(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	raw := testsigstore.Token(map[string]any{"iss": "https://issuer.example", "email": "dev@example.org", "exp": time.Now().Add(time.Hour).Unix()})
	tok, err := signing.ParseToken([]byte(raw), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	statement, err := signing.CosignSignStatement("sha256:" + strings.Repeat("0", 64))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ss.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		fulcio      error
		rekor       error
		signer      func() *signing.Signer
		statement   []byte
		tok         *signing.Token
		errContains string
	}{
		{name: "signs", statement: statement, tok: tok},
		{name: "no token", statement: statement, errContains: "missing"},
		{name: "not JSON", statement: []byte("nope"), tok: tok, errContains: "not JSON"},
		{name: "fulcio error echoing the token", fulcio: errors.New("fulcio rejected " + raw), statement: statement, tok: tok, errContains: "fulcio rejected [redacted]"},
		{name: "rekor error", rekor: errors.New("rekor down"), statement: statement, tok: tok, errContains: "rekor down"},
		{name: "no transparency log", signer: func() *signing.Signer { return &signing.Signer{CertificateProvider: ss} }, statement: statement, tok: tok, errContains: "transparency log"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss.SetFaults(tt.fulcio, tt.rekor)
			defer ss.SetFaults(nil, nil)
			s := &signing.Signer{CertificateProvider: ss, TransparencyLogs: []sign.Transparency{ss}}
			if tt.signer != nil {
				s = tt.signer()
			}
			b, err := s.SignStatement(context.Background(), tt.statement, tt.tok)
			if tt.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err = %v, want %q", err, tt.errContains)
				}
				if strings.Contains(err.Error(), raw) {
					t.Errorf("error holds the token")
				}
				return
			}
			if err != nil {
				t.Fatalf("SignStatement: %v", err)
			}
			var bundle sgbundle.Bundle
			if err := bundle.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			if bundle.GetMediaType() != signing.BundleMediaType {
				t.Errorf("media type = %s", bundle.GetMediaType())
			}
			env := bundle.GetDsseEnvelope()
			if env == nil || env.PayloadType != signing.InTotoPayloadType || string(env.Payload) != string(statement) {
				t.Fatalf("envelope = %v", env)
			}
			v, err := sgverify.NewVerifier(tr, sgverify.WithTransparencyLog(1), sgverify.WithIntegratedTimestamps(1))
			if err != nil {
				t.Fatal(err)
			}
			id, err := sgverify.NewShortCertificateIdentity("https://issuer.example", "", "dev@example.org", "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Verify(&bundle, sgverify.NewPolicy(sgverify.WithoutArtifactUnsafe(), sgverify.WithCertificateIdentity(id))); err != nil {
				t.Errorf("bundle does not verify: %v", err)
			}
		})
	}
}

func TestNewSigner(t *testing.T) {
	tests := []struct {
		fulcio, rekor string
		plainHTTP     []string
		ok            bool
	}{
		{signing.PublicGoodFulcioURL, signing.PublicGoodRekorURL, nil, true},
		{"", signing.PublicGoodRekorURL, nil, false},
		{"fulcio.example", signing.PublicGoodRekorURL, nil, false},
		{"http://10.20.30.40:5555", signing.PublicGoodRekorURL, nil, false},
		{signing.PublicGoodFulcioURL, "http://rekor.local", nil, false},
		{"http://10.20.30.40:5555", signing.PublicGoodRekorURL, []string{"10.20.30.41"}, false},
		{"http://127.0.0.1:5555", "http://127.0.0.1:5556", []string{"127.0.0.1"}, true},
		{"http:///path", signing.PublicGoodRekorURL, []string{""}, false},
	}
	for _, tt := range tests {
		s, err := signing.NewSigner(tt.fulcio, tt.rekor, tt.plainHTTP...)
		if (err == nil) != tt.ok || (tt.ok && (s.CertificateProvider == nil || len(s.TransparencyLogs) != 1)) {
			t.Errorf("NewSigner(%q, %q) = %v, %v", tt.fulcio, tt.rekor, s, err)
		}
	}
}
