package publish_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"dagger.io/dagger"

	"dagger/shipyard/internal/pins"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/trust"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// acme is a made-up third system: one image, widget, built by its own graph and published
// under its own policy (a version tag alone, its own scanner with its own rules, its own
// release workflow signing). It imports publishing and nothing of tesk-core or Cloudcoil.
const (
	acmeOrg      = "acme"
	acmeRepo     = "acme/widget"
	acmeWorkflow = acmeRepo + "/.github/workflows/release.yml@refs/tags/v2.4.0"
	acmeCommit   = "89abcdef0123456789abcdef0123456789abcdef"
)

// acmeScanner is acme's scanner: its policy passes an image unless its report names a
// finding it blocks; it runs no tool, and its verdicts are publishing's neutral ones.
type acmeScanner struct {
	c       *dagger.Client
	blocked map[string]string // image name → the finding that blocks it
}

func (s acmeScanner) IgnoreFile(context.Context) ([]byte, error) { return []byte{}, nil }

func (s acmeScanner) Scan(_ context.Context, targets []publish.ScanItem, _ []byte) (*dagger.Directory, []publish.ScanVerdict, error) {
	reports := s.c.Directory()
	var verdicts []publish.ScanVerdict
	var failed []string
	for _, t := range targets {
		v := publish.ScanVerdict{Name: t.Name, Passed: true, Summary: "acme policy: nothing blocks " + t.Ref}
		if f, ok := s.blocked[t.Name]; ok {
			v.Passed, v.Summary = false, "acme policy: "+f+" blocks "+t.Ref
			failed = append(failed, t.Name)
		}
		reports = reports.WithNewFile(t.Name+".txt", v.Summary+"\n")
		verdicts = append(verdicts, v)
	}
	if len(failed) > 0 {
		return reports, verdicts, fmt.Errorf("acme policy blocks %s", strings.Join(failed, ", "))
	}
	return reports, verdicts, nil
}

func (s acmeScanner) SBOM(t publish.ScanItem) *dagger.File {
	return s.c.Directory().WithNewFile("sbom.cdx.json", publishtest.SBOM(t.Name)).File("sbom.cdx.json")
}

func (s acmeScanner) Fix() string { return "move widget to a base without the finding acme names" }

func (s acmeScanner) ReportOnly(reports *dagger.Directory, _ string) *dagger.Directory {
	return reports
}

