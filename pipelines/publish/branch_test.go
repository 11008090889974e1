package publish_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

const (
	provenanceReferrer = "application/vnd.dev.sigstore.bundle.v0.3+json https://slsa.dev/provenance/v1"
	signatureReferrer  = "application/vnd.dev.sigstore.bundle.v0.3+json https://sigstore.dev/cosign/sign/v1"
	sbomReferrer       = "application/vnd.dev.sigstore.bundle.v0.3+json https://cyclonedx.org/bom"
)

func TestPublishDevEndToEnd(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)

	res, err := publish.PublishBranch(ctx, v.dev, sha)
	if err != nil {
		t.Fatalf("publish-dev: %v", err)
	}
	for _, n := range imageNames {
		d := w.Digest(t, n)
		if res.Digests[n] != d {
			t.Errorf("%s: digest %s, want the built image's %s", n, res.Digests[n], d)
		}
		want := map[string]string{"sha-" + sha: d, "dev": d}
		if got := w.Registry.Tags(t, v.repo(n)); !reflect.DeepEqual(got, want) {
			t.Errorf("%s tags %v, want %v", n, got, want)
		}
		refs := w.Registry.Referrers(t, v.repo(n), d)
		slices.Sort(refs)
		if want := []string{sbomReferrer, signatureReferrer, provenanceReferrer}; !reflect.DeepEqual(refs, want) {
			t.Errorf("%s referrers %v, want %v", n, refs, want)
		}
	}
	if len(res.Evidence) != 6 || len(res.Scanned) != 2 || len(res.Tags) != 2 {
		t.Fatalf("result %s", jsonOf(t, res))
	}
	for _, ev := range res.Evidence {
		if !ev.Created || ev.Identity != publishtest.Identity || ev.Issuer != publishtest.Issuer || ev.Digest != w.Digest(t, ev.Name) {
			t.Errorf("evidence %+v", ev)
		}
	}

	// The attest exec carries the build: Dockerfile, build argument, source, workflow.
	var attest []string
	for _, run := range w.Runs() {
		if run[1] == "attest" && !slices.Contains(run, "--sbom") && slices.Contains(run, v.repo("filer")+"@"+w.Digest(t, "filer")) {
			attest = run
		}
	}
	for _, want := range []string{"--dockerfile containers/filer.Dockerfile", "--build-arg SETUPTOOLS_SCM_PRETEND_VERSION=0.0.0.dev0",
		"--source-commit " + sha, "--github-workflow-ref " + publishtest.WorkflowRef, "--base-image " + pinnedBase} {
		if !strings.Contains(strings.Join(attest, " "), want) {
			t.Errorf("attest exec %q lacks %q", attest, want)
		}
	}
	v.noSecrets(t, jsonOf(t, res))
	if strings.Contains(w.Registry.Seen(), w.Token[20:60]) {
		t.Error("the OIDC token reached the registry")
	}

	// A user verifies what was published, by tag.
	root := v.c.Host().File(w.Sigstore.TrustedRoot)
	got, err := publish.Verify(ctx, "verify", v.sign.Tool, v.target.RegistryTool, v.repo("filer")+":dev", publishtest.IdentityRegexp, publishtest.Issuer, root)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got.Digest != w.Digest(t, "filer") || len(got.Verified) != 3 || !strings.Contains(got.Text(), "SLSA build provenance by "+publishtest.Identity) ||
		!strings.Contains(got.Text(), "CycloneDX SBOM by "+publishtest.Identity) {
		t.Errorf("verification %s\n%s", jsonOf(t, got), got.Text())
	}

	// Re-running the whole flow (a new job, a new engine) changes nothing.
	writes := len(w.Registry.Writes())
	certs, entries := w.Sigstore.Counts(t)
	again, err := publish.PublishBranch(ctx, newEnv(t, w).dev, sha)
	if err != nil {
		t.Fatalf("re-run: %v", err)
	}
	if extra := w.Registry.Writes()[writes:]; len(extra) != 0 {
		t.Errorf("the re-run wrote to the registry: %v", extra)
	}
	if c, e := w.Sigstore.Counts(t); c != certs || e != entries {
		t.Errorf("the re-run signed again: %d certificates, %d entries (were %d, %d)", c, e, certs, entries)
	}
	for _, ev := range again.Evidence {
		if ev.Created {
			t.Errorf("re-run created %+v", ev)
		}
	}
	for _, r := range again.Tags {
		if len(r.Written) != 0 || len(r.Kept) != 2 {
			t.Errorf("re-run tags %+v", r)
		}
	}
}

