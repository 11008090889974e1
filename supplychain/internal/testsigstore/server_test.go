package testsigstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sgbundle "github.com/sigstore/sigstore-go/pkg/bundle"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"

	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/signing"
)

// The production signer (sigstore-go's Fulcio and Rekor clients) signs
// against the HTTP form of the test Sigstore, and the bundle verifies
// against its trusted root; faults and unusable tokens fail the signing.
func TestHandlerServesTheProductionClients(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ss.Handler())
	t.Cleanup(srv.Close)
	signer, err := signing.NewSigner(srv.URL, srv.URL, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ss.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	const issuer, subject = "https://token.actions.githubusercontent.com", "https://github.com/o/r/.github/workflows/ci.yml@refs/heads/dev"
	claims := func(exp time.Time) map[string]any {
		return map[string]any{"iss": issuer, "sub": "repo:o/r:ref:refs/heads/dev", "job_workflow_ref": "o/r/.github/workflows/ci.yml@refs/heads/dev", "exp": exp.Unix()}
	}
	valid := testsigstore.Token(claims(time.Now().Add(10 * time.Minute)))
	// Parsed as if read earlier, so only the service sees that it expired.
	expired := testsigstore.Token(claims(time.Now().Add(-time.Minute)))
	statement, err := signing.CosignSignStatement("sha256:" + strings.Repeat("1", 64))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name        string
		token       string
		faults      testsigstore.Faults
		errContains string
	}{
		{name: "signs and logs", token: valid},
		// 4xx statuses are not retried by the clients, which keeps the test fast.
		{name: "fulcio fails", token: valid, faults: testsigstore.Faults{Fulcio: &testsigstore.Fault{Status: 400, Message: "fulcio is down"}}, errContains: "fulcio is down"},
		{name: "rekor fails", token: valid, faults: testsigstore.Faults{Rekor: &testsigstore.Fault{Status: 400, Message: "rekor is down"}}, errContains: "400"},
		{name: "expired token", token: expired, errContains: "token expired"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setFaults(t, srv.URL, tt.faults)
			t.Cleanup(func() { setFaults(t, srv.URL, testsigstore.Faults{}) })
			tok, err := signing.ParseToken([]byte(tt.token), time.Now().Add(-time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			before := counts(t, srv.URL)
			b, err := signer.SignStatement(context.Background(), statement, tok)
			if tt.errContains != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errContains) {
					t.Fatalf("err = %v, want %q", err, tt.errContains)
				}
				if strings.Contains(err.Error(), tt.token) {
					t.Error("the error holds the token")
				}
				if after := counts(t, srv.URL); after.Entries != before.Entries {
					t.Errorf("a failed signing was logged: %+v then %+v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatalf("SignStatement: %v", err)
			}
			if after := counts(t, srv.URL); after.Certificates != before.Certificates+1 || after.Entries != before.Entries+1 {
				t.Errorf("counts %+v then %+v, want one more certificate and entry", before, after)
			}
			var bundle sgbundle.Bundle
			if err := bundle.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			v, err := sgverify.NewVerifier(tr, sgverify.WithTransparencyLog(1), sgverify.WithIntegratedTimestamps(1))
			if err != nil {
				t.Fatal(err)
			}
			id, err := sgverify.NewShortCertificateIdentity(issuer, "", subject, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Verify(&bundle, sgverify.NewPolicy(sgverify.WithoutArtifactUnsafe(), sgverify.WithCertificateIdentity(id))); err != nil {
				t.Errorf("bundle does not verify: %v", err)
			}
			entries, err := bundle.TlogEntries()
			if err != nil || len(entries) != 1 || !entries[0].HasInclusionProof() {
				t.Errorf("tlog entries %v, %v: want one with an inclusion proof", entries, err)
			}
		})
	}
}

func TestHandlerRefusesBadRequests(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ss.Handler())
	t.Cleanup(srv.Close)
	tests := []struct {
		name, path, body string
		status           int
	}{
		{"fulcio without token", "/api/v2/signingCert", `{"publicKeyRequest":{}}`, http.StatusUnauthorized},
		{"fulcio not JSON", "/api/v2/signingCert", `nope`, http.StatusBadRequest},
		{"rekor other kind", "/api/v1/log/entries", `{"kind":"hashedrekord"}`, http.StatusBadRequest},
		{"rekor no verifier", "/api/v1/log/entries", `{"kind":"dsse","spec":{"proposedContent":{"envelope":"{}"}}}`, http.StatusBadRequest},
		{"fault that is no error", "/test/faults", `{"fulcio":{"status":200}}`, http.StatusBadRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+tt.path, "application/json", strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}

func setFaults(t *testing.T, url string, f testsigstore.Faults) {
	t.Helper()
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url+"/test/faults", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("set faults: status %d", resp.StatusCode)
	}
}

func counts(t *testing.T, url string) testsigstore.Counts {
	t.Helper()
	resp, err := http.Get(url + "/test/counts")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c testsigstore.Counts
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		t.Fatal(err)
	}
	return c
}
