package verify_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sigstore/sigstore-go/pkg/root"

	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/verify"
)

// The accepting and rejecting paths against signed images are in the steps
// package's tests; these cover the inputs verify refuses on its own.
func TestBundlesRefuses(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ss.TrustedRoot()
	if err != nil {
		t.Fatal(err)
	}
	digest := "sha256:" + strings.Repeat("1", 64)
	good := verify.Policy{IdentityRegexp: "^x$", Issuer: "https://issuer"}
	junk := []referrers.Referrer{
		{Digest: "sha256:" + strings.Repeat("2", 64), PredicateType: verify.SLSAPredicateType, Bundle: []byte(`{"mediaType":"nope"}`)},
		{Digest: "sha256:" + strings.Repeat("3", 64), PredicateType: verify.CosignSignPredicateType, Bundle: []byte(`not json`)},
	}
	tests := []struct {
		name    string
		digest  string
		refs    []referrers.Referrer
		trusted root.TrustedMaterial
		policy  verify.Policy
		notVer  bool
		want    string
	}{
		{"no trusted root", digest, nil, nil, good, false, "trusted root"},
		{"no issuer", digest, nil, tr, verify.Policy{IdentityRegexp: "x"}, false, "issuer are required"},
		{"bad regexp", digest, nil, tr, verify.Policy{IdentityRegexp: "(", Issuer: "i"}, false, "identity regexp"},
		{"bad digest", "sha256:xyz", nil, tr, good, false, "not sha256"},
		{"unanchored identity", digest, nil, tr, verify.Policy{IdentityRegexp: `github\.com/o/r/`, Issuer: "i"}, false, "not anchored"},
		{"no referrers", digest, nil, tr, good, true, "0 referrer bundles"},
		{"junk bundles", digest, junk, tr, good, true, "not a Sigstore bundle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := verify.Bundles(tt.digest, tt.refs, tt.trusted, tt.policy)
			if err == nil || !strings.Contains(err.Error(), tt.want) || errors.Is(err, verify.ErrNotVerified) != tt.notVer {
				t.Fatalf("err = %v, want %q (ErrNotVerified %v)", err, tt.want, tt.notVer)
			}
		})
	}
}

func TestAnchored(t *testing.T) {
	tests := []struct {
		re string
		ok bool
	}{
		{`^https://github\.com/o/r/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$`, true},
		{`^(a|b)$`, true},
		{`^x$`, true},
		{`^https://github\.com/o/r/\.github/workflows/release\.yml@refs/tags/v`, false},
		{`https://github\.com/o/r/.*$`, false},
		{`github\.com/o/r/`, false},
		{`^a|b$`, false},
		{`^a$|b`, false},
		{`^a\$`, false},
		{`(?m)^a$`, false},
		{`^$`, true},
		{``, false},
	}
	for _, tt := range tests {
		err := verify.Anchored(tt.re)
		if (err == nil) != tt.ok {
			t.Errorf("Anchored(%q) = %v, want ok %v", tt.re, err, tt.ok)
		}
		if err != nil && !errors.Is(err, verify.ErrUnanchored) {
			t.Errorf("Anchored(%q) = %v, want ErrUnanchored", tt.re, err)
		}
	}
}

func TestLoadTrustedRoot(t *testing.T) {
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	js, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "trusted_root.json")
	bad := filepath.Join(dir, "bad.json")
	for p, b := range map[string][]byte{good: js, bad: []byte(`{"mediaType":"x"}`)} {
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, path, want string
	}{
		{"valid", good, ""},
		{"empty path", "", "required"},
		{"missing", filepath.Join(dir, "missing"), "reading"},
		{"malformed", bad, "parsing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := verify.LoadTrustedRoot(tt.path)
			if tt.want == "" {
				if err != nil || len(tr.FulcioCertificateAuthorities()) != 1 || len(tr.RekorLogs()) != 1 {
					t.Fatalf("LoadTrustedRoot = %v, %v", tr, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}
