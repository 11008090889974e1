package coverage

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// coverageXML is shaped as coverage.py 7 writes it for tesk-core: sources are absolute
// paths where the tests ran (/src is the repository), file names relative to a source.
const coverageXML = `<?xml version="1.0" ?>
<coverage version="7.6.1" timestamp="1" lines-valid="6" lines-covered="4" line-rate="0.6667" branches-covered="0" branches-valid="0" branch-rate="0" complexity="0">
	<sources>
		<source>/src/src</source>
	</sources>
	<packages>
		<package name="tesk_core" line-rate="0.6667" branch-rate="0" complexity="0">
			<classes>
				<class name="filer.py" filename="tesk_core/filer.py" complexity="0" line-rate="0.5" branch-rate="0">
					<methods/>
					<lines>
						<line number="1" hits="1"/>
						<line number="2" hits="1"/>
						<line number="10" hits="0"/>
						<line number="11" hits="0"/>
					</lines>
				</class>
				<class name="taskmaster.py" filename="tesk_core/taskmaster.py" complexity="0" line-rate="1" branch-rate="0">
					<methods/>
					<lines>
						<line number="3" hits="4"/>
						<line number="4" hits="2"/>
					</lines>
				</class>
			</classes>
		</package>
	</packages>
</coverage>
`

const gitDiff = `diff --git a/src/tesk_core/filer.py b/src/tesk_core/filer.py
index 1111111..2222222 100644
--- a/src/tesk_core/filer.py
+++ b/src/tesk_core/filer.py
@@ -1,0 +2 @@ import os
+import sys
@@ -8,2 +9,4 @@ def upload():
 context
+    retry()
+    # a comment
-    old()
 more
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -3 +3 @@
-old
+new
diff --git a/src/tesk_core/gone.py b/src/tesk_core/gone.py
deleted file mode 100644
--- a/src/tesk_core/gone.py
+++ /dev/null
@@ -1,2 +0,0 @@
-a
-b
diff --git a/src/tesk_core/taskmaster.py b/src/tesk_core/taskmaster.py
--- a/src/tesk_core/taskmaster.py
+++ b/src/tesk_core/taskmaster.py
@@ -2,0 +3,2 @@
+x = 1
+y = 2
\ No newline at end of file
`

