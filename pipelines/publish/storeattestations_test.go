package publish_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// memoryStore is an attestation store in memory, as GitHub's keeps bundles: listed by the
// digest they attest. It fails while failures are left, before storing anything.
type memoryStore struct {
	mu       sync.Mutex
	bundles  map[string][]string // digest → bundles
	failures int
	calls    int
}

func (s *memoryStore) Store(_ context.Context, image, digest string, bundle []byte) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.failures > 0 {
		s.failures--
		return false, errors.New("attestation store unavailable")
	}
	subjects, err := github.AttestationSubjects(bundle)
	if err != nil || len(subjects) != 1 || subjects[0] != digest {
		return false, errors.New(image + ": the bundle does not attest " + digest)
	}
	for _, b := range s.bundles[digest] {
		if b == string(bundle) {
			return false, nil
		}
	}
	if s.bundles == nil {
		s.bundles = map[string][]string{}
	}
	s.bundles[digest] = append(s.bundles[digest], string(bundle))
	return true, nil
}

// A push to dev stores each verified provenance and SBOM, of every digest it published,
// in the forge's store before tagging; a re-run stores none again; a failing store stops
// the flow before any tag, and the re-run finishes.
func TestPublishBranchStoresTheVerifiedAttestations(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	store := &memoryStore{failures: 1}
	v := newEnv(t, w)
	v.dev.Store = store

	_, err := publish.PublishBranch(ctx, v.dev, sha)
	var fe *flow.Error
	if !errors.As(err, &fe) || fe.Step != publish.StepStoreAttestations || !strings.Contains(err.Error(), "attestation store unavailable") {
		t.Fatalf("a failing store: %v, want the store-attestations step's failure", err)
	}
	for _, n := range imageNames {
		if tags := w.Registry.Tags(t, v.repo(n)); len(tags) != 0 {
			t.Errorf("%s tagged %v before its attestations were stored", n, tags)
		}
	}

	again := newEnv(t, w)
	again.dev.Store = store
	res, err := publish.PublishBranch(ctx, again.dev, sha)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	digests := 0
	for _, ver := range res.Verified {
		digests++
		got := store.bundles[ver.Digest]
		if len(got) != 2 {
			t.Errorf("%s: %d bundles stored, want its provenance and SBOM", ver.Ref, len(got))
		}
		for _, b := range got {
			if !strings.Contains(b, "dsseEnvelope") {
				t.Errorf("%s: stored %.60s…, want a Sigstore bundle of a statement", ver.Ref, b)
			}
		}
	}
	if digests == 0 || len(store.bundles) != digests {
		t.Errorf("bundles stored for %d digests, %d verified", len(store.bundles), digests)
	}
	for _, n := range imageNames {
		if tags := w.Registry.Tags(t, v.repo(n)); len(tags) != 2 {
			t.Errorf("%s tags %v after the re-run, want sha-<commit> and dev", n, tags)
		}
	}

	calls := store.calls
	third := newEnv(t, w)
	third.dev.Store = store
	if _, err := publish.PublishBranch(ctx, third.dev, sha); err != nil {
		t.Fatalf("third run: %v", err)
	}
	if store.calls != calls+2*digests {
		t.Errorf("third run asked the store %d times, want once per bundle (%d)", store.calls-calls, 2*digests)
	}
	for d, bs := range store.bundles {
		if len(bs) != 2 {
			t.Errorf("%s: %d bundles after the third run, want the same 2", d, len(bs))
		}
	}
}

// store-attestations alone, as the dev workflow runs it between sign and tag-images:
// nothing is stored until every digest verifies against the signer given; then each
// digest's provenance (the index's and each platform image's) is stored once, and a
// re-run stores nothing again.
func TestStoreAttestationsAloneStoresOnlyWhatVerifies(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newPlatformEnv(t, w)
	pushed, err := publish.PushByDigest(ctx, "push-by-digest", v.images[:1], v.target)
	if err != nil {
		t.Fatal(err)
	}
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	req := publish.VerifyRequest{Tool: v.sign.Tool, RegistryTool: v.target.RegistryTool, Identity: publishtest.IdentityRegexp,
		Issuer: publishtest.Issuer, TrustedRoot: root}
	store := &memoryStore{}

	if _, err := publish.Attest(ctx, "attest", v.sign, v.target, pushed, v.images); err != nil {
		t.Fatal(err)
	}
	_, err = publish.StoreAttestations(ctx, "store-attestations", req, pushed, store)
	var fe *flow.Error
	if !errors.As(err, &fe) || fe.Step != publish.StepVerify || len(store.bundles) != 0 {
		t.Fatalf("attested, not signed: %v, %d digests stored; want the verify step's failure and nothing stored", err, len(store.bundles))
	}
	if _, err := publish.Sign(ctx, "sign", v.sign, v.target, pushed); err != nil {
		t.Fatal(err)
	}
	wrong := req
	wrong.Identity = "^https://github\\.com/someone/else/\\.github/workflows/ci\\.yml@refs/heads/dev$"
	if _, err := publish.StoreAttestations(ctx, "store-attestations", wrong, pushed, store); err == nil || len(store.bundles) != 0 {
		t.Fatalf("another signer's identity: %v, %d digests stored; want a failure and nothing stored", err, len(store.bundles))
	}

	got, err := publish.StoreAttestations(ctx, "store-attestations", req, pushed, store)
	if err != nil {
		t.Fatal(err)
	}
	subjects := publish.Subjects(pushed)
	if len(subjects) != 3 || got.Uploaded != len(subjects) || got.Present != 0 {
		t.Errorf("stored %+v for %d digests, want each digest's provenance uploaded (an index and 2 platforms)", got, len(subjects))
	}
	for _, p := range subjects {
		if len(store.bundles[p.Digest]) != 1 {
			t.Errorf("%s: %d bundles stored, want its provenance", p.Ref(), len(store.bundles[p.Digest]))
		}
	}
	again, err := publish.StoreAttestations(ctx, "store-attestations", req, pushed, store)
	if err != nil || again.Uploaded != 0 || again.Present != len(subjects) {
		t.Errorf("re-run: %+v, %v; want every bundle found present", again, err)
	}
	if _, err := publish.StoreAttestations(ctx, "store-attestations", req, pushed, nil); err == nil || !strings.Contains(err.Error(), "no attestation store") {
		t.Errorf("no store: %v", err)
	}
}
