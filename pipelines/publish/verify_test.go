package publish_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/v1/random"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestVerify(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	if _, err := publish.PublishBranch(ctx, v.dev, sha); err != nil {
		t.Fatal(err)
	}
	repo := v.repo("filer")
	signed := w.Digest(t, "filer")

	// An image pushed and tagged by someone else, never signed.
	unsignedImg, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	unsigned := w.Registry.Push(t, repo, unsignedImg)
	w.Registry.Tag(t, repo, "unsigned", unsigned)
	// A swapped image carrying copies of the signed image's bundles.
	swappedImg, err := random.Image(256, 1)
	if err != nil {
		t.Fatal(err)
	}
	swapped := w.Registry.Push(t, repo, swappedImg)
	w.Registry.CopyReferrers(t, repo, signed, swapped)
	if n := len(w.Registry.Referrers(t, repo, swapped)); n != 3 {
		t.Fatalf("the swapped image has %d referrers, want the 3 copies", n)
	}

	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	tests := []struct {
		name, image, identity, issuer string
		opts                          []publish.VerifyOption
		wantErr                       string
	}{
		{name: "by tag", image: repo + ":sha-" + sha, identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer},
		{name: "by digest", image: repo + "@" + signed, identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer},
		{name: "with the registry login", image: repo + ":dev", identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer,
			opts: []publish.VerifyOption{publish.WithRegistryLogin(v.target)}},
		{name: "wrong identity", image: repo + ":dev", identity: `^https://github\.com/someone-else/.*$`, issuer: publishtest.Issuer, wantErr: "exit code 1"},
		{name: "wrong issuer", image: repo + ":dev", identity: publishtest.IdentityRegexp, issuer: "https://accounts.google.com", wantErr: "exit code 1"},
		{name: "unsigned image", image: repo + ":unsigned", identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer, wantErr: "exit code 1"},
		{name: "tampered digest", image: repo + "@" + swapped, identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer, wantErr: "exit code 1"},
		// The test Sigstore embeds one SCT, as Fulcio does: requiring two fails.
		{name: "more certificate transparency timestamps than issued", image: repo + ":dev", identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer, opts: []publish.VerifyOption{publish.WithMinSCTs(2)}, wantErr: "exit code 1"},
		{name: "tag that does not exist", image: repo + ":nope", identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer, wantErr: "404"},
		{name: "no tag", image: repo, identity: publishtest.IdentityRegexp, issuer: publishtest.Issuer, wantErr: "has no tag"},
		{name: "identity is no regexp", image: repo + ":dev", identity: `(`, issuer: publishtest.Issuer, wantErr: "not a regular expression"},
		{name: "identity not anchored", image: repo + ":dev", identity: `github\.com/elixir-cloud-aai/tesk-core/`, issuer: publishtest.Issuer, wantErr: "not anchored"},
		{name: "no issuer", image: repo + ":dev", identity: publishtest.IdentityRegexp, wantErr: "the signer's OIDC issuer are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The production default: at least one SCT.
			got, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, tt.image, tt.identity, tt.issuer, root, tt.opts...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				v.noSecrets(t, err.Error())
				return
			}
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if got.Digest != signed || got.Ref != repo+"@"+signed || len(got.Verified) != 3 {
				t.Fatalf("verification %s", jsonOf(t, got))
			}
			for _, x := range got.Verified {
				if x.Identity != publishtest.Identity || x.Issuer != publishtest.Issuer || x.Referrer == "" {
					t.Errorf("verified %+v", x)
				}
			}
		})
	}
	// What the command said for the rejections is in the error, for the user.
	_, err = publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, repo+"@"+swapped, publishtest.IdentityRegexp, publishtest.Issuer, root)
	if err == nil || !strings.Contains(err.Error(), swapped) {
		t.Errorf("the rejection of the swapped image does not name it: %v", err)
	}
}

func TestVerifyUsesThePinnedPublicRoot(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	w.Registry.Push(t, v.repo("filer"), w.Image(t, "filer"))
	w.Registry.Tag(t, v.repo("filer"), "dev", w.Digest(t, "filer"))
	// The public-good root cannot be fetched offline: the command's answer is programmed,
	// and the test checks what it was given, the pinned root fetched by its digest.
	v.e.OnExec(engine.ExecRule{ArgsContain: "supplychain verify", ExitCode: 1, Stderr: "supplychain verify: no verified signature"})
	_, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, v.repo("filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, publish.PublicGoodTrustedRoot(v.c))
	if err == nil || !strings.Contains(err.Error(), "no verified signature") {
		t.Fatalf("err = %v, want the command's refusal", err)
	}
	var found bool
	for _, x := range v.e.Graph().ExecsWith("supplychain verify") {
		for _, m := range x.Mounts {
			if strings.Contains(m.Source, publish.PublicGoodTrustedRootURL) && strings.Contains(m.Source, "sha256:"+publish.PublicGoodTrustedRootSHA256) {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("no verify exec mounted the pinned public-good root:\n%s", v.e.Graph())
	}
}

func TestAnchored(t *testing.T) {
	tests := []struct {
		re string
		ok bool
	}{
		{`^https://github\.com/elixir-cloud-aai/tesk-core/\.github/workflows/release\.yml@refs/tags/v[0-9][0-9A-Za-z.+-]*$`, true},
		{publishtest.IdentityRegexp, true},
		{`^(a|b)$`, true},
		{`^https://github\.com/o/r/\.github/workflows/release\.yml@refs/tags/v`, false},
		{`https://github\.com/o/r/.*$`, false},
		{`github\.com/o/r/`, false},
		{`^a|b$`, false},
		{`^a$|b`, false},
		{`^a\$`, false},
		{`(?m)^a$`, false},
		{`(`, false},
		{``, false},
	}
	for _, tt := range tests {
		if got := publish.Anchored(tt.re); got != tt.ok {
			t.Errorf("Anchored(%q) = %v, want %v", tt.re, got, tt.ok)
		}
	}
}
