package publish_test

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// The scan runs in its own engine (its own job) and gets no credential of any kind: not in
// the graph's secrets, not in an exec, not in an argument or a variable.
func TestScanDigestsHasNoCredentials(t *testing.T) {
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	pushed := newEnv(t, w).pushed(t)

	v := newEnv(t, w)
	dir, results, err := publish.ScanDigests(ctx, "scan-digests", v.scanner, pushed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 || !results[0].Passed || !strings.Contains(results[0].Summary, "Trivy scan passed") {
		t.Errorf("results %+v", results)
	}
	summary, err := dir.File("summary.txt").Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(summary, "== filer") || !strings.Contains(summary, "== taskmaster") {
		t.Errorf("summary.txt:\n%s", summary)
	}
	// Only the scan was evaluated in this engine: the secrets newEnv made for other steps
	// were never used by it.
	g := v.e.Graph()
	scanned := map[string]bool{}
	for _, x := range g.Execs() {
		if len(x.Secrets) != 0 {
			t.Errorf("exec %q received secrets %v", x.Args, x.Secrets)
		}
		if len(x.Args) > 1 && x.Args[0] == "trivy" && x.Args[1] == "image" {
			scanned[x.Args[len(x.Args)-1]] = true
		}
	}
	for _, p := range pushed {
		if !scanned[p.Ref()] {
			t.Errorf("%s was not scanned by digest; scanned %v", p.Ref(), scanned)
		}
	}
	if len(scanned) != len(pushed) {
		t.Errorf("scanned %v, want exactly the pushed digests", scanned)
	}
	v.noSecrets(t)
}

func TestScanDigestsPolicy(t *testing.T) {
	ctx := context.Background()
	buster := string(corpus.Read(t, "trivy", "debian-buster.json"))
	w := publishtest.NewWorld(t)
	pushed := newEnv(t, w).pushed(t)
	tests := []struct {
		name    string
		report  string
		ignore  string
		pushed  []publish.Pushed
		wantErr string
	}{
		{name: "fixable CRITICAL fails", report: buster, pushed: pushed, wantErr: "image filer has fixable CRITICAL or HIGH"},
		{name: "accepted in the ignore file passes", report: buster, pushed: pushed,
			ignore: "vulnerabilities:\n  - id: CVE-2019-18224\n    statement: not reachable in the filer\n    expired_at: 2099-01-01\n"},
		{name: "a tag instead of a digest is refused", report: cleanReport,
			pushed:  []publish.Pushed{{Name: "filer", Repository: pushed[0].Repository, Digest: "latest"}},
			wantErr: "not sha256:"},
		{name: "nothing to scan", report: cleanReport, wantErr: "no pushed images"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newEnv(t, w)
			v.e.OnFile(engine.FileRule{Path: "/out/filer.json", Contents: tt.report})
			_, _, err := publish.ScanDigests(ctx, "scan-digests", v.scanner, tt.pushed, []byte(tt.ignore))
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			requireAloneNamed(t, err, publish.StepScan)
		})
	}
}