func TestAddedLines(t *testing.T) {
	tests := []struct {
		name, diff string
		want       map[string][]int
	}{
		{"git diff with every kind of row", gitDiff, map[string][]int{
			"src/tesk_core/filer.py":      {2, 10, 11},
			"README.md":                   {3},
			"src/tesk_core/taskmaster.py": {3, 4},
		}},
		{"empty", "", map[string][]int{}},
		{"a new file", "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+a\n+b\n", map[string][]int{"new.py": {1, 2}}},
		{"a path with a timestamp", "--- a.py\t2024-01-01\n+++ a.py\t2024-01-02\n@@ -1 +1 @@\n-x\n+y\n", map[string][]int{"a.py": {1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := AddedLines(tt.diff)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.EqualFunc(got, tt.want, slices.Equal[[]int]) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAddedLinesRefusesAMalformedHunk(t *testing.T) {
	for _, d := range []string{"+++ b/a.py\n@@ -1 @@\n", "+++ b/a.py\n@@ -1 +x,2 @@\n", "+++ b/a.py\n@@ -1 +1,-2 @@\n"} {
		if _, err := AddedLines(d); err == nil || !strings.Contains(err.Error(), "diff line 2: malformed hunk header") {
			t.Errorf("%q: err = %v", d, err)
		}
	}
}

func TestParseCobertura(t *testing.T) {
	got, err := ParseCobertura([]byte(coverageXML), "/src")
	if err != nil {
		t.Fatal(err)
	}
	want := Lines{
		"src/tesk_core/filer.py":      {1: 1, 2: 1, 10: 0, 11: 0},
		"src/tesk_core/taskmaster.py": {3: 4, 4: 2},
	}
	if !maps.EqualFunc(got, want, maps.Equal[map[int]int]) {
		t.Errorf("got %v, want %v", got, want)
	}
	// A report whose sources lie elsewhere keeps the names as written.
	other, err := ParseCobertura([]byte(coverageXML), "/elsewhere")
	if err != nil || other["tesk_core/filer.py"] == nil {
		t.Errorf("other root: %v %v", other, err)
	}
	for _, bad := range []string{"<nope", `<coverage><packages><package><classes><class filename=""/></classes></package></packages></coverage>`,
		`<coverage><packages><package><classes><class filename="a.py"><lines><line number="0" hits="1"/></lines></class></classes></package></packages></coverage>`,
		`<coverage><sources><source>/src</source></sources><packages><package><classes><class filename="../../etc/x.py"/></classes></package></packages></coverage>`} {
		if _, err := ParseCobertura([]byte(bad), "/src"); err == nil || !strings.HasPrefix(err.Error(), "coverage.xml: ") {
			t.Errorf("%s: err = %v", bad, err)
		}
	}
}

func TestPatchCoverage(t *testing.T) {
	report, err := ParseCobertura([]byte(coverageXML), "/src")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		added   map[string][]int
		reports []Lines
		covered int
		missed  map[string][]int
		passed  bool
		text    string
	}{
		{"every added code line covered", map[string][]int{"src/tesk_core/filer.py": {1, 2, 5}, "README.md": {3}}, []Lines{report},
			2, map[string][]int{}, true, "Patch coverage passed: 100.00% of 2 changed code lines (target 100%)."},
		{"uncovered lines fail", map[string][]int{"src/tesk_core/filer.py": {2, 11, 10}, "src/tesk_core/taskmaster.py": {3}}, []Lines{report},
			2, map[string][]int{"src/tesk_core/filer.py": {10, 11}}, false, "src/tesk_core/filer.py: lines 10-11 not covered"},
		{"no code changed passes", map[string][]int{"docs/index.md": {1}}, []Lines{report},
			0, map[string][]int{}, true, "100.00% of 0 changed code lines"},
		{"another Python version covers the line", map[string][]int{"src/tesk_core/filer.py": {10}},
			[]Lines{report, {"src/tesk_core/filer.py": {10: 1}}}, 1, map[string][]int{}, true, "passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := PatchCoverage(tt.added, Merge(tt.reports...), 100)
			if p.Covered != tt.covered || !maps.EqualFunc(p.Missed, tt.missed, slices.Equal[[]int]) || p.Passed() != tt.passed {
				t.Errorf("got covered %d missed %v passed %v", p.Covered, p.Missed, p.Passed())
			}
			if !strings.Contains(p.Report(), tt.text) {
				t.Errorf("report:\n%s\nwant it to contain %q", p.Report(), tt.text)
			}
		})
	}
}

func TestRanges(t *testing.T) {
	for in, want := range map[string]string{"": "", "3": "3", "3 4 5 9": "3-5, 9", "1 3 4": "1, 3-4"} {
		var lines []int
		for _, f := range strings.Fields(in) {
			var n int
			for _, c := range f {
				n = n*10 + int(c-'0')
			}
			lines = append(lines, n)
		}
		if got := ranges(lines); got != want {
			t.Errorf("ranges(%v) = %q, want %q", lines, got, want)
		}
	}
}

func FuzzAddedLines(f *testing.F) {
	f.Add(gitDiff)
	f.Add("+++ b/a\n@@ -1 +1,3 @@\n+a\n b\n-c\n+d\n")
	f.Fuzz(func(t *testing.T, diff string) {
		got, err := AddedLines(diff)
		if err != nil {
			return
		}
		for file, lines := range got {
			if file == "" {
				t.Fatalf("an added line without a file: %v", got)
			}
			for i, n := range lines {
				if n < 0 || (i > 0 && n <= lines[i-1]) {
					t.Fatalf("%s: line numbers %v not increasing", file, lines)
				}
			}
		}
	})
}

func FuzzParseCobertura(f *testing.F) {
	f.Add([]byte(coverageXML), "/src")
	f.Fuzz(func(t *testing.T, data []byte, root string) {
		lines, err := ParseCobertura(data, root)
		if err != nil {
			return
		}
		for file, l := range lines {
			if strings.HasPrefix(file, "../") || strings.HasPrefix(file, "/") {
				t.Fatalf("file %q outside the repository", file)
			}
			for n, hits := range l {
				if n < 1 || hits < 0 {
					t.Fatalf("%s: line %d hits %d", file, n, hits)
				}
			}
		}
	})
}
