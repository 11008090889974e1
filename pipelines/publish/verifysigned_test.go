package publish_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestExpectedSigner(t *testing.T) {
	d1, d2 := "sha256:"+strings.Repeat("1", 64), "sha256:"+strings.Repeat("2", 64)
	pushed := []publish.Pushed{{Name: "filer", Repository: "r/filer", Digest: d1}, {Name: "taskmaster", Repository: "r/tm", Digest: d2}}
	ev := func(name, digest, kind, identity string) publish.Evidence {
		return publish.Evidence{Name: name, Digest: digest, Kind: kind, Referrer: "sha256:" + strings.Repeat("9", 64), Identity: identity, Issuer: publishtest.Issuer}
	}
	all := func(identity string) []publish.Evidence {
		return []publish.Evidence{
			ev("filer", d1, publish.KindAttestation, identity), ev("filer", d1, publish.KindSignature, identity),
			ev("taskmaster", d2, publish.KindAttestation, identity), ev("taskmaster", d2, publish.KindSignature, identity),
		}
	}
	mixed := all(publishtest.Identity)
	mixed[3].Identity = "https://github.com/someone/fork/.github/workflows/ci.yml@refs/heads/dev"
	anonymous := all(publishtest.Identity)
	anonymous[1].Identity = ""
	tests := []struct {
		name     string
		pushed   []publish.Pushed
		evidence []publish.Evidence
		want     string // the error's text; "" means the release identity is returned
	}{
		{"one signer", pushed, all(publishtest.Identity), ""},
		{"two signers", pushed, mixed, "other evidence by"},
		{"evidence without a signer", pushed, anonymous, "names no signer"},
		{"signature missing", pushed, all(publishtest.Identity)[:3], "r/tm@" + d2 + " has no signature"},
		{"evidence of another digest", pushed[:1], all(publishtest.Identity)[2:], "has no attestation"},
		{"nothing pushed", nil, nil, "no pushed image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := publish.ExpectedSigner(tt.pushed, tt.evidence)
			if tt.want == "" {
				if err != nil || got != (publish.Signer{Identity: publishtest.Identity, Issuer: publishtest.Issuer}) {
					t.Fatalf("ExpectedSigner = %+v, %v", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestIdentityPattern(t *testing.T) {
	re := publish.IdentityPattern(publishtest.Identity)
	if !publish.Anchored(re) || re != publishtest.IdentityRegexp {
		t.Errorf("IdentityPattern = %s, want %s", re, publishtest.IdentityRegexp)
	}
}

// TestPublishDevTagsOnlyVerifiedDigests: the sign step reports success although nothing
// verifiable was attached (a command that lies, or a bundle that only looks like ours). The
// signature and provenance are verified with the signer's identity before tagging, so no
// tag moves; a re-run with a working command signs, verifies and tags.
func TestPublishDevTagsOnlyVerifiedDigests(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	v.e.OnExec(engine.ExecRule{ArgsContain: "supplychain sign", Run: func(x engine.Exec) (string, string, int) {
		image := ""
		for i, a := range x.Args {
			if a == "--image" && i+1 < len(x.Args) {
				image = x.Args[i+1]
			}
		}
		_, digest, _ := strings.Cut(image, "@")
		out, _ := json.Marshal(map[string]any{
			"step": "sign", "image": image, "digest": digest, "predicateType": "https://sigstore.dev/cosign/sign/v1",
			"referrer": "sha256:" + strings.Repeat("e", 64), "created": false,
			"identity": publishtest.Identity, "issuer": publishtest.Issuer,
		})
		return string(out), "", 0
	}})
	_, err := publish.PublishBranch(ctx, v.dev, sha)
	if err == nil || !strings.Contains(err.Error(), publish.StepVerifySigned) || !strings.Contains(err.Error(), "no tag was written") {
		t.Fatalf("err = %v, want the verify-signed step to stop the flow before tagging", err)
	}
	for n, tags := range v.tags(t) {
		if len(tags) != 0 {
			t.Errorf("%s was tagged although its signature does not verify: %v", n, tags)
		}
	}
	v.noSecrets(t, err.Error())

	res, err := publish.PublishBranch(ctx, newEnv(t, w).dev, sha)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if len(res.Verified) != len(imageNames) {
		t.Fatalf("verified %d images, want %d", len(res.Verified), len(imageNames))
	}
	for _, ver := range res.Verified {
		if len(ver.Verified) != 3 {
			t.Errorf("%s: %d bundles verified, want the signature, the provenance and the SBOM", ver.Ref, len(ver.Verified))
		}
		for _, b := range ver.Verified {
			if b.Identity != publishtest.Identity || b.Issuer != publishtest.Issuer {
				t.Errorf("%s verified for %s (%s)", ver.Ref, b.Identity, b.Issuer)
			}
		}
	}
	for _, n := range imageNames {
		if got := w.Registry.Tags(t, v.repo(n)); got["dev"] != w.Digest(t, n) {
			t.Errorf("%s after the re-run: %v", n, got)
		}
	}
}
