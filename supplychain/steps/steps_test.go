package steps_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"

	"dagger/shipyard/supplychain/internal/testregistry"
	"dagger/shipyard/supplychain/internal/testsigstore"
	"dagger/shipyard/supplychain/provenance"
	"dagger/shipyard/supplychain/referrers"
	"dagger/shipyard/supplychain/signing"
	"dagger/shipyard/supplychain/steps"
	"dagger/shipyard/supplychain/verify"
)

const (
	issuer      = "https://token.actions.githubusercontent.com"
	workflowRef = "elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0"
	identityRE  = `^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$`
)

func token(t *testing.T, exp time.Time) *signing.Token {
	t.Helper()
	raw := testsigstore.Token(map[string]any{
		"iss":              issuer,
		"sub":              "repo:elixir-cloud-aai/tesk-core:ref:refs/tags/v0.11.0",
		"job_workflow_ref": workflowRef,
		"exp":              exp.Unix(),
	})
	tok, err := signing.ParseToken([]byte(raw), exp.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func input() provenance.Input {
	return provenance.Input{
		SourceRepository: "https://github.com/elixir-cloud-aai/tesk-core",
		SourceRef:        "refs/tags/v0.11.0",
		SourceCommit:     strings.Repeat("c", 40),
		Dockerfile:       "containers/filer.Dockerfile",
		GitHub: provenance.GitHub{
			Repository:  "elixir-cloud-aai/tesk-core",
			WorkflowRef: workflowRef,
			RunID:       "1",
		},
	}
}

type env struct {
	reg *testregistry.Registry
	ss  *testsigstore.Sigstore
	cfg steps.Config
}

func newEnv(t *testing.T, referrersAPI bool) *env {
	t.Helper()
	ss, err := testsigstore.New()
	if err != nil {
		t.Fatal(err)
	}
	reg := testregistry.New(t, testregistry.Options{ReferrersAPI: referrersAPI})
	return &env{reg: reg, ss: ss, cfg: steps.Config{
		Token:   token(t, time.Now().Add(10*time.Minute)),
		Signer:  &signing.Signer{CertificateProvider: ss, TransparencyLogs: []sign.Transparency{ss}},
		Trusted: trustedRoot(t, ss),
	}}
}

// trustedRoot is ss's trusted root read back from JSON, as the command reads --trusted-root.
func trustedRoot(t *testing.T, ss *testsigstore.Sigstore) *root.TrustedRoot {
	t.Helper()
	js, err := ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRootFromJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func (e *env) publish(t *testing.T, d name.Digest) {
	t.Helper()
	c := e.cfg
	c.Image = d.String()
	if _, err := steps.Attest(context.Background(), c, input()); err != nil {
		t.Fatalf("attest: %v", err)
	}
	if _, err := steps.Sign(context.Background(), c); err != nil {
		t.Fatalf("sign: %v", err)
	}
}

func (e *env) verify(t *testing.T, ref string, p verify.Policy) (*verify.Result, error) {
	t.Helper()
	// Through JSON, as the command reads it from --trusted-root.
	js, err := e.ss.TrustedRootJSON()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := root.NewTrustedRootFromJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	return verify.Image(context.Background(), r, tr, p)
}

var modes = []struct {
	name         string
	referrersAPI bool
}{{"referrers API", true}, {"fallback tag", false}}

func TestVerify(t *testing.T) {
	good := verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := newEnv(t, m.referrersAPI)
			signed, _ := e.reg.PushRandom(t, "org/filer")
			unsigned, _ := e.reg.PushRandom(t, "org/filer")
			tampered, _ := e.reg.PushRandom(t, "org/filer")
			e.publish(t, signed)
			// Copy the signed digest's bundles onto another digest: their
			// statements name the first digest, so they must not count.
			refs, err := referrers.List(context.Background(), signed)
			if err != nil || len(refs) != 2 {
				t.Fatalf("referrers of signed image: %d, %v", len(refs), err)
			}
			for _, r := range refs {
				if _, err := referrers.Store(context.Background(), tampered, r.Bundle, r.PredicateType, time.Now()); err != nil {
					t.Fatal(err)
				}
			}

			tests := []struct {
				name   string
				ref    string
				policy verify.Policy
				ok     bool
			}{
				{"signed image by digest", signed.String(), good, true},
				{"signature alone", signed.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1, RequiredPredicateTypes: []string{verify.CosignSignPredicateType}}, true},
				{"wrong identity", signed.String(), verify.Policy{IdentityRegexp: `^https://github\.com/someone-else/.*$`, Issuer: issuer}, false},
				{"identity of a branch", signed.String(), verify.Policy{IdentityRegexp: `^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/release\.yml@refs/heads/main$`, Issuer: issuer}, false},
				{"wrong issuer", signed.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: "https://accounts.google.com"}, false},
				{"unsigned image", unsigned.String(), good, false},
				{"bundles of another digest", tampered.String(), good, false},
				{"embedded certificate transparency timestamp, as from Fulcio", signed.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1}, true},
				{"more timestamps than the certificate has", signed.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 2}, false},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					res, err := e.verify(t, tt.ref, tt.policy)
					if !tt.ok {
						if !errors.Is(err, verify.ErrNotVerified) {
							t.Fatalf("err = %v, want ErrNotVerified", err)
						}
						return
					}
					if err != nil {
						t.Fatalf("verify: %v", err)
					}
					if res.Digest != signed.DigestStr() {
						t.Errorf("digest = %s, want %s", res.Digest, signed.DigestStr())
					}
					want := map[string]bool{}
					for _, p := range tt.policy.RequiredPredicateTypes {
						want[p] = true
					}
					if len(want) == 0 {
						want = map[string]bool{verify.CosignSignPredicateType: true, verify.SLSAPredicateType: true}
					}
					for _, v := range res.Verified {
						if v.Identity != "https://github.com/"+workflowRef || v.Issuer != issuer {
							t.Errorf("verified %s from %s/%s", v.PredicateType, v.Identity, v.Issuer)
						}
						if v.IntegratedTime == "" {
							t.Errorf("%s: no integrated time", v.PredicateType)
						}
						delete(want, v.PredicateType)
					}
					if len(want) > 0 {
						t.Errorf("not verified: %v (got %+v)", want, res.Verified)
					}
				})
			}
		})
	}
}

