package modelci

import (
	"slices"
	"strings"
	"testing"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
)

func TestPythonVersions(t *testing.T) {
	pinned := []string{"3.10", "3.11", "3.12", "3.13"}
	project := func(body string) []byte { return []byte("[project]\nname = \"x\"\n" + body) }
	classifiers := "classifiers = [\n    \"Programming Language :: Python :: 3.10\",\n    \"Programming Language :: Python :: 3.11\",\n    \"License :: OSI Approved\",\n]\n"
	tests := []struct {
		name string
		file []byte
		want []string
		err  string
	}{
		{"the template's classifiers and requires-python", []byte(fixtures.ModelRepoFiles(t, nil)[modelenv.PyprojectPath]), pinned, ""},
		{"classifiers alone", project(classifiers), []string{"3.10", "3.11"}, ""},
		{"requires-python alone, against the pins", project("requires-python = \">=3.11\"\n"), []string{"3.11", "3.12", "3.13"}, ""},
		{"an upper bound", project("requires-python = \">=3.10,<3.12\"\n"), []string{"3.10", "3.11"}, ""},
		{"an excluded minor", project("requires-python = \">=3.10, !=3.12.*\"\n"), []string{"3.10", "3.11", "3.13"}, ""},
		{"compatible release", project("requires-python = \"~=3.12\"\n"), []string{"3.12", "3.13"}, ""},
		{"a classifier requires-python excludes", project(classifiers + "requires-python = \">=3.11\"\n"), nil, "names Python 3.10, which requires-python \">=3.11\" excludes"},
		{"an unpinned version", project("classifiers = [\"Programming Language :: Python :: 3.14\"]\n"), nil, "pin one with --pin python-3.14=IMAGE@sha256:<64 hex digits> (a constructor flag, given before the function) or a stage AS python-3.14 in .shipyard/pins.Dockerfile"},
		{"nothing named", project(""), nil, "neither classifiers"},
		{"a malformed specifier", project("requires-python = \"3.10\"\n"), nil, "has no comparison operator"},
		{"a wildcard with >=", project("requires-python = \">=3.*\"\n"), nil, "a wildcard only goes with == or !="},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PythonVersions(tt.file, pinned)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), modelenv.PyprojectPath) {
					t.Fatalf("PythonVersions = %v, %v; want an error naming %s and %q", got, err, modelenv.PyprojectPath, tt.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("PythonVersions = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func FuzzPythonVersions(f *testing.F) {
	f.Add(">=3.10", "3.11")
	f.Add("~=3.11.2,!=3.12.*", "3.12")
	f.Add("==3.*", "")
	f.Fuzz(func(t *testing.T, requires, classifier string) {
		file := "[project]\nrequires-python = " + pytoml.Quote(requires) + "\nclassifiers = [" + pytoml.Quote("Programming Language :: Python :: "+classifier) + "]\n"
		got, err := PythonVersions([]byte(file), []string{"3.10", "3.11", "3.12", "3.13"})
		if err != nil {
			return
		}
		if len(got) == 0 || !slices.IsSortedFunc(got, compareMinor) {
			t.Fatalf("PythonVersions(%q, %q) = %v", requires, classifier, got)
		}
	})
}

func TestTestPythons(t *testing.T) {
	pyproject := []byte("[project]\nname = \"x\"\nrequires-python = \">=3.10\"\nclassifiers = [\n  \"Programming Language :: Python :: 3.12\",\n  \"Programming Language :: Python :: 3.13\",\n]\n")
	pinned := []string{"3.10", "3.11", "3.12", "3.13"}
	for _, tt := range []struct {
		only []string
		want string
		err  string
	}{
		{nil, "3.10 3.11 3.12 3.13", ""},
		{[]string{"3.13"}, "3.13", ""},
		{[]string{"3.9"}, "", "--python 3.9: pyproject.toml supports Python 3.10, 3.11, 3.12, 3.13 only"},
	} {
		got, err := testPythons(pyproject, pinned, tt.only)
		if strings.Join(got, " ") != tt.want || (err == nil) != (tt.err == "") || (err != nil && err.Error() != tt.err) {
			t.Errorf("testPythons(%v) = %v, %v; want %q, %q", tt.only, got, err, tt.want, tt.err)
		}
	}
}