// Every fault stops the flow before any tag is written, and a re-run after the fault is
// gone (a new job: a new engine on the same registry and Sigstore) finishes the job.
func TestPublishDevFaultsStopBeforeTagging(t *testing.T) {
	buster := string(corpus.Read(t, "trivy", "debian-buster.json"))
	tests := []struct {
		name    string
		inject  func(t *testing.T, w *publishtest.World, v *env)
		clear   func(t *testing.T, w *publishtest.World)
		step    string // the step that fails
		wantErr string
		// wantNext is in the advice after the error, when given.
		wantNext string
	}{
		{
			name: "registry fails mid-push", step: publish.StepPush,
			inject: func(t *testing.T, w *publishtest.World, v *env) {
				// 507 is not retried, so the failure reaches the step at once.
				w.Registry.FailNext(100, http.StatusInsufficientStorage, func(r *http.Request) bool {
					return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "tesk-core-taskmaster/manifests/")
				})
			},
			clear:   func(t *testing.T, w *publishtest.World) { w.Registry.FailNext(0, 0, nil) },
			wantErr: "push-by-digest: taskmaster: ",
		},
		{
			name: "scan finds a fixable CRITICAL", step: publish.StepScan,
			inject: func(t *testing.T, w *publishtest.World, v *env) {
				v.e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: buster})
			},
			// tesk-core's scanner words the way out (the ignore file), not publishing.
			wantErr:  "image filer has fixable CRITICAL or HIGH vulnerabilities",
			wantNext: "accept a finding in .trivyignore.yaml with a statement and an expiry), and push again",
		},
		{
			name:    "OIDC token missing",
			step:    publish.StepInputs,
			inject:  func(t *testing.T, w *publishtest.World, v *env) { v.dev.Signing.OIDCToken = nil },
			wantErr: "no OIDC token",
		},
		{
			name: "OIDC token expired", step: publish.StepAttest,
			inject: func(t *testing.T, w *publishtest.World, v *env) {
				v.dev.Signing.OIDCToken = v.c.SetSecret(publishtest.ExpiredTokenSecret, w.ExpiredToken)
			},
			wantErr: "OIDC token",
		},
		{
			name: "Fulcio fails", step: publish.StepAttest,
			inject: func(t *testing.T, w *publishtest.World, v *env) {
				w.Sigstore.SetFaults(t, &publishtest.Fault{Status: http.StatusForbidden, Message: "fulcio refuses the request"}, nil)
			},
			clear:   func(t *testing.T, w *publishtest.World) { w.Sigstore.SetFaults(t, nil, nil) },
			wantErr: "fulcio refuses the request",
		},
		{
			name: "Rekor fails", step: publish.StepAttest,
			inject: func(t *testing.T, w *publishtest.World, v *env) {
				w.Sigstore.SetFaults(t, nil, &publishtest.Fault{Status: http.StatusBadRequest, Message: "rekor is read-only"})
			},
			clear:   func(t *testing.T, w *publishtest.World) { w.Sigstore.SetFaults(t, nil, nil) },
			wantErr: "rekor is read-only",
		},
	}
	for _, tt := range tests {
		if !slices.Contains(publish.BranchStepNames(), tt.step) {
			t.Errorf("fault %q fails step %q, which publish-dev does not declare: %v", tt.name, tt.step, publish.BranchStepNames())
		}
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			w := publishtest.NewWorld(t)
			v := newEnv(t, w)
			tt.inject(t, w, v)
			_, err := publish.PublishBranch(ctx, v.dev, sha)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "no tag was written") {
				t.Fatalf("err = %v, want %q and that no tag was written", err, tt.wantErr)
			}
			if !strings.Contains(err.Error(), tt.wantNext) {
				t.Errorf("err = %v, want advice with %q", err, tt.wantNext)
			}
			var fe *flow.Error
			if !errors.As(err, &fe) || fe.Flow != "publish-dev" || fe.Step != tt.step {
				t.Errorf("err = %v, want a failure of publish-dev's step %q", err, tt.step)
			}
			flowtest.RequireNamed(t, err, publish.BranchStepNames(), publish.StepNames())
			for n, tags := range v.tags(t) {
				if len(tags) != 0 {
					t.Errorf("%s was tagged despite the fault: %v", n, tags)
				}
			}
			if _, entries := w.Sigstore.Counts(t); entries != 0 {
				t.Errorf("%d transparency log entries despite the fault", entries)
			}
			v.noSecrets(t, err.Error())

			if tt.clear != nil {
				tt.clear(t, w)
			}
			again := newEnv(t, w)
			if _, err := publish.PublishBranch(ctx, again.dev, sha); err != nil {
				t.Fatalf("re-run after the fault: %v", err)
			}
			for _, n := range imageNames {
				d := w.Digest(t, n)
				if got := w.Registry.Tags(t, v.repo(n)); got["dev"] != d || got["sha-"+sha] != d {
					t.Errorf("%s after the re-run: %v", n, got)
				}
				if refs := w.Registry.Referrers(t, v.repo(n), d); len(refs) != 3 {
					t.Errorf("%s referrers after the re-run: %v", n, refs)
				}
			}
		})
	}
}

// A re-run on a fresh engine builds another digest when the build is not reproducible; the
// commit's tag already names the image of that commit, so the re-run keeps it.
func TestPublishDevRerunKeepsTheCommitsImage(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	first, err := publish.PublishBranch(ctx, newEnv(t, w).dev, sha)
	if err != nil {
		t.Fatal(err)
	}
	w.Rebuild("filer")
	v := newEnv(t, w)
	res, err := publish.PublishBranch(ctx, v.dev, sha)
	if err != nil {
		t.Fatalf("re-run with a new build: %v", err)
	}
	if !reflect.DeepEqual(res.Digests, first.Digests) || !reflect.DeepEqual(res.Reused, []string{"filer", "taskmaster"}) {
		t.Errorf("re-run digests %v reused %v, want %v kept", res.Digests, res.Reused, first.Digests)
	}
	if exports := v.e.Graph().Exports(); len(exports) != 0 {
		t.Errorf("the re-run exported images it did not push: %v", exports)
	}

	// A new commit publishes the new build and moves dev to it.
	next := strings.Repeat("b", 40)
	res, err = publish.PublishBranch(ctx, newEnv(t, w).dev, next)
	if err != nil {
		t.Fatal(err)
	}
	filer := v.tags(t)["filer"]
	if filer["dev"] != w.Digest(t, "filer") || filer["sha-"+next] != w.Digest(t, "filer") || filer["sha-"+sha] != first.Digests["filer"] {
		t.Errorf("filer tags %v after commit %s", filer, next)
	}
}
