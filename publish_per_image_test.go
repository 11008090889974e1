package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// A job per image, as ci.yml's "Push image (…)" and "Publish image (…)" jobs: push-by-digest
// --image prints one digest, and attest, sign and tag-images given that JSON handle that
// image only, leaving the other one untouched.
func TestPublishStepsPerImage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)

	m, _ := publishModule(t, w, true)
	digests, err := m.PushByDigest(ctx, "", "taskmaster")
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string]string
	if err := json.Unmarshal([]byte(digests), &byName); err != nil || len(byName) != 1 || byName["taskmaster"] != repoOf(w, "taskmaster")+"@"+published(t, w, "taskmaster") {
		t.Fatalf("push-by-digest --image taskmaster printed %s (%v)", digests, err)
	}

	m, _ = publishModule(t, w, true)
	attested, err := withSigstore(m, w, nil).Attest(ctx, digests, devSHA, "refs/heads/dev", "")
	if err != nil {
		t.Fatalf("attest: %v", err)
	}
	m, _ = publishModule(t, w, true)
	signed, err := withSigstore(m, w, nil).Sign(ctx, digests)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	// Before tagging, the verified bundles go to the repository's attestation store, read
	// anonymously from the registry as users pull: a login is not needed.
	storer, _, repo := publishModuleOnGitHub(t, w, true, nil)
	storer.RegistryUsername, storer.RegistryPassword = "", nil
	root := storer.engine().Host().File(w.Sigstore.TrustedRoot)
	token := storer.GithubToken
	storer.GithubToken = nil
	if _, err := storer.StoreAttestations(ctx, digests, publishtest.IdentityRegexp, publishtest.Issuer, root, 1); err == nil ||
		!strings.Contains(err.Error(), "pass --github-token") || len(repo.Attestations()) != 0 {
		t.Errorf("store-attestations without a token: %v, %d stored; want it refused, naming --github-token", err, len(repo.Attestations()))
	}
	storer.GithubToken = token
	stored, err := storer.StoreAttestations(ctx, digests, publishtest.IdentityRegexp, publishtest.Issuer, root, 1)
	if err != nil {
		t.Fatalf("store-attestations: %v", err)
	}
	// The index's provenance and its two platform images', no SBOM: the job attests none.
	var report publish.StoreReport
	if err := json.Unmarshal([]byte(stored), &report); err != nil || report != (publish.StoreReport{Uploaded: 3}) {
		t.Errorf("store-attestations printed %s (%v), want 3 bundles uploaded", stored, err)
	}
	want := []string{published(t, w, "taskmaster"), digestOf(t, w.PlatformImage(t, "taskmaster", "linux/amd64")), digestOf(t, w.PlatformImage(t, "taskmaster", "linux/arm64"))}
	var subjects []string
	for _, b := range repo.Attestations() {
		s, err := github.AttestationSubjects(b)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, s...)
	}
	if !sameSet(subjects, want) {
		t.Errorf("attestations stored for %v, want one for each of %v", subjects, want)
	}
	if again, err := storer.StoreAttestations(ctx, digests, publishtest.IdentityRegexp, publishtest.Issuer, root, 1); err != nil || len(repo.Attestations()) != 3 {
		t.Errorf("store-attestations again: %s (%v), %d stored; want nothing stored twice", again, err, len(repo.Attestations()))
	}
	m, e := publishModule(t, w, true)
	tagged, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA, "dev"})
	if err != nil {
		t.Fatalf("tag-images: %v", err)
	}
	for _, out := range []string{attested, signed} {
		var ev []struct {
			Name string `json:"name"`
		}
		// The index and its two platform images.
		if err := json.Unmarshal([]byte(out), &ev); err != nil || len(ev) != 3 || ev[0].Name != "taskmaster" || ev[2].Name != "taskmaster (linux/arm64)" {
			t.Errorf("a step for taskmaster printed (%v)\n%s", err, out)
		}
	}
	if !strings.Contains(tagged, "tesk-core-taskmaster") || strings.Contains(tagged, "tesk-core-filer") {
		t.Errorf("tag-images for taskmaster printed\n%s", tagged)
	}
	if refs := w.Registry.Referrers(t, repoOf(w, "taskmaster"), published(t, w, "taskmaster")); len(refs) != 2 {
		t.Errorf("taskmaster referrers %v, want one signature and one provenance", refs)
	}
	if tags := w.Registry.Tags(t, repoOf(w, "taskmaster")); len(tags) != 2 {
		t.Errorf("taskmaster tags %v", tags)
	}
	if tags := w.Registry.Tags(t, repoOf(w, "filer")); len(tags) != 0 {
		t.Errorf("the taskmaster job tagged filer: %v", tags)
	}
	noSecret(t, w, e.Graph().String(), attested, signed, stored, tagged)

	// An unknown image, or a JSON that names none, is refused before anything is written.
	if _, err := m.PushByDigest(ctx, "", "api"); err == nil {
		t.Error("push-by-digest --image api accepted")
	}
	if _, err := m.TagImages(ctx, `{}`, []string{"dev"}); err == nil || !strings.Contains(err.Error(), "no image given") {
		t.Errorf("tag-images with no digest: %v", err)
	}
	// A digest of another organisation: the error names the flags, as the user gives them.
	elsewhere := `{"taskmaster": "` + w.Registry.Host + `/someone-else/tesk-core-taskmaster@` + published(t, w, "taskmaster") + `"}`
	if _, err := m.TagImages(ctx, elsewhere, []string{"dev"}); err == nil || !strings.HasPrefix(err.Error(), "tag-images: --digests: ") ||
		!strings.Contains(err.Error(), "(check --registry and --org)") {
		t.Errorf("tag-images with another organisation's digest: %v", err)
	}
}

// sameSet is whether a and b hold the same strings, in any order.
func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
