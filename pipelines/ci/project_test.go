package ci

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"dagger.io/dagger"
	"dagger/shipyard/internal/jobs"
	"dagger/shipyard/internal/pins"
)

func TestPythonVersions(t *testing.T) {
	cases := []struct {
		name      string
		pyproject string
		want      []string
		wantErr   string
	}{
		{"nothing said", "[project]\nname = \"x\"\n", DefaultPythonVersions(), ""},
		{"lower bound only", "[project]\nrequires-python = \">=3.10\"\n", []string{"3.10", "3.11", "3.12", "3.13"}, ""},
		{"only 3.11 to 3.12", "[project]\nrequires-python = \">=3.11,<3.13\"\n", []string{"3.11", "3.12"}, ""},
		{"patch bound keeps the line", "[project]\nrequires-python = \">=3.11.4, <3.12.1\"\n", []string{"3.11", "3.12"}, ""},
		{"le keeps its line", "[project]\nrequires-python = '<=3.11'\n", []string{"3.10", "3.11"}, ""},
		{"compatible release", "[project]\nrequires-python = \"~=3.11\"\n", []string{"3.11", "3.12", "3.13"}, ""},
		{"compatible patch", "[project]\nrequires-python = \"~=3.12.1\"\n", []string{"3.12"}, ""},
		{"exclusion wildcard", "[project]\nrequires-python = \">=3.10,!=3.11.*\"\n", []string{"3.10", "3.12", "3.13"}, ""},
		{"exclusion of one patch keeps the line", "[project]\nrequires-python = \">=3.10,!=3.11.2\"\n", DefaultPythonVersions(), ""},
		{"equal wildcard", "[project]\nrequires-python = \"==3.12.*\"\n", []string{"3.12"}, ""},
		{
			"classifiers win",
			"[project]\nrequires-python = \">=3.8\"\nclassifiers = [\n  \"Programming Language :: Python :: 3.13\",\n  \"Programming Language :: Python :: 3.11\",\n  \"Programming Language :: Python :: 3\",\n]\n",
			[]string{"3.11", "3.13"}, "",
		},
		{
			"other tables ignored",
			"[tool.mypy]\nrequires-python = \">=3.13\"\n[project]\nrequires-python = \">=3.12\"\n[tool.x]\nclassifiers = [\"Programming Language :: Python :: 3.9\"]\n",
			[]string{"3.12", "3.13"}, "",
		},
		{"none allowed", "[project]\nrequires-python = \">=3.14\"\n", nil, "allows none"},
		{"unsupported clause", "[project]\nrequires-python = \">=3.10 || <2\"\n", nil, "unsupported clause"},
		{"comment after value", "[project]\nrequires-python = \">=3.12\" # newest only\n", []string{"3.12", "3.13"}, ""},
		{"dotted key at the top", "project.requires-python = \">=3.13\"\n", []string{"3.13"}, ""},
		{"a classifier in a comment is no classifier", "[project]\nrequires-python = \">=3.12\"\n# \"Programming Language :: Python :: 3.9\"\n", []string{"3.12", "3.13"}, ""},
		{"malformed TOML names file and line", "[project]\nrequires-python = \">=3.12\n", nil, "pyproject.toml:2:"},
		{"requires-python not a string", "[project]\nrequires-python = 3\n", nil, "project.requires-python is a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := PythonVersions([]byte(c.pyproject))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func FuzzPythonVersions(f *testing.F) {
	f.Add("[project]\nrequires-python = \">=3.11,<3.13\"\n")
	f.Add("[project]\nclassifiers = [\"Programming Language :: Python :: 3.12\"]\n")
	f.Add("[project]\nrequires-python = \"~=99999999999999999999.1\"\n")
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := PythonVersions([]byte(doc))
		if err == nil && len(got) == 0 {
			t.Fatalf("no versions and no error for %q", doc)
		}
		for _, v := range got {
			if !pins.IsPythonMinor(v) {
				t.Fatalf("version %q is not a minor version", v)
			}
		}
	})
}

