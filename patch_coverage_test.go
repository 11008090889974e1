package main

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/pipelines/ci"
)

// patch-coverage returns its report and a failing verdict when changed lines are not
// covered, instead of an error that would lose the report (issue 15).
func TestPatchCoverageKeepsItsReportOnAFailingVerdict(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	m, e := newModule(t, map[string]string{".git/HEAD": "ref: refs/heads/feature\n"})
	e.ExpectExecs(ciExecs...)
	e.OnExec(engine.ExecRule{
		ArgsContain: "git -c safe.directory=* diff --unified=0 --no-color --no-ext-diff origin/dev...HEAD",
		Stdout: "diff --git a/src/tesk_core/filer.py b/src/tesk_core/filer.py\n--- a/src/tesk_core/filer.py\n+++ b/src/tesk_core/filer.py\n" +
			"@@ -0,0 +2 @@\n+import sys\n@@ -9,0 +10,2 @@\n+    retry()\n+    log()\n",
	})
	e.OnFile(engine.FileRule{Path: "coverage.xml", Contents: `<?xml version="1.0" ?>
<coverage version="7.6.1"><sources><source>/src/src</source></sources><packages><package name="tesk_core"><classes>
<class name="filer.py" filename="tesk_core/filer.py"><lines><line number="2" hits="1"/><line number="10" hits="0"/><line number="11" hits="0"/></lines></class>
</classes></package></packages></coverage>`})
	dir, err := m.PatchCoverage(ctx, "origin/dev", "3.12")
	if err != nil {
		t.Fatalf("a failing verdict failed the call: %v", err)
	}
	report, err := dir.File(ci.PatchReportFile).Contents(ctx)
	if err != nil || !strings.Contains(report, "src/tesk_core/filer.py: lines 10-11 not covered") {
		t.Fatalf("report %q, %v", report, err)
	}
	raw, err := dir.File(ci.VerdictFile).Contents(ctx)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ci.ParseVerdict([]byte(raw))
	if err != nil || v.Passed || len(v.Failures) != 1 || !strings.Contains(v.Failures[0], "patch coverage 33.33% is below 100%") {
		t.Fatalf("verdict %+v, %v", v, err)
	}
	// Nothing measured is still an error: there is no report to keep.
	if _, err := m.PatchCoverage(ctx, "--output=/etc/x", "3.12"); err == nil || !strings.Contains(err.Error(), "want a Git ref") {
		t.Fatalf("bad --base: %v", err)
	}
}
