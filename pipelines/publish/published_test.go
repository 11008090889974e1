package publish_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

func TestScanPublished(t *testing.T) {
	ctx := context.Background()
	buster := string(corpus.Read(t, "trivy", "debian-buster.json"))
	w := publishtest.NewWorld(t)
	setup := newEnv(t, w)
	for _, n := range imageNames {
		w.Registry.Push(t, setup.repo(n), w.Image(t, n))
		w.Registry.Tag(t, setup.repo(n), "latest", w.Digest(t, n))
	}
	latest := []string{setup.repo("filer") + ":latest", setup.repo("taskmaster") + ":latest"}

	tests := []struct {
		name    string
		refs    []string
		report  string // filer-latest's report
		fail    bool
		wantErr string
	}{
		{name: "clean", refs: latest, report: cleanReport, fail: true},
		{name: "findings are reported only", refs: latest, report: buster},
		{name: "findings fail with --fail", refs: latest, report: buster, fail: true, wantErr: "image filer-latest has fixable CRITICAL or HIGH"},
		{name: "an image that could not be scanned fails either way", refs: latest, report: "{not json", wantErr: "could not be scanned"},
		{name: "a tag that does not exist", refs: []string{setup.repo("filer") + ":0.9.9"}, report: cleanReport, wantErr: "0.9.9"},
		{name: "no tag", refs: []string{setup.repo("filer")}, report: cleanReport, wantErr: "has no tag"},
		{name: "the same image twice", refs: []string{latest[0], latest[0]}, report: cleanReport, wantErr: "give each image and tag once"},
		{name: "no references", report: cleanReport, wantErr: "pass the image references"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t, w)
			v.e.OnFile(engine.FileRule{Path: "/out/filer-latest.json", Contents: tt.report})
			v.e.OnFile(engine.FileRule{Path: "/out/taskmaster-latest.json", Contents: cleanReport})
			dir, results, err := publish.ScanPublished(ctx, v.scanner, v.p.ImagePrefix, v.target, tt.refs, nil, tt.fail)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(results) != 2 {
				t.Fatalf("results %+v", results)
			}
			raw, err := dir.File("targets.json").Contents(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var targets []publish.PublishedTag
			if err := json.Unmarshal([]byte(raw), &targets); err != nil {
				t.Fatal(err)
			}
			if len(targets) != 2 || targets[0].Name != "filer-latest" || targets[0].Digest != w.Digest(t, "filer") {
				t.Errorf("targets %+v", targets)
			}
			// Trivy scanned the digest the tag pointed at, with no credential.
			for _, x := range v.e.Graph().ExecsWith("trivy image") {
				if len(x.Secrets) != 0 || !strings.Contains(x.Args[len(x.Args)-1], "@sha256:") {
					t.Errorf("trivy exec %q with secrets %v", x.Args, x.Secrets)
				}
			}
			if tt.report == buster && (results[0].Passed || !strings.Contains(results[0].Summary, "FAILED")) {
				t.Error("the findings are not in the results")
			}
		})
	}
}

func TestScanPublishedByDigest(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	v := newEnv(t, w)
	d := w.Registry.Push(t, v.repo("filer"), w.Image(t, "filer"))
	name := "filer-" + strings.TrimPrefix(d, "sha256:")[:12]
	v.e.OnFile(engine.FileRule{Path: "/out/" + name + ".json", Contents: cleanReport})
	_, results, err := publish.ScanPublished(ctx, v.scanner, v.p.ImagePrefix, v.target, []string{v.repo("filer") + "@" + d}, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || results[0].Name != name {
		t.Errorf("results %+v, want one named %s", results, name)
	}
}

// The weekly scan of a multi-platform image scans each platform image the tag's index
// lists: a finding only the arm64 image has fails the scan.
func TestScanPublishedIndex(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	setup := newPlatformEnv(t, w)
	pushed, err := publish.PushByDigest(ctx, "push-by-digest", setup.images[:1], setup.target)
	if err != nil {
		t.Fatal(err)
	}
	w.Registry.Tag(t, setup.repo("filer"), "latest", pushed[0].Digest)

	v := newEnv(t, w)
	v.e.OnFile(engine.FileRule{Path: "/out/filer-latest-linux-amd64.json", Contents: cleanReport})
	v.e.OnFile(engine.FileRule{Path: "/out/filer-latest-linux-arm64.json", Contents: string(corpus.Read(t, "trivy", "debian-buster.json"))})
	dir, results, err := publish.ScanPublished(ctx, v.scanner, v.p.ImagePrefix, v.target, []string{setup.repo("filer") + ":latest"}, nil, true)
	if err == nil || !strings.Contains(err.Error(), "filer-latest (linux/arm64) has fixable CRITICAL or HIGH") {
		t.Fatalf("err = %v, want the arm64 image's findings", err)
	}
	if len(results) != 2 || results[0].Name != "filer-latest (linux/amd64)" || !results[0].Passed || results[1].Passed {
		t.Errorf("results %+v", results)
	}
	var scanned []string
	for _, x := range v.e.Graph().ExecsWith("trivy image") {
		scanned = append(scanned, x.Args[len(x.Args)-1])
	}
	for _, pd := range pushed[0].Platforms {
		if !strings.Contains(strings.Join(scanned, " "), setup.repo("filer")+"@"+pd.Digest) {
			t.Errorf("%s was not scanned by its digest; scanned %v", pd.Platform, scanned)
		}
	}
	raw, err := dir.File("targets.json").Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var targets []publish.PublishedTag
	if err := json.Unmarshal([]byte(raw), &targets); err != nil || len(targets) != 1 || len(targets[0].Platforms) != 2 || targets[0].Digest != pushed[0].Digest {
		t.Errorf("targets.json %s (%v)", raw, err)
	}
}
