package main

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demo"
	"dagger/shipyard/internal/demoworld/teskdemo"
	"dagger/shipyard/internal/functions"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
)

// demoWrites calls each function that writes outside the engine (a registry, Sigstore,
// GitHub) as its job would, with arguments it would otherwise accept and not as a dry run:
// one row per function the declarations (internal/functions) mark as writing, which
// TestDemoRefusesEveryWritingFunction holds it to.
func demoWrites() map[string]func(ctx context.Context, m *Shipyard) error {
	const tag = teskdemo.Tag
	image := publish.Pushed{Name: "filer", Repository: "docker.io/elixircloud/tesk-core-filer", Digest: "sha256:" + strings.Repeat("b", 64)}
	digests := `{"filer": "` + image.Ref() + `"}`
	handoff, _ := release.Handoff{Repo: teskdemo.Owner + "/" + teskdemo.Name, Tag: tag, Version: "0.11.0", Commit: strings.Repeat("a", 40), Images: []publish.Pushed{image}}.JSON()
	platform, _ := publish.PlatformHandoff{Repo: teskdemo.Owner + "/" + teskdemo.Name, Tag: tag, Version: "0.11.0", Commit: strings.Repeat("a", 40),
		PlatformPush: publish.PlatformPush{Platform: "linux/amd64", Images: []publish.Pushed{image}}}.JSON()
	devPush, _ := publish.PlatformHandoff{Commit: devSHA, Version: "0.11.0",
		PlatformPush: publish.PlatformPush{Platform: "linux/amd64", Images: []publish.Pushed{image}}}.JSON()
	return map[string]func(ctx context.Context, m *Shipyard) error{
		"push-by-digest": func(ctx context.Context, m *Shipyard) error { _, err := m.PushByDigest(ctx, "", ""); return err },
		"push-platform-by-digest": func(ctx context.Context, m *Shipyard) error {
			_, err := m.PushPlatformByDigest(ctx, "linux/amd64", "", "")
			return err
		},
		"assemble-index": func(ctx context.Context, m *Shipyard) error {
			_, err := m.AssembleIndex(ctx, "["+strings.TrimSpace(devPush)+"]", "", "")
			return err
		},
		"attest": func(ctx context.Context, m *Shipyard) error {
			_, err := m.Attest(ctx, digests, devSHA, "refs/heads/dev", "")
			return err
		},
		"sign": func(ctx context.Context, m *Shipyard) error { _, err := m.Sign(ctx, digests); return err },
		"tag-images": func(ctx context.Context, m *Shipyard) error {
			_, err := m.TagImages(ctx, digests, []string{"sha-" + devSHA})
			return err
		},
		"store-attestations": func(ctx context.Context, m *Shipyard) error {
			_, err := m.StoreAttestations(ctx, digests, "^https://github\\.com/elixir-cloud-aai/tesk-core/.*$", "https://token.actions.githubusercontent.com", nil, 1)
			return err
		},
		"publish-dev": func(ctx context.Context, m *Shipyard) error { _, err := m.PublishDev(ctx, devSHA); return err },
		"release": func(ctx context.Context, m *Shipyard) error {
			_, err := m.Release(ctx, tag, false, "text", "ci.yml", "", "")
			return err
		},
		"release-push": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ReleasePush(ctx, tag, "ci.yml", "", "")
			return err
		},
		"release-push-platform": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ReleasePushPlatform(ctx, tag, "linux/amd64", "ci.yml", "", "")
			return err
		},
		"release-assemble": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ReleaseAssemble(ctx, tag, "["+strings.TrimSpace(platform)+"]", "ci.yml")
			return err
		},
		"release-publish": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ReleasePublish(ctx, handoff, handoff, "json", "ci.yml", "")
			return err
		},
		"release-publish-release": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ReleasePublishRelease(ctx, tag, "text", "ci.yml")
			return err
		},
		"model-release": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ModelRelease(ctx, "1.17.1", false, false, false, strings.Repeat("c", 40), "https://pypi.org")
			return err
		},
		"update-repos": func(ctx context.Context, m *Shipyard) error {
			_, err := m.UpdateRepos(ctx, []string{"keda"}, "cloudcoil", strings.Repeat("c", 40), false)
			return err
		},
		"model-versions": func(ctx context.Context, m *Shipyard) error {
			_, err := m.ModelVersions(ctx, false, "text", "main", "https://pypi.org")
			return err
		},
	}
}

// Every function the declarations mark as writing refuses --demo before anything runs,
// whether the call holds the credentials it writes with or none: the demo world serves no
// registry, Sigstore or GitHub of the project's, so such a call would write to the real
// ones (at the pull-request level, before trust stopped calling --demo a rehearsal). The
// refusal names the function and the way out, and no secret; no exec, service, publish or
// cache volume is recorded. Only a dry run of such a function (--dry-run, --check) runs
// with --demo, as the README's demos do.
func TestDemoRefusesEveryWritingFunction(t *testing.T) {
	t.Parallel()
	calls := demoWrites()
	for _, fn := range functions.Names() {
		d, err := functions.Of(fn)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := calls[fn]; ok != d.Trust.Writes() {
			t.Errorf("%s: writes %t (internal/functions), a row in demoWrites %t: add or drop its row", fn, d.Trust.Writes(), ok)
		}
	}
	for _, fn := range slices.Sorted(maps.Keys(calls)) {
		for _, held := range []string{"every credential", "no credential"} {
			t.Run(fn+"/"+held, func(t *testing.T) {
				t.Parallel()
				m, e := newModule(t, nil)
				m.Demo = true
				if held == "every credential" {
					dag := m.engine()
					m.GithubToken = dag.SetSecret("github-token", "ghp_demo0SECRET")
					m.RegistryUsername, m.RegistryPassword = "bot", dag.SetSecret("registry-password", "dckr_demo0SECRET")
					m = m.WithSigstore(dag.SetSecret("oidc-token", "eyJdemo0SECRET"), nil, nil, "https://fulcio.sigstore.dev", "https://rekor.sigstore.dev", nil, nil, "", "", "")
				}
				err := calls[fn](context.Background(), m)
				if !errors.Is(err, demo.ErrWrites) || !strings.HasPrefix(err.Error(), fn+": ") {
					t.Fatalf("err = %v, want %q refused with demo.ErrWrites", err, fn)
				}
				if strings.Contains(err.Error(), "demo0SECRET") {
					t.Errorf("the refusal shows a secret: %v", err)
				}
				g := e.Graph()
				if len(g.Execs()) != 0 || len(g.Services()) != 0 || len(g.Publishes()) != 0 || len(g.CacheVolumes()) != 0 {
					t.Errorf("refused, yet recorded execs %v, services %v, publishes %v, volumes %v", g.Execs(), g.Services(), g.Publishes(), g.CacheVolumes())
				}
			})
		}
	}
}
