package githubactions

import (
	"dagger/shipyard/internal/buildplatform"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/codescanning"
	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/pipelines/ci"
)

// TestWeeklyScanUploadIsAccepted replays the weekly scan's upload as GitHub receives it:
// scan.yml uploads the folder scan-published exports, holding one SARIF log per image and
// platform (each Trivy's, from a real Trivy report, as Shipyard writes it), with the
// category input the step gives. GitHub rejects an upload in which two runs share a tool
// and a category (internal/codescanning).
func TestWeeklyScanUploadIsAccepted(t *testing.T) {
	w := readWorkflow(t, filepath.Join("tesk-core", "scan.yml"))
	var uploads []step
	var refs []string
	for _, j := range w.Jobs {
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "github/codeql-action/upload-sarif@") {
				uploads = append(uploads, s)
			}
			for _, words := range mustCalls(t, s.Run) {
				for i, word := range words {
					if word == "--ref" && i+1 < len(words) {
						refs = append(refs, words[i+1])
					}
				}
			}
		}
	}
	if len(uploads) == 0 || len(refs) == 0 {
		t.Fatalf("scan.yml: %d uploads of %d scanned references", len(uploads), len(refs))
	}
	trivySARIF := corpus.Read(t, "trivy", "alpine-310.sarif")
	// What scan-published writes for each reference: a multi-platform image's platform
	// images each get their report, named as ScanPublished names them.
	written := map[string][]byte{}
	for _, ref := range refs {
		repo, tag, _ := strings.Cut(ref[strings.LastIndex(ref, "/")+1:], ":")
		name := strings.TrimPrefix(repo, "tesk-core-") + "-" + tag
		for _, p := range ci.DefaultPlatforms() {
			target := buildplatform.TargetName(name, p)
			sarif, err := ci.ReportSARIF(target, trivySARIF, nil)
			if err != nil {
				t.Fatal(err)
			}
			written[ci.ReportFile(target)+".sarif"] = sarif
		}
	}
	for _, up := range uploads {
		dir := up.With["sarif_file"]
		var runs []codescanning.Run
		for _, file := range slices.Sorted(maps.Keys(written)) {
			sarif := written[file]
			if dir != "scan" && dir != "scan/" && dir != "scan/"+file {
				continue
			}
			r, err := codescanning.ReadRuns(file, sarif)
			if err != nil {
				t.Fatal(err)
			}
			runs = append(runs, r...)
		}
		if len(runs) == 0 {
			t.Errorf("the upload of %q takes none of the reports %v", dir, written)
			continue
		}
		if err := codescanning.CheckUpload(runs, up.With["category"]); err != nil {
			t.Errorf("scan.yml's upload of %q: %v", dir, err)
		}
	}
}

// mustCalls reads the dagger calls of a script.
func mustCalls(t *testing.T, script string) [][]string {
	t.Helper()
	calls, err := daggerCalls("scan.yml", script)
	if err != nil {
		t.Fatal(err)
	}
	return calls
}
