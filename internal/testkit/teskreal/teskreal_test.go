package teskreal

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"github.com/pelletier/go-toml/v2"
)

func realTree(t *testing.T) string {
	t.Helper()
	return filepath.Join(corpus.Dir(t, "tesk-core"), "tree")
}

// Every path the development guide names.
func TestLayoutHasTheGuidesPaths(t *testing.T) {
	files := Files(t)
	for _, want := range []string{
		"pyproject.toml", ".pre-commit-config.yaml", "CITATION.cff", "mkdocs.yml", "docs/index.md",
		"containers/taskmaster.Dockerfile", "containers/filer.Dockerfile",
		"src/tesk_core/__init__.py", "src/tesk_core/taskmaster.py", "src/tesk_core/filer.py",
		"tests/unit/", "tests/unit/resources/", "tests/integration/", "tests/e2e/", "tests/e2e/manifests/",
	} {
		t.Run(want, func(t *testing.T) {
			if strings.HasSuffix(want, "/") {
				for p := range files {
					if strings.HasPrefix(p, want) {
						return
					}
				}
				t.Fatalf("no file under %s", want)
			}
			if _, ok := files[want]; !ok {
				t.Fatalf("%s missing", want)
			}
		})
	}
}

func TestPyproject(t *testing.T) {
	var py struct {
		Project struct {
			Name     string
			Optional map[string][]string `toml:"optional-dependencies"`
		}
		Tool struct {
			Coverage struct {
				Run    struct{ Source []string }
				Report struct {
					FailUnder    int      `toml:"fail_under"`
					ExcludeLines []string `toml:"exclude_lines"`
				}
			}
			SetuptoolsSCM struct {
				Fallback string `toml:"fallback_version"`
			} `toml:"setuptools_scm"`
		}
	}
	if err := toml.Unmarshal([]byte(Files(t)["pyproject.toml"]), &py); err != nil {
		t.Fatalf("pyproject.toml: %v", err)
	}
	cov := py.Tool.Coverage
	switch {
	case py.Project.Name != "teskcore":
		t.Errorf("name %q, want teskcore", py.Project.Name)
	case cov.Report.FailUnder != 100:
		t.Errorf("fail_under %d, want 100", cov.Report.FailUnder)
	case !slices.Equal(cov.Report.ExcludeLines, []string{`if __name__ == "__main__":`}):
		t.Errorf("exclude_lines %q: the guide leaves out only the script entry points", cov.Report.ExcludeLines)
	case !slices.Equal(cov.Run.Source, []string{"tesk_core"}):
		t.Errorf("coverage source %q", cov.Run.Source)
	case py.Tool.SetuptoolsSCM.Fallback != "0.0.0.dev0":
		t.Errorf("fallback_version %q: the guide's images report 0.0.0.dev0 without history", py.Tool.SetuptoolsSCM.Fallback)
	}
	for _, extra := range []string{"dev", "docs"} {
		if len(py.Project.Optional[extra]) == 0 {
			t.Errorf("extra %s missing or empty", extra)
		}
	}
}

// Each real test file is in exactly one level, or left out with a reason.
func TestEveryRealTestFileHasOnePlace(t *testing.T) {
	found, err := filepath.Glob(filepath.Join(realTree(t), "tests", "*.py"))
	if err != nil || len(found) == 0 {
		t.Fatalf("corpus tests: %v (%d files)", err, len(found))
	}
	targets := map[string]string{}
	for _, f := range found {
		name := "tests/" + filepath.Base(f)
		to, placed := Placement()[name]
		_, left := LeftOut()[name]
		if placed == left {
			t.Errorf("%s: placed %v, left out %v; want exactly one", name, placed, left)
			continue
		}
		if !placed {
			continue
		}
		if !strings.HasPrefix(to, "tests/unit/") && !strings.HasPrefix(to, "tests/integration/") {
			t.Errorf("%s goes to %s, outside tests/unit and tests/integration", name, to)
		}
		if other, dup := targets[to]; dup {
			t.Errorf("%s and %s both go to %s", name, other, to)
		}
		targets[to] = name
	}
	if len(targets)+len(LeftOut()) != len(found) {
		t.Errorf("%d placed + %d left out, want the corpus' %d", len(targets), len(LeftOut()), len(found))
	}
}