// A third system publishes through publish without a change to the package: acme's widget
// is pushed by digest, scanned by acme's scanner, attested with its SBOM, signed, verified
// with acme's signer, and tagged under acme's tag policy (its version, its latest tag
// "stable", and for a commit of its branch main, "git-<commit>" and "edge"), by the steps
// tesk-core's images take; and acme's scanner's verdict stops it before anything is signed
// or tagged.
func TestAThirdSystemPublishesThroughTheSamePackage(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	e := engine.New(t, engine.StrictExecs())
	e.ExpectExecs(publishExecs...)
	c := e.Client(ctx)
	w.Install(t, e, "widget")
	src := c.Directory().WithNewFile("containers/widget.Dockerfile", "FROM scratch\nCOPY widget /widget\n").WithNewFile("widget", "acme")
	widget := publish.Artifact{Name: "widget", Repository: "widget",
		Image:  src.DockerBuild(dagger.DirectoryDockerBuildOpts{Dockerfile: "containers/widget.Dockerfile"}).AsTarball(),
		Recipe: publish.Recipe{Dockerfile: "containers/widget.Dockerfile"}}

	level := trust.ReleaseAt("acme", trust.SecretOf("acme-credential"))
	supplychain := c.Host().Directory(publishtest.SupplychainSource(t))
	target := publish.Target{Registry: w.Registry.Host, Org: acmeOrg, Username: w.Username,
		Password:     c.SetSecret(publishtest.RegistryPasswordSecret, w.Password),
		RegistryTool: publish.BuildRegistryTool(c, supplychain, pins.DefaultPins(), level),
		Tags:         acmeTags}
	token := publishtest.Token(map[string]any{"iss": publishtest.Issuer, "sub": "repo:" + acmeRepo + ":ref:refs/tags/v2.4.0",
		"job_workflow_ref": acmeWorkflow, "aud": "sigstore", "exp": time.Now().Add(30 * time.Minute).Unix()})
	w.SetSecret("acme-oidc-token", token)
	sign := publish.SignInputs{
		Tool:        publish.BuildTool(c, supplychain, pins.DefaultPins(), level),
		OIDCToken:   c.SetSecret("acme-oidc-token", token),
		FulcioURL:   w.Sigstore.URL,
		RekorURL:    w.Sigstore.URL,
		TrustedRoot: c.Host().File(w.Sigstore.TrustedRoot),
		Provenance: publish.Origin{SourceRepository: "https://github.com/" + acmeRepo, GitHub: map[string]string{
			"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": acmeRepo, "GITHUB_WORKFLOW_REF": acmeWorkflow,
			"GITHUB_EVENT_NAME": "push", "GITHUB_RUN_ID": "77", "GITHUB_RUN_ATTEMPT": "1", "RUNNER_ENVIRONMENT": "github-hosted",
		}}.Provenance("refs/tags/v2.4.0", acmeCommit),
	}
	release := func(scanner acmeScanner) (*publish.ImageState, error) {
		s := &publish.ImageState{Target: target, Signing: sign, Scanner: scanner, Built: []publish.Artifact{widget},
			Version: "2.4.0", Tags: []string{"2.4.0"}, Latest: true,
			StillLatest: func(context.Context) (bool, []string, error) { return true, nil, nil }}
		return s, publish.Alone(ctx, "acme-release", s, publish.StepPush, publish.StepScan, publish.StepAttest,
			publish.StepSBOM, publish.StepSign, publish.StepVerifySigned, publish.StepTag)
	}
	repo := w.Registry.Host + "/" + acmeOrg + "/widget"

	// acme's policy blocks the image: the run stops at the scan, in acme's words, with the
	// digest pushed (untagged) and nothing attached or tagged.
	s, err := release(acmeScanner{c: c, blocked: map[string]string{"widget": "ACME-2026-1"}})
	if err == nil || !strings.Contains(err.Error(), "acme-release: scan-digests: acme policy blocks widget") ||
		!strings.Contains(err.Error(), "if its policy blocks an image, move widget to a base without the finding acme names, and build again") {
		t.Fatalf("a blocked scan: %v", err)
	}
	if len(s.Scans) != 1 || s.Scans[0].Passed || !strings.Contains(s.Scans[0].Summary, "ACME-2026-1") {
		t.Errorf("verdicts %+v, want acme's failing one", s.Scans)
	}
	if tags := w.Registry.Tags(t, repo); len(tags) != 0 {
		t.Errorf("tags %v after a blocked scan, want none", tags)
	}
	if refs := w.Registry.Referrers(t, repo, s.Pushed[0].Digest); len(refs) != 0 {
		t.Errorf("referrers %v after a blocked scan, want none", refs)
	}

	// The policy passes it: the whole chain runs, and acme's tag points at the digest.
	s, err = release(acmeScanner{c: c})
	if err != nil {
		t.Fatalf("acme's release: %v", err)
	}
	digest := s.Pushed[0].Digest
	if tags := w.Registry.Tags(t, repo); s.Pushed[0].Ref() != repo+"@"+digest || tags["2.4.0"] != digest || tags["stable"] != digest || tags["latest"] != "" {
		t.Errorf("pushed %s, tags %v, want 2.4.0 and stable on it, and no latest", s.Pushed[0].Ref(), tags)
	}
	kinds := map[string]int{}
	for _, ev := range s.Evidence {
		kinds[ev.Kind]++
	}
	if kinds[publish.KindAttestation] != 1 || kinds[publish.KindSBOM] != 1 || kinds[publish.KindSignature] != 1 {
		t.Errorf("evidence %v, want one provenance, one SBOM and one signature", kinds)
	}
	if len(s.Verified) != 1 || len(s.Verified[0].Verified) != 3 {
		t.Fatalf("verified %+v, want the three bundles of the one image", s.Verified)
	}
	for _, v := range s.Verified[0].Verified {
		if v.Identity != "https://github.com/"+acmeWorkflow {
			t.Errorf("%s verified as signed by %s, want acme's release workflow", v.PredicateType, v.Identity)
		}
	}
	if refs := w.Registry.Referrers(t, repo, digest); len(refs) != 3 {
		t.Errorf("referrers %v, want the three bundles", refs)
	}

	// A commit of acme's branch: its commit tag and the branch tag, after the branch's order
	// is asked about the commit; tesk-core's names are not acme's tags.
	var asked string
	onMain := func(_ context.Context, commit string) (publish.BranchHistory, error) {
		asked = commit
		return publish.BranchHistory{Commit: commit, OnBranch: true, Complete: true}, nil
	}
	if _, err := publish.TagImages(ctx, "acme-edge", target, s.Pushed, []string{"edge", "git-" + acmeCommit}, onMain); err != nil {
		t.Fatalf("acme's branch tags: %v", err)
	}
	if tags := w.Registry.Tags(t, repo); tags["edge"] != digest || tags["git-"+acmeCommit] != digest || asked != acmeCommit {
		t.Errorf("tags %v after asking about %q, want edge and git-%s on %s", tags, asked, acmeCommit, digest)
	}
	for _, tags := range [][]string{{"dev", "sha-" + acmeCommit}, {"edge"}, {"stable"}} {
		if _, err := publish.TagImages(ctx, "acme-edge", target, s.Pushed, tags, onMain); err == nil {
			t.Errorf("tagging %v under acme's policy succeeded", tags)
		}
	}
}

// acmeTags is acme's tag policy: stable follows its highest release, edge the newest
// commit of main, and git-<commit> names one commit's image.
var acmeTags = publish.TagPolicy{Latest: "stable", BranchTag: "edge", Branch: "main", CommitPrefix: "git-"}