func TestDiscoverImages(t *testing.T) {
	got, err := DiscoverImages([]string{"taskmaster.Dockerfile", "README.md", "filer.Dockerfile", "scripts/"}, "tesk-core-")
	if err != nil {
		t.Fatal(err)
	}
	want := []ImageSpec{
		{Name: "filer", Repository: "tesk-core-filer", Dockerfile: "containers/filer.Dockerfile"},
		{Name: "taskmaster", Repository: "tesk-core-taskmaster", Dockerfile: "containers/taskmaster.Dockerfile"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for _, bad := range [][]string{{"README.md"}, {"Task_Master.Dockerfile"}, {".Dockerfile"}} {
		if _, err := DiscoverImages(bad, "p-"); err == nil {
			t.Errorf("DiscoverImages(%v) accepted", bad)
		}
	}
}

func TestImageVersion(t *testing.T) {
	cases := []struct {
		flag    string
		hasGit  bool
		value   string
		set     bool
		wantErr bool
	}{
		{"0.11.0rc1", true, "0.11.0rc1", true, false},
		{"0.11.0", false, "0.11.0", true, false},
		{"", true, "", false, false},
		{"", false, FallbackVersion, true, false},
		{"v0.11.0", false, "", false, true},
		{"0.11 .0", false, "", false, true},
	}
	for _, c := range cases {
		value, set, err := ImageVersion(c.flag, c.hasGit)
		if (err != nil) != c.wantErr || value != c.value || set != c.set {
			t.Errorf("ImageVersion(%q, %v) = %q, %v, %v; want %q, %v, err=%v", c.flag, c.hasGit, value, set, err, c.value, c.set, c.wantErr)
		}
	}
}

func TestPins(t *testing.T) {
	p := pins.DefaultPins()
	if err := p.Validate(); err != nil {
		t.Fatalf("default pins: %v", err)
	}
	if _, err := p.PythonImage("3.9"); err == nil || !strings.Contains(err.Error(), "--python-image 3.9=") {
		t.Fatalf("missing pin error = %v", err)
	}
	const py314 = "python:3.14-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	q, err := p.WithPythonImages([]string{"3.14=" + py314})
	if err != nil {
		t.Fatal(err)
	}
	if img, _ := q.PythonImage("3.14"); img != py314 {
		t.Fatalf("override not applied: %q", img)
	}
	if _, ok := p.Python["3.14"]; ok {
		t.Fatal("override changed the original pins")
	}
	if _, err := p.WithPythonImages([]string{"python=3.14"}); err == nil {
		t.Fatal("malformed override accepted")
	}
	q.Trivy = "aquasec/trivy:latest"
	if err := q.Validate(); err == nil || !strings.Contains(err.Error(), "not pinned by digest") {
		t.Fatalf("unpinned trivy accepted: %v", err)
	}
}

func TestSummary(t *testing.T) {
	exec := &dagger.ExecError{Cmd: []string{"uv", "run", "pytest"}, ExitCode: 1,
		Stderr: "collected 10 items\nFAILED tests/unit/test_filer.py::test_put - AssertionError\n1 failed"}
	s := jobs.Summary{Jobs: sortJobs([]jobs.JobResult{
		jobs.Result("Test (Python 3.12)", 2*time.Second, nil),
		jobs.Result("Test (Python 3.11)", 3*time.Second, execFailure{exec}),
		{Name: "PR title", Status: jobs.Skipped, Reason: "no pull request title given"},
		jobs.Result("Lint", time.Second, nil),
	})}
	names := []string{}
	for _, j := range s.Jobs {
		names = append(names, j.Name)
	}
	if want := []string{"PR title", "Lint", "Test (Python 3.11)", "Test (Python 3.12)"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("order %v, want %v", names, want)
	}
	if s.Passed() {
		t.Fatal("a failed job passed the gate")
	}
	err := s.Err()
	if err == nil || !strings.Contains(err.Error(), "Test (Python 3.11)") {
		t.Fatalf("gate error %v does not name the failed job", err)
	}
	table := s.Table()
	for _, want := range []string{"| Test (Python 3.11) | failed | 3s | exit code 1: FAILED tests/unit/test_filer.py::test_put - AssertionError |", "| PR title | skipped |", "CI failed"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if (jobs.Summary{Jobs: []jobs.JobResult{{Name: "Lint", Status: jobs.Passed}, {Name: "PR title", Status: jobs.Skipped}}}).Err() != nil {
		t.Fatal("skipped jobs failed the gate")
	}
}

func TestFirstErrorLine(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{errors.New("first\nsecond"), "first"},
		{&dagger.ExecError{Stderr: "noise\nerror: hook failed\nmore"}, "error: hook failed"},
		{&dagger.ExecError{Stderr: "\nlast words\n\n"}, "last words"},
		{&dagger.ExecError{Stdout: "out only"}, "out only"},
		{nil, ""},
	}
	for _, c := range cases {
		if got := jobs.FirstErrorLine(c.err); got != c.want {
			t.Errorf("jobs.FirstErrorLine(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// execFailure wraps an ExecError made by hand: its Error method needs the engine's original
// error, which only a real (or engine-double) failure carries.
type execFailure struct{ exec *dagger.ExecError }

func (f execFailure) Error() string { return "process failed" }
func (f execFailure) Unwrap() error { return f.exec }
