package ci

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/engine"
)

// patchCoverageXML covers lines 1-2 of filer.py and leaves 10-11 unrun.
const patchCoverageXML = `<?xml version="1.0" ?>
<coverage version="7.6.1"><sources><source>/src/src</source></sources><packages><package name="tesk_core"><classes>
<class name="filer.py" filename="tesk_core/filer.py"><lines><line number="1" hits="1"/><line number="2" hits="1"/><line number="10" hits="0"/><line number="11" hits="0"/></lines></class>
</classes></package></packages></coverage>`

func patchDiff(lines string) string {
	return "diff --git a/src/tesk_core/filer.py b/src/tesk_core/filer.py\n--- a/src/tesk_core/filer.py\n+++ b/src/tesk_core/filer.py\n" + lines
}

func TestPatchCoverage(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, diff, wantErr, wantReport string
	}{
		{"every changed line covered", patchDiff("@@ -0,0 +1,2 @@\n+import os\n+import sys\n"), "", "Patch coverage passed: 100.00% of 2 changed code lines"},
		{"uncovered changed lines fail", patchDiff("@@ -0,0 +2 @@\n+import sys\n@@ -9,0 +10,2 @@\n+    retry()\n+    log()\n"),
			"patch coverage 33.33% is below 100%", "src/tesk_core/filer.py: lines 10-11 not covered"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, e := newPipeline(t, map[string]string{".git/HEAD": "ref: refs/heads/feature\n"})
			e.OnExec(engine.ExecRule{ArgsContain: "git -c safe.directory=* diff --unified=0 --no-color --no-ext-diff origin/dev...HEAD", Stdout: tt.diff})
			e.OnFile(engine.FileRule{Path: "coverage.xml", Contents: patchCoverageXML})
			_, report, err := p.PatchCoverage(ctx, "origin/dev", "3.12")
			if tt.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if !strings.Contains(report, tt.wantReport) {
				t.Errorf("report:\n%s\nwant %q", report, tt.wantReport)
			}
		})
	}
}

func TestPatchCoverageRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	p, _ := newPipeline(t, nil)
	for base, want := range map[string]string{
		"--output=/etc/x": "want a Git ref",
		"":                "want a Git ref",
		"origin/dev":      "the source has no Git history",
	} {
		if _, _, err := p.PatchCoverage(ctx, base, "3.12"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--base %q: err = %v, want %q", base, err, want)
		}
	}
}

// PatchReports keeps the report whatever the verdict, and a passing verdict with it.
func TestPatchReports(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, diff string
		passed     bool
	}{
		{"passes", patchDiff("@@ -0,0 +1,2 @@\n+import os\n+import sys\n"), true},
		{"fails", patchDiff("@@ -9,0 +10,2 @@\n+    retry()\n+    log()\n"), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, e := newPipeline(t, map[string]string{".git/HEAD": "ref: refs/heads/feature\n"})
			e.OnExec(engine.ExecRule{ArgsContain: "git -c safe.directory=* diff --unified=0 --no-color --no-ext-diff origin/dev...HEAD", Stdout: tt.diff})
			e.OnFile(engine.FileRule{Path: "coverage.xml", Contents: patchCoverageXML})
			dir, v, err := p.PatchReports(ctx, "origin/dev", "3.12")
			if err != nil {
				t.Fatal(err)
			}
			if v.Passed != tt.passed {
				t.Fatalf("verdict %+v", v)
			}
			read, err := ReadVerdict(ctx, dir)
			if err != nil || read.Passed != tt.passed || read.Job != "Patch coverage" {
				t.Fatalf("verdict.json %+v, %v", read, err)
			}
			if report, err := dir.File(PatchReportFile).Contents(ctx); err != nil || !strings.Contains(report, "Against origin/dev, Python 3.12.") {
				t.Fatalf("report %q, %v", report, err)
			}
		})
	}
	p, _ := newPipeline(t, nil)
	if _, _, err := p.PatchReports(ctx, "origin/dev", "3.12"); err == nil || !strings.Contains(err.Error(), "no Git history") {
		t.Fatalf("no history: %v", err)
	}
}