func TestVerifyByTag(t *testing.T) {
	e := newEnv(t, true)
	d, img := e.reg.PushRandom(t, "org/taskmaster")
	e.publish(t, d)
	tag := d.Repository.Tag("0.11.0")
	if err := remoteWrite(tag, img); err != nil {
		t.Fatal(err)
	}
	res, err := e.verify(t, tag.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer})
	if err != nil {
		t.Fatalf("verify by tag: %v", err)
	}
	if res.Digest != d.DigestStr() || res.Image != tag.String() {
		t.Errorf("result = %+v", res)
	}
}

func TestRerunConverges(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			e := newEnv(t, m.referrersAPI)
			d, _ := e.reg.PushRandom(t, "org/filer")
			c := e.cfg
			c.Image = d.String()
			run := func() (steps.Outcome, steps.Outcome) {
				a, err := steps.Attest(context.Background(), c, input())
				if err != nil {
					t.Fatalf("attest: %v", err)
				}
				s, err := steps.Sign(context.Background(), c)
				if err != nil {
					t.Fatalf("sign: %v", err)
				}
				return a, s
			}
			a1, s1 := run()
			if !a1.Created || !s1.Created {
				t.Fatalf("first run created nothing: %+v %+v", a1, s1)
			}
			certs, entries := e.ss.Counts()
			writes := e.reg.Writes()
			a2, s2 := run()
			if a2.Created || s2.Created || a2.Referrer != a1.Referrer || s2.Referrer != s1.Referrer {
				t.Errorf("re-run changed something: %+v %+v", a2, s2)
			}
			if a2.Identity != "https://github.com/"+workflowRef || a2.Issuer != issuer {
				t.Errorf("re-run outcome lacks the identity: %+v", a2)
			}
			if c2, e2 := e.ss.Counts(); c2 != certs || e2 != entries {
				t.Errorf("re-run signed again: certificates %d→%d, entries %d→%d", certs, c2, entries, e2)
			}
			if w := e.reg.Writes(); w != writes {
				t.Errorf("re-run wrote to the registry: %d→%d requests", writes, w)
			}
			refs, err := referrers.List(context.Background(), d)
			if err != nil || len(refs) != 2 {
				t.Errorf("referrers = %d, %v; want 2", len(refs), err)
			}
		})
	}
}

