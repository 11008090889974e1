package release

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/teskrepo"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// manifestPut matches a registry write of a manifest by tag (not by digest) for a tag.
func manifestPut(image, tag string) func(*http.Request) bool {
	re := regexp.MustCompile(`/tesk-core-` + image + `/manifests/` + regexp.QuoteMeta(tag) + `$`)
	return func(r *http.Request) bool { return r.Method == http.MethodPut && re.MatchString(r.URL.Path) }
}

// releaseFault is a fault injected into the release of v0.11.0, and what it leaves.
type releaseFault struct {
	name string
	// inject sets the fault up; clear removes what outlives the engine.
	inject func(w *world)
	clear  func(w *world)
	// step is the step that fails; "" when the run survives the fault.
	step string
	// message is part of the error.
	message string
	// beforePush: nothing may have been published; noTags: nothing may have been tagged.
	beforePush, noTags bool
	// tagged is an image the failed run had tagged already.
	tagged string
	// noLatest: no image may carry latest after the failed run (it moves for all or none).
	noLatest bool
}

// releaseFaults are the faults at each step of the release.
func releaseFaults() []releaseFault {
	return []releaseFault{
		{
			name: "build", step: StepBuild, beforePush: true, message: "pip wheel",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnField(engine.FieldRule{Type: "Container", Field: "sync", ChainContains: "containers/filer.Dockerfile",
						Err: `process "/bin/sh -c pip wheel --no-deps --wheel-dir /wheels ." did not complete successfully: exit code: 1`})
				}
			},
		},
		{
			name: "version check", step: StepVersion, beforePush: true, message: `reports version "0.0.0.dev0"`,
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{ArgsContain: "importlib.metadata", Stdout: "0.0.0.dev0\n"})
				}
			},
		},
		{
			name: "push", step: StepPush, noTags: true, message: "push-by-digest",
			inject: func(w *world) {
				w.pub.Registry.FailNext(1000, http.StatusForbidden, func(r *http.Request) bool {
					return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/sha256:")
				})
			},
			clear: func(w *world) { w.pub.Registry.FailNext(0, 0, func(*http.Request) bool { return false }) },
		},
		{
			name: "scan", step: StepScan, noTags: true, message: "trivy",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{ArgsContain: "trivy image", ExitCode: 1, Stderr: "FATAL: failed to download the vulnerability DB"})
				}
			},
		},
		{
			name: "attest", step: StepAttest, noTags: true, message: "attest",
			inject: func(w *world) {
				w.pub.Sigstore.SetFaults(w.t, &publishtest.Fault{Status: http.StatusServiceUnavailable, Message: "fulcio is down"}, nil)
			},
			clear: func(w *world) { w.pub.Sigstore.SetFaults(w.t, nil, nil) },
		},
		{
			name: "SBOM", step: StepSBOM, noTags: true, message: "unable to find the image",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{ArgsContain: publishtest.SBOMExec, ExitCode: 1, Stderr: "FATAL unable to find the image"})
				}
			},
		},
		{
			name: "SBOM signing", step: StepSBOM, noTags: true, message: "attest",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{
						Match: func(x engine.Exec) bool {
							return slices.Contains(x.Args, "supplychain") && slices.Contains(x.Args, "--sbom")
						},
						ExitCode: 1, Stderr: "supplychain attest: rekor: 502 Bad Gateway",
					})
				}
			},
		},
		{
			name: "sign", step: StepSign, noTags: true, message: "sign",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{
						Match:    func(x engine.Exec) bool { return len(x.Args) > 1 && x.Args[0] == "supplychain" && x.Args[1] == "sign" },
						ExitCode: 1, Stderr: "supplychain sign: rekor: 502 Bad Gateway",
					})
				}
			},
		},
		{
			// sign claims a signature it did not attach: the check with the signer's
			// identity stops the release before any tag moves.
			name: "sign reports a signature that is not there", step: StepVerifySigned, noTags: true, message: "no verified bundle",
			inject: func(w *world) {
				w.program = func(e *engine.Engine) {
					e.OnExec(engine.ExecRule{
						Match: func(x engine.Exec) bool { return len(x.Args) > 1 && x.Args[0] == "supplychain" && x.Args[1] == "sign" },
						Run: func(x engine.Exec) (string, string, int) {
							image := x.Args[slices.Index(x.Args, "--image")+1]
							_, digest, _ := strings.Cut(image, "@")
							return `{"step":"sign","image":"` + image + `","digest":"` + digest + `","predicateType":"https://sigstore.dev/cosign/sign/v1",` +
								`"referrer":"sha256:` + strings.Repeat("e", 64) + `","created":false,"identity":"` + publishtest.Identity + `","issuer":"` + publishtest.Issuer + `"}`, "", 0
						},
					})
				}
			},
		},
		{
			name: "attestation store down", step: StepStoreAttestations, noTags: true, message: "attestation of",
			inject: func(w *world) {
				w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/attestations", githubsim.BadGateway(0))
			},
			clear: func(w *world) { w.repo.Sim.ClearFaults() },
		},
		{
			name: "attestation store refuses the token", step: StepStoreAttestations, noTags: true, message: "needs `permissions: attestations: write`",
			inject: func(w *world) {
				w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/attestations", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusForbidden})
			},
			clear: func(w *world) { w.repo.Sim.ClearFaults() },
		},
		{
			// Each upload is stored, but its answer never arrives: the store is read again,
			// the bundle found there, and nothing is uploaded twice.
			name: "attestation upload whose answer is lost, every time",
			inject: func(w *world) {
				w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/attestations", githubsim.Fault{
					Kind: githubsim.FaultStatus, Status: http.StatusGatewayTimeout, AfterEffect: true,
				})
			},
			clear: func(w *world) { w.repo.Sim.ClearFaults() },
		},
		{
			name: "tag, after the other image was tagged", step: StepTag, message: "write tag 0.11.0", tagged: "filer",
			inject: func(w *world) {
				w.pub.Registry.FailNext(1000, http.StatusForbidden, manifestPut("taskmaster", "0.11.0"))
			},
			clear: func(w *world) { w.pub.Registry.FailNext(0, 0, func(*http.Request) bool { return false }) },
		},
		{
			name: "tag, latest of the second image", step: StepTag, message: "write latest", noLatest: true,
			inject: func(w *world) {
				w.pub.Registry.FailNext(1000, http.StatusForbidden, manifestPut("taskmaster", "latest"))
			},
			clear: func(w *world) { w.pub.Registry.FailNext(0, 0, func(*http.Request) bool { return false }) },
		},
		{
			name: "release creation", step: StepGHRelease, message: "create release v0.11.0",
			inject: func(w *world) {
				w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/releases", githubsim.BadGateway(0))
			},
			clear: func(w *world) { w.repo.Sim.ClearFaults() },
		},
		{
			name: "release creation whose answer is lost, every time",
			inject: func(w *world) {
				w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/releases", githubsim.Fault{
					Kind: githubsim.FaultStatus, Status: http.StatusGatewayTimeout, AfterEffect: true,
				})
			},
			clear: func(w *world) { w.repo.Sim.ClearFaults() },
		},
	}
}

