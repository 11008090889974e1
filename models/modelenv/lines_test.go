package modelenv

import (
	"dagger/shipyard/internal/demoworld/corpus"
	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReleaseLines(t *testing.T) {
	tests := []struct {
		name     string
		versions []string
		want     string // LinesJSON
		wantErr  string
	}{
		{"oldest first, the newest marked", []string{"2.16.1", "2.15.2", "1.9.0"},
			`[{"upstream":"1.9.0","branch":"release-1.9","newest":false},{"upstream":"2.15.2","branch":"release-2.15","newest":false},{"upstream":"2.16.1","branch":"release-2.16","newest":true}]`, ""},
		{"one line", []string{"2.16.1"}, `[{"upstream":"2.16.1","branch":"release-2.16","newest":true}]`, ""},
		{"two patches of one minor", []string{"2.16.0", "2.16.1"}, "", "two versions of one minor line (release-2.16)"},
		{"empty", nil, "", "is empty"},
		{"not X.Y.Z", []string{"2.16"}, "", `model_version "2.16"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines, err := ReleaseLines(LineConfig{Path: UpdateReleasesWorkflow, Versions: tc.versions, Prefix: "v"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), UpdateReleasesWorkflow) {
					t.Fatalf("err = %v, want %q naming %s", err, tc.wantErr, UpdateReleasesWorkflow)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := LinesJSON(lines); got != tc.want {
				t.Errorf("LinesJSON =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestParseLineConfig(t *testing.T) {
	const real = "name: Update Versions\njobs:\n  update-versions:\n    strategy:\n      matrix:\n        model_version: ['1.29.13', '1.32.1']\n    steps:\n      - run: |\n          sed -i \"s|refs/tags/v[0-9]\\+\\.[0-9]\\+\\.[0-9]\\+/|refs/tags/v${{ matrix.model_version }}/|\" pyproject.toml\n"
	const patched = "jobs:\n  release:\n    strategy:\n      matrix:\n        model_version: ['2.16.1']\n    env:\n      MODEL_VERSION_PREFIX: releases/download/v\n"
	tests := []struct {
		name, workflow string
		want           LineConfig
		wantErr        string
	}{
		{"the real template's sed", real, LineConfig{Path: "w.yml", Versions: []string{"1.29.13", "1.32.1"}, Prefix: "refs/tags/v"}, ""},
		{"the patched template's variable", patched, LineConfig{Path: "w.yml", Versions: []string{"2.16.1"}, Prefix: "releases/download/v"}, ""},
		{"no prefix", strings.Replace(patched, "MODEL_VERSION_PREFIX", "OTHER", 1), LineConfig{}, "no MODEL_VERSION_PREFIX and no sed rewrite"},
		{"no matrix", "jobs:\n  x:\n    runs-on: ubuntu-latest\n", LineConfig{}, "no job has a model_version matrix"},
		{"not a list", strings.Replace(patched, "['2.16.1']", "'2.16.1'", 1), LineConfig{}, "is not a list"},
		{"unquoted number", strings.Replace(patched, "['2.16.1']", "[2.16]", 1), LineConfig{}, "is not a quoted version"},
		{"not YAML", "jobs: [", LineConfig{}, "w.yml: not valid YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLineConfig("w.yml", []byte(tc.workflow))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "w.yml") {
					t.Fatalf("err = %v, want %q naming the file", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got.Versions, tc.want.Versions) || got.Prefix != tc.want.Prefix || got.Path != tc.want.Path {
				t.Fatalf("ParseLineConfig = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// Every real integration, rendered from the real template by the test kit's own renderer:
// its lines are the versions of its cookiecutter.yaml, and each line selects its schema
// URLs in the rendered pyproject.toml (a TOML array), changing only those bytes.
func TestRealIntegrationsLinesAndSelection(t *testing.T) {
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	dirs, _ := filepath.Glob(filepath.Join(root, "models", "*"))
	if len(dirs) != 12 {
		t.Fatalf("%d integrations, want 12", len(dirs))
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			_, files, err := cookiecutter.Integration(root, name)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := ParseLineConfig(UpdateReleasesWorkflow, []byte(files[UpdateReleasesWorkflow]))
			if err != nil {
				t.Fatal(err)
			}
			config, _ := os.ReadFile(filepath.Join(dir, "cookiecutter.yaml"))
			for _, v := range cfg.Versions {
				if !strings.Contains(string(config), "'"+v+"'") {
					t.Errorf("line %s is not in %s/cookiecutter.yaml", v, name)
				}
			}
			if _, err := ReleaseLines(cfg); err != nil {
				t.Fatal(err)
			}
			data := []byte(files[PyprojectPath])
			for _, v := range cfg.Versions {
				got, err := SelectUpstream(data, cfg, v)
				if err != nil {
					t.Fatalf("select %s: %v", v, err)
				}
				doc, err := pytoml.Parse(PyprojectPath, got)
				if err != nil {
					t.Fatal(err)
				}
				urls := doc.StringValues(CodegenURLKey)
				if len(urls) == 0 || urls[0].Element != 0 {
					t.Fatalf("input located as %+v, want the elements of an array", urls)
				}
				for _, u := range urls {
					if !strings.Contains(u.Text, cfg.Prefix+v) {
						t.Errorf("select %s: input %s", v, u.Text)
					}
				}
				// Outside the URLs every byte stays: undo the edits and compare.
				orig, _ := pytoml.Parse(PyprojectPath, data)
				var back []pytoml.Edit
				for i, u := range doc.StringValues(CodegenURLKey) {
					back = append(back, pytoml.Edit{Value: u, Raw: pytoml.Quote(orig.StringValues(CodegenURLKey)[i].Text)})
				}
				if string(doc.Apply(back...)) != string(data) {
					t.Errorf("select %s changed bytes outside the input URLs", v)
				}
			}
		})
	}
}

// FuzzParseLineConfig feeds arbitrary workflow text to the release-lines reader: it never
// panics, an error names the file, and what it accepts has a prefix.
func FuzzParseLineConfig(f *testing.F) {
	f.Add("jobs:\n  u:\n    strategy:\n      matrix:\n        model_version: ['1.29.13', '1.32.1']\n    steps:\n      - run: sed -i \"s|refs/tags/v[0-9]\\+\\.[0-9]\\+\\.[0-9]\\+/|x|\" pyproject.toml\n")
	f.Add("jobs:\n  r:\n    strategy:\n      matrix:\n        model_version: ['2.16.1']\n    env:\n      MODEL_VERSION_PREFIX: releases/download/v\n")
	f.Add("jobs: [")
	f.Fuzz(func(t *testing.T, workflow string) {
		cfg, err := ParseLineConfig("w.yml", []byte(workflow))
		if err != nil {
			if !strings.Contains(err.Error(), "w.yml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if strings.TrimSpace(cfg.Prefix) == "" || cfg.Path != "w.yml" {
			t.Fatalf("accepted %+v", cfg)
		}
	})
}