func TestFaultsStopBeforeWriting(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(e *env, c *steps.Config)
		errIs  error
		errHas string
	}{
		{"missing token", func(e *env, c *steps.Config) { c.Token = nil }, signing.ErrToken, "missing"},
		{"expired token", func(e *env, c *steps.Config) {
			tok := token(t, time.Now().Add(-time.Minute))
			c.Token = tok
		}, signing.ErrToken, "expired"},
		{"fulcio fails", func(e *env, c *steps.Config) { e.ss.SetFaults(errors.New("fulcio unavailable"), nil) }, nil, "fulcio unavailable"},
		{"rekor fails", func(e *env, c *steps.Config) { e.ss.SetFaults(nil, errors.New("rekor unavailable")) }, nil, "rekor unavailable"},
		{"tag instead of digest", func(e *env, c *steps.Config) { c.Image = e.reg.Host + "/org/filer:latest" }, nil, "by digest"},
		{"no trusted root", func(e *env, c *steps.Config) { c.Trusted = nil }, nil, "trusted root is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, false)
			d, _ := e.reg.PushRandom(t, "org/filer")
			c := e.cfg
			c.Image = d.String()
			tt.setup(e, &c)
			writes := e.reg.Writes()
			for _, step := range []func() error{
				func() error { _, err := steps.Attest(context.Background(), c, input()); return err },
				func() error { _, err := steps.Sign(context.Background(), c); return err },
			} {
				err := step()
				if err == nil || (tt.errIs != nil && !errors.Is(err, tt.errIs)) || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("err = %v, want %v mentioning %q", err, tt.errIs, tt.errHas)
				}
			}
			if w := e.reg.Writes(); w != writes {
				t.Errorf("registry received %d writes", w-writes)
			}
			// After the fault is gone, a re-run finishes the job.
			e.ss.SetFaults(nil, nil)
			e.cfg.Image = d.String()
			e.publish(t, d)
			if _, err := e.verify(t, d.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer}); err != nil {
				t.Errorf("verify after re-run: %v", err)
			}
		})
	}
}

func TestRegistryFaultThenRerun(t *testing.T) {
	e := newEnv(t, false)
	d, _ := e.reg.PushRandom(t, "org/filer")
	c := e.cfg
	c.Image = d.String()
	// The referrer manifest upload fails (blobs are already there).
	e.reg.FailWhen(func(r *http.Request) bool {
		return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/")
	})
	if _, err := steps.Sign(context.Background(), c); err == nil {
		t.Fatal("sign succeeded while the registry failed")
	}
	e.reg.FailWhen(nil)
	if refs, err := referrers.List(context.Background(), d); err != nil || len(refs) != 0 {
		t.Fatalf("referrers after a failed sign = %d, %v", len(refs), err)
	}
	e.publish(t, d)
	if _, err := e.verify(t, d.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer}); err != nil {
		t.Errorf("verify after re-run: %v", err)
	}
}

func TestRegistryCredentials(t *testing.T) {
	tests := []struct {
		name, user, pass string
		ok               bool
	}{
		{"anonymous", "", "", true},
		{"user and password", "robot", "s3cr3t-registry-token", true},
		{"user without password", "robot", "", false},
		{"password without user", "", "s3cr3t", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := steps.Registry(tt.user, tt.pass)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && tt.pass != "" && strings.Contains(err.Error(), tt.pass) {
				t.Errorf("error shows the password")
			}
			// The transport that keeps plain HTTP to the named hosts, and the login if any.
			if want := map[bool]int{true: 2, false: 1}[tt.user != ""]; tt.ok && len(opts) != want {
				t.Errorf("options = %d, want %d", len(opts), want)
			}
		})
	}
}