// TestFaultAtEachStepThenRerun injects a fault at each step of the release of v0.11.0, then
// re-runs the release on a fresh engine with the fault gone: the re-run completes, no
// published tag moved, each digest carries one attestation, one SBOM and one signature, and there is
// exactly one GitHub release. Faults before the push leave the registry and GitHub as they
// were.
func TestFaultAtEachStepThenRerun(t *testing.T) {
	t.Parallel() // with the slow-build token test, which mostly waits
	for _, tt := range releaseFaults() {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, teskrepo.Options{})
			w.repo.Release("v0.11.0")
			tt.inject(w)
			w.freshEngine()
			rep, err := w.run("v0.11.0", Options{})
			switch {
			case tt.step == "" && err != nil:
				t.Fatalf("the run did not survive the fault: %v", err)
			case tt.step != "" && (flow.FailedStep(err) != tt.step || rep.Failed != tt.step):
				t.Fatalf("failed at %q (report %q), want %q: %v", flow.FailedStep(err), rep.Failed, tt.step, err)
			case tt.step != "" && !strings.Contains(err.Error(), tt.message):
				t.Errorf("error lacks %q: %v", tt.message, err)
			case tt.step != "" && !strings.Contains(err.Error(), "\n  next: "):
				t.Errorf("error says nothing about what to do next: %v", err)
			}
			if err != nil {
				w.assertNoSecrets(err.Error(), rep.Text())
			}
			if tt.beforePush {
				if n := w.registryWrites(); n != 0 {
					t.Errorf("a fault before the push left %d registry write(s)", n)
				}
				if len(w.releasesOf("v0.11.0")) != 0 {
					t.Error("a fault before the push created a release")
				}
			}
			published := map[string]map[string]string{}
			for _, n := range teskImages {
				published[n] = w.tags(n)
				if (tt.beforePush || tt.noTags) && len(published[n]) > 0 {
					t.Errorf("a fault before tagging left tags on %s: %v", n, published[n])
				}
			}
			if tt.noLatest {
				for _, n := range teskImages {
					if d, ok := published[n]["latest"]; ok {
						t.Errorf("%s carries latest (%s) after the failed run: latest must move for every image or none", n, d)
					}
				}
			}
			if tt.tagged != "" && published[tt.tagged]["0.11.0"] == "" {
				t.Errorf("the failed run was to have tagged %s: %v", tt.tagged, published)
			}
			if tt.noTags && len(w.releasesOf("v0.11.0")) != 0 {
				t.Error("a fault before tagging created a release")
			}

			if tt.clear != nil {
				tt.clear(w)
			}
			w.program = nil
			if tt.step != "" {
				if rep, err = w.rerun("v0.11.0"); err != nil {
					t.Fatalf("re-run: %v\nlog:\n%s", err, w.log.String())
				}
			}
			stored := storedBySubject(t, w)
			for _, n := range teskImages {
				tags := w.tags(n)
				for tag, d := range published[n] {
					if tags[tag] != d {
						t.Errorf("%s:%s moved from %s to %s", n, tag, d, tags[tag])
					}
				}
				digest := w.pub.Digest(t, n)
				if tags["0.11.0"] != digest || tags["latest"] != digest {
					t.Errorf("%s tags %v, want 0.11.0 and latest on %s", n, tags, digest)
				}
				if a, b, s := w.bundles(n, digest); a != 1 || b != 1 || s != 1 {
					t.Errorf("%s carries %d attestation(s), %d SBOM(s) and %d signature(s), want one each", n, a, b, s)
				}
				if got := stored[digest]; got != 2 {
					t.Errorf("%s: %d bundle(s) in GitHub's attestation store, want its provenance and SBOM once each", n, got)
				}
			}
			for subject, n := range stored {
				if n != 2 {
					t.Errorf("%s: %d bundle(s) in GitHub's attestation store, want its provenance and SBOM once each", subject, n)
				}
			}
			if rels := w.releasesOf("v0.11.0"); len(rels) != 1 || rels[0].Draft {
				t.Errorf("releases of v0.11.0: %+v", rels)
			}
			if rep.Release.Outcome != "created" && rep.Release.Outcome != "kept" {
				t.Errorf("release outcome %q", rep.Release.Outcome)
			}
		})
	}
}

