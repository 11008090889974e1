package githubclient

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
)

// attestationBundle is a Sigstore bundle's shape around an in-toto statement of one
// sha256 subject; sig tells one signing from another.
func attestationBundle(sig, subject string) []byte {
	st, _ := json.Marshal(map[string]any{
		"_type": "https://in-toto.io/Statement/v1", "predicateType": "https://slsa.dev/provenance/v1",
		"subject": []any{map[string]any{"name": "docker.io/elixircloud/tesk-core-filer", "digest": map[string]string{"sha256": subject}}},
	})
	b, _ := json.Marshal(map[string]any{
		"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
		"dsseEnvelope": map[string]any{
			"payload": base64.StdEncoding.EncodeToString(st), "payloadType": "application/vnd.in-toto+json",
			"signatures": []any{map[string]string{"sig": sig}},
		},
	})
	return b
}

func TestAttestationsUploadAndList(t *testing.T) {
	ctx := context.Background()
	f := setup(t, false)
	digest := "sha256:" + strings.Repeat("a", 64)
	var ids []int64
	for i := range 120 { // more than one page of 100
		id, err := f.c.CreateAttestation(ctx, "octo", "demo", attestationBundle(fmt.Sprint(i), strings.Repeat("a", 64)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if ids[0] == 0 || ids[0] == ids[1] {
		t.Errorf("ids %v", ids[:2])
	}
	listed, err := f.c.Attestations(ctx, "octo", "demo", digest)
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 120 {
		t.Fatalf("listed %d, want 120 over two pages", len(listed))
	}
	if present, _ := github.AttestationPresent(attestationBundle("119", strings.Repeat("a", 64)), listed); !present {
		t.Error("the last upload is not listed")
	}
	if none, err := f.c.Attestations(ctx, "octo", "demo", "sha256:"+strings.Repeat("f", 64)); err != nil || len(none) != 0 {
		t.Errorf("another digest: %v, %v", none, err)
	}
	if _, err := f.c.CreateAttestation(ctx, "octo", "demo", []byte("{")); !errors.Is(err, github.ErrRefused) {
		t.Errorf("a bundle that is not JSON: %v, want it refused before sending", err)
	}
}

func TestUploadAttestation(t *testing.T) {
	ctx := context.Background()
	digest := "sha256:" + strings.Repeat("a", 64)
	bundle := attestationBundle("once", strings.Repeat("a", 64))

	t.Run("a re-run does not upload again", func(t *testing.T) {
		f := setup(t, false)
		for i, want := range []bool{true, false} {
			uploaded, err := github.UploadAttestation(ctx, f.c, "octo", "demo", "tesk-core-filer", digest, bundle)
			if err != nil || uploaded != want {
				t.Fatalf("run %d: uploaded %v, %v; want %v", i+1, uploaded, err, want)
			}
		}
		if n := len(f.repo.Attestations()); n != 1 {
			t.Errorf("%d stored, want 1", n)
		}
		// Another signing of the same image is another attestation.
		if uploaded, err := github.UploadAttestation(ctx, f.c, "octo", "demo", "tesk-core-filer", digest, attestationBundle("again", strings.Repeat("a", 64))); err != nil || !uploaded {
			t.Errorf("another bundle: uploaded %v, %v", uploaded, err)
		}
	})

	t.Run("a lost answer is read back, not repeated", func(t *testing.T) {
		f := setup(t, false)
		f.sim.InjectFault("POST", "/repos/*/*/attestations", githubsim.Fault{Kind: githubsim.FaultStatus, Status: 502, Times: 1, AfterEffect: true})
		if _, err := github.UploadAttestation(ctx, f.c, "octo", "demo", "tesk-core-filer", digest, bundle); err != nil {
			t.Fatal(err)
		}
		if n := len(f.repo.Attestations()); n != 1 {
			t.Errorf("%d stored, want 1", n)
		}
	})

	t.Run("a refusal names the image and the fix", func(t *testing.T) {
		clock := newFakeClock()
		sim := githubsim.New(t, githubsim.WithClock(clock.Now))
		sim.AddToken(token, githubsim.Token{Lacks: []string{"attestations=write"}})
		sim.AddRepo("octo", "demo")
		c, err := NewClient(sim.URL, token, WithSleep(clock.Sleep), WithClock(clock.Now))
		if err != nil {
			t.Fatal(err)
		}
		_, err = github.UploadAttestation(ctx, c, "octo", "demo", "tesk-core-filer", digest, bundle)
		if !errors.Is(err, github.ErrNotAllowed) || github.StatusOf(err) != 403 {
			t.Fatalf("err = %v, want GitHub's 403 as ErrNotAllowed", err)
		}
		for _, want := range []string{"tesk-core-filer@" + digest, "octo/demo", "attestations=write", github.AttestationsWriteAdvice} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if strings.Contains(err.Error(), token) {
			t.Error("the error holds the token")
		}
	})

	t.Run("a bundle of another image is not uploaded", func(t *testing.T) {
		f := setup(t, false)
		other := attestationBundle("x", strings.Repeat("b", 64))
		if _, err := github.UploadAttestation(ctx, f.c, "octo", "demo", "tesk-core-filer", digest, other); err == nil || !strings.Contains(err.Error(), "not this digest") {
			t.Errorf("err = %v", err)
		}
		if _, err := github.UploadAttestation(ctx, f.c, "octo", "demo", "tesk-core-filer", digest, []byte(`{"x":1}`)); !errors.Is(err, github.ErrNotAttestation) {
			t.Errorf("err = %v, want ErrNotAttestation", err)
		}
		if n := len(f.repo.Attestations()); n != 0 {
			t.Errorf("%d stored", n)
		}
	})
}