// TestRerunSignsAgainUnlessSignedByUs: a bundle already attached counts as an earlier run's
// only if it verifies against the trusted root as signed by the current token's identity
// and issuer. Junk, another identity's signature and another Sigstore's signature of the
// same statement are someone else's: the step signs again, and the image then verifies
// for the release identity.
func TestRerunSignsAgainUnlessSignedByUs(t *testing.T) {
	other := func(t *testing.T, claims map[string]any) *signing.Token {
		t.Helper()
		tok, err := signing.ParseToken([]byte(testsigstore.Token(claims)), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	exp := time.Now().Add(10 * time.Minute).Unix()
	tests := []struct {
		name string
		// plant attaches the foreign bundles to d before our run.
		plant func(t *testing.T, e *env, d name.Digest)
	}{
		{"junk bundles", func(t *testing.T, e *env, d name.Digest) {
			for _, pt := range []string{provenance.SLSAPredicateType, signing.CosignSignPredicateType} {
				junk := `{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json","signatures":[{"sig":"AAAA"}]}}`
				if _, err := referrers.Store(context.Background(), d, []byte(junk), pt, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
		}},
		{"signed by another identity", func(t *testing.T, e *env, d name.Digest) {
			c := e.cfg
			c.Image = d.String()
			c.Token = other(t, map[string]any{"iss": issuer, "sub": "repo:someone/fork:ref:refs/heads/main",
				"job_workflow_ref": "someone/fork/.github/workflows/release.yml@refs/tags/v0.11.0", "exp": exp})
			if _, err := steps.Attest(context.Background(), c, input()); err != nil {
				t.Fatal(err)
			}
			if _, err := steps.Sign(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}},
		{"our identity from another issuer", func(t *testing.T, e *env, d name.Digest) {
			c := e.cfg
			c.Image = d.String()
			c.Token = other(t, map[string]any{"iss": "https://issuer.example", "sub": "x",
				"job_workflow_ref": workflowRef, "exp": exp})
			if _, err := steps.Sign(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			if _, err := steps.Attest(context.Background(), c, input()); err != nil {
				t.Fatal(err)
			}
		}},
		{"our identity from another Sigstore", func(t *testing.T, e *env, d name.Digest) {
			ss, err := testsigstore.New()
			if err != nil {
				t.Fatal(err)
			}
			c := e.cfg
			c.Image = d.String()
			c.Signer = &signing.Signer{CertificateProvider: ss, TransparencyLogs: []sign.Transparency{ss}}
			c.Trusted = trustedRoot(t, ss)
			if _, err := steps.Attest(context.Background(), c, input()); err != nil {
				t.Fatal(err)
			}
			if _, err := steps.Sign(context.Background(), c); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, true)
			d, _ := e.reg.PushRandom(t, "org/filer")
			tt.plant(t, e, d)
			if _, err := e.verify(t, d.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1}); !errors.Is(err, verify.ErrNotVerified) {
				t.Fatalf("the planted bundles verify for the release identity: %v", err)
			}
			c := e.cfg
			c.Image = d.String()
			a, err := steps.Attest(context.Background(), c, input())
			if err != nil {
				t.Fatal(err)
			}
			s, err := steps.Sign(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Created || !s.Created {
				t.Fatalf("a foreign bundle counted as done: attest %+v, sign %+v", a, s)
			}
			if a.Identity != "https://github.com/"+workflowRef || s.Issuer != issuer {
				t.Errorf("outcome names %s (%s), want the token's identity", a.Identity, s.Issuer)
			}
			if _, err := e.verify(t, d.String(), verify.Policy{IdentityRegexp: identityRE, Issuer: issuer, MinSCTs: 1}); err != nil {
				t.Errorf("after signing again: %v", err)
			}
			// Now the digest carries our bundles: a re-run keeps them.
			a2, err := steps.Attest(context.Background(), c, input())
			if err != nil || a2.Created || a2.Referrer != a.Referrer {
				t.Errorf("re-run: %+v, %v; want the bundle %s kept", a2, err, a.Referrer)
			}
		})
	}
}