// TestRerunAfterTheReleaseWasCreated: the GitHub step failed as far as the workflow knows,
// but the release exists; re-running that step alone passes without changes.
func TestRerunAfterTheReleaseWasCreated(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	// The whole release ran, but the job died before it could report: its record is the
	// release it created.
	if _, err := w.run("v0.11.0", Options{}); err != nil {
		t.Fatal(err)
	}
	writes := w.ghWrites()
	w.freshEngine()
	w.serve("v0.11.0")
	rel, err := ReleaseJob(context.Background(), w.config(), "v0.11.0")
	if err != nil || rel.Outcome != "kept" || rel.URL == "" {
		t.Fatalf("%+v, %v", rel, err)
	}
	if w.ghWrites() != writes || len(w.releasesOf("v0.11.0")) != 1 {
		t.Error("the re-run changed GitHub")
	}
}

// TestExistingReleaseWithOtherContentStops: releases are never edited, so a release of the
// tag made by hand stops the GitHub step, whatever the images did.
func TestExistingReleaseWithOtherContentStops(t *testing.T) {
	tests := []struct {
		name string
		rel  githubsim.Release
		want string
	}{
		{"hand-written body", githubsim.Release{TagName: "v0.11.0", Name: "v0.11.0", Body: "Fixed things.", Prerelease: true}, "the body differs from line 1"},
		{"other title", githubsim.Release{TagName: "v0.11.0", Name: "tesk-core 0.11.0", Prerelease: true}, `title "tesk-core 0.11.0", expected "v0.11.0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, teskrepo.Options{})
			w.repo.Release("v0.11.0")
			w.serve("v0.11.0")
			// Before the images are published, the GitHub step refuses to run.
			if _, err := ReleaseJob(context.Background(), w.config(), "v0.11.0"); flow.FailedStep(err) != StepPlan || !strings.Contains(err.Error(), ":0.11.0 is not published") {
				t.Fatalf("GitHub step before the images: %v", err)
			}
			if _, err := PublishJobFromScratch(t, w, "v0.11.0"); err != nil {
				t.Fatal(err)
			}
			// Someone creates the release by hand meanwhile: the content check stops the step.
			w.repo.GH.AddRelease(tt.rel)
			before := w.ghWrites()
			_, err := ReleaseJob(context.Background(), w.config(), "v0.11.0")
			var se *flow.Error
			if !errors.As(err, &se) || se.Step != StepGHRelease || se.Next != nextNeverEdited || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q with %q", err, tt.want, nextNeverEdited)
			}
			if w.ghWrites() != before {
				t.Error("the step edited GitHub")
			}
		})
	}
}

// PublishJobFromScratch runs the image jobs (push, scan, publish) of tag, as the workflow does.
func PublishJobFromScratch(t *testing.T, w *world, tag string) (Report, error) {
	t.Helper()
	ctx := context.Background()
	cfg := w.config()
	h, err := PushJob(ctx, cfg, tag)
	if err != nil {
		return Report{}, err
	}
	scanned, _, err := ScanJob(ctx, cfg, h)
	if err != nil {
		return Report{}, err
	}
	return PublishJob(ctx, cfg, scanned, h)
}

// TestNonReproducibleRebuildStops: the version is published on one digest; a re-run whose
// build gives another digest stops before signing anything, and says to release a higher
// version.
func TestNonReproducibleRebuildStops(t *testing.T) {
	w := newWorld(t, teskrepo.Options{})
	w.repo.Release("v0.11.0")
	w.repo.Sim.InjectFault(http.MethodPost, "/repos/*/*/releases", githubsim.BadGateway(0))
	if _, err := w.run("v0.11.0", Options{}); flow.FailedStep(err) != StepGHRelease {
		t.Fatalf("first run: %v", err)
	}
	w.repo.Sim.ClearFaults()
	before := map[string]map[string]string{}
	for _, n := range teskImages {
		before[n] = w.tags(n)
	}
	w.pub.Rebuild("filer")
	rep, err := w.rerun("v0.11.0")
	var se *flow.Error
	if !errors.As(err, &se) || se.Step != StepPush || se.Next != nextHigherVersion || !strings.Contains(err.Error(), "release a higher version") {
		t.Fatalf("re-run with another digest: %v", err)
	}
	if rep.Release.Outcome != "planned" || len(w.releasesOf("v0.11.0")) != 0 {
		t.Error("the release was created")
	}
	for _, n := range teskImages {
		if got := w.tags(n); !maps.Equal(got, before[n]) {
			t.Errorf("%s tags %v, were %v", n, got, before[n])
		}
	}
	if a, s := w.evidence("filer", w.pub.Digest(t, "filer")); a != 0 || s != 0 {
		t.Error("the new digest was attested or signed")
	}
}

// storedBySubject counts the bundles of the repository's attestation store by the digest
// each attests.
func storedBySubject(t *testing.T, w *world) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, b := range w.repo.GH.Attestations() {
		subjects, err := github.AttestationSubjects(b)
		if err != nil {
			t.Fatalf("the store holds %.80s…: %v", b, err)
		}
		for _, s := range subjects {
			out[s]++
		}
	}
	return out
}