// Real files reach the fixture unaltered but for Edits, and README.md explains each edit,
// each placement that renames and each file left out.
func TestRealFilesAlteredOnlyByTheListedEdits(t *testing.T) {
	tree, files := realTree(t), Files(t)
	origin := map[string]string{}
	for from, to := range Placement() {
		origin[to] = from
	}
	for p := range files {
		if strings.HasPrefix(p, "src/tesk_core/") {
			origin[p] = p
		}
		if rest, ok := strings.CutPrefix(p, Resources); ok {
			origin[p] = "tests/resources/" + rest
		}
	}
	edited := map[string]Edit{}
	for _, e := range Edits() {
		edited[e.File] = e
	}
	for to, from := range origin {
		b, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(from)))
		if err != nil {
			t.Fatal(err)
		}
		want := string(b)
		if e, ok := edited[to]; ok {
			want = strings.Replace(want, e.Old, e.New, 1)
		}
		if files[to] != want {
			t.Errorf("%s differs from the corpus' %s beyond the listed edits", to, from)
		}
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range append(slices.Collect(maps.Keys(edited)), slices.Collect(maps.Keys(LeftOut()))...) {
		if !strings.Contains(string(readme), filepath.Base(name)) {
			t.Errorf("README.md does not mention %s", name)
		}
	}
}

// pre-commit's exclude covers exactly the real files: our own files are linted in full.
func TestPreCommitExcludesOnlyRealFiles(t *testing.T) {
	files := Files(t)
	var pattern string
	for _, l := range strings.Split(files[".pre-commit-config.yaml"], "\n") {
		if p, ok := strings.CutPrefix(l, "exclude: "); ok {
			pattern = p
		}
	}
	re, err := regexp.Compile(pattern)
	if pattern == "" || err != nil {
		t.Fatalf("top-level exclude %q: %v", pattern, err)
	}
	authoredFiles := map[string]bool{}
	for _, p := range slices.Collect(maps.Keys(files)) {
		_, err := authored.Open("project/" + p)
		authoredFiles[p] = err == nil
	}
	for p, ours := range authoredFiles {
		if re.MatchString(p) == ours {
			t.Errorf("%s: excluded %v, authored %v", p, re.MatchString(p), ours)
		}
	}
	// A test we add later, beside the real ones, is linted too: the exclusion names the real
	// files one by one rather than a prefix they share.
	for _, p := range []string{"tests/unit/test_filer_new.py", "tests/unit/test_job_new.py", "tests/integration/test_filer_ftp_new.py"} {
		if re.MatchString(p) {
			t.Errorf("%s (a new authored test) would be excluded", p)
		}
	}
}

func TestBuildRefusesAnEditThatNoLongerApplies(t *testing.T) {
	tree := realTree(t)
	copyTree := t.TempDir()
	if err := os.CopyFS(copyTree, os.DirFS(tree)); err != nil {
		t.Fatal(err)
	}
	e := Edits()[0]
	from := ""
	for f, to := range Placement() {
		if to == e.File {
			from = f
		}
	}
	p := filepath.Join(copyTree, filepath.FromSlash(from))
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), e.Old, "moved")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(copyTree); err == nil || !strings.Contains(err.Error(), e.File) {
		t.Fatalf("Build = %v, want an error naming %s", err, e.File)
	}
}

func TestTreeWritesEveryFile(t *testing.T) {
	dir, files := Tree(t), Files(t)
	for p, want := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || string(b) != want {
			t.Errorf("%s: %v, or content differs", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "uv.lock")); err == nil {
		t.Error("uv.lock written: the project is locked where it runs")
	}
}

func TestWriteRefusesPathsOutsideDir(t *testing.T) {
	for _, p := range []string{"../x", "/abs", "a/../b", ""} {
		if err := Write(t.TempDir(), map[string]string{p: "x"}); err == nil {
			t.Errorf("Write(%q) succeeded", p)
		}
	}
}
