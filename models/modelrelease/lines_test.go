package modelrelease

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/corpus"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// fixtureLines are the model repository fixture's release lines, from workflow when given.
func fixtureLines(t *testing.T, workflow string) modelenv.LineConfig {
	t.Helper()
	if workflow == "" {
		workflow = string(fixtureFile(t, modelenv.UpdateReleasesWorkflow))
	}
	cfg, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(workflow))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

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
			lines, err := modelenv.ReleaseLines(modelenv.LineConfig{Path: modelenv.UpdateReleasesWorkflow, Versions: tc.versions, Prefix: "v"})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), modelenv.UpdateReleasesWorkflow) {
					t.Fatalf("err = %v, want %q naming %s", err, tc.wantErr, modelenv.UpdateReleasesWorkflow)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := modelenv.LinesJSON(lines); got != tc.want {
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
		want           modelenv.LineConfig
		wantErr        string
	}{
		{"the real template's sed", real, modelenv.LineConfig{Path: "w.yml", Versions: []string{"1.29.13", "1.32.1"}, Prefix: "refs/tags/v"}, ""},
		{"the patched template's variable", patched, modelenv.LineConfig{Path: "w.yml", Versions: []string{"2.16.1"}, Prefix: "releases/download/v"}, ""},
		{"no prefix", strings.Replace(patched, "MODEL_VERSION_PREFIX", "OTHER", 1), modelenv.LineConfig{}, "no MODEL_VERSION_PREFIX and no sed rewrite"},
		{"no matrix", "jobs:\n  x:\n    runs-on: ubuntu-latest\n", modelenv.LineConfig{}, "no job has a model_version matrix"},
		{"not a list", strings.Replace(patched, "['2.16.1']", "'2.16.1'", 1), modelenv.LineConfig{}, "is not a list"},
		{"unquoted number", strings.Replace(patched, "['2.16.1']", "[2.16]", 1), modelenv.LineConfig{}, "is not a quoted version"},
		{"not YAML", "jobs: [", modelenv.LineConfig{}, "w.yml: not valid YAML"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := modelenv.ParseLineConfig("w.yml", []byte(tc.workflow))
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
			cfg, err := modelenv.ParseLineConfig(modelenv.UpdateReleasesWorkflow, []byte(files[modelenv.UpdateReleasesWorkflow]))
			if err != nil {
				t.Fatal(err)
			}
			config, _ := os.ReadFile(filepath.Join(dir, "cookiecutter.yaml"))
			for _, v := range cfg.Versions {
				if !strings.Contains(string(config), "'"+v+"'") {
					t.Errorf("line %s is not in %s/cookiecutter.yaml", v, name)
				}
			}
			if _, err := modelenv.ReleaseLines(cfg); err != nil {
				t.Fatal(err)
			}
			data := []byte(files[modelenv.PyprojectPath])
			for _, v := range cfg.Versions {
				got, err := modelenv.SelectUpstream(data, cfg, v)
				if err != nil {
					t.Fatalf("select %s: %v", v, err)
				}
				doc, err := pytoml.Parse(modelenv.PyprojectPath, got)
				if err != nil {
					t.Fatal(err)
				}
				urls := doc.StringValues(modelenv.CodegenURLKey)
				if len(urls) == 0 || urls[0].Element != 0 {
					t.Fatalf("input located as %+v, want the elements of an array", urls)
				}
				for _, u := range urls {
					if !strings.Contains(u.Text, cfg.Prefix+v) {
						t.Errorf("select %s: input %s", v, u.Text)
					}
				}
				// Outside the URLs every byte stays: undo the edits and compare.
				orig, _ := pytoml.Parse(modelenv.PyprojectPath, data)
				var back []pytoml.Edit
				for i, u := range doc.StringValues(modelenv.CodegenURLKey) {
					back = append(back, pytoml.Edit{Value: u, Raw: pytoml.Quote(orig.StringValues(modelenv.CodegenURLKey)[i].Text)})
				}
				if string(doc.Apply(back...)) != string(data) {
					t.Errorf("select %s changed bytes outside the input URLs", v)
				}
			}
		})
	}
}

// TestAPatchOnAnOldLineReleasesOnlyThatLine is the Update Versions matrix after a patch
// of the older line reaches main: every line runs, and only the patched one releases.
func TestAPatchOnAnOldLineReleasesOnlyThatLine(t *testing.T) {
	w := newWorld(t)
	lines, err := modelenv.ReleaseLines(fixtureLines(t, ""))
	if err != nil || len(lines) != 2 {
		t.Fatalf("lines %+v, %v", lines, err)
	}
	first := map[string]ReleaseResult{}
	for _, l := range lines {
		res, _, err := w.run(ReleaseOptions{Upstream: l.Upstream, AutoPublish: true}, nil, l.Upstream+".0")
		if err != nil || !res.Published {
			t.Fatalf("line %s: %v\n%s", l.Upstream, err, res.Text())
		}
		first[l.Branch] = res
	}

	// Cloudcoil's source update moves the old line from 1.16.3 to 1.16.4.
	patched := strings.Replace(string(fixtureFile(t, modelenv.UpdateReleasesWorkflow)), `'1.16.3', '1.17.1'`, `'1.16.4', '1.17.1'`, 1)
	w.setCheckout(map[string]string{modelenv.UpdateReleasesWorkflow: patched})
	lines, err = modelenv.ReleaseLines(fixtureLines(t, patched))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		w.sim.ResetLog()
		res, _, err := w.run(ReleaseOptions{Upstream: l.Upstream, AutoPublish: true}, nil, l.Upstream+".0")
		if err != nil {
			t.Fatalf("line %s: %v\n%s", l.Upstream, err, res.Text())
		}
		switch l.Branch {
		case "release-1.16":
			if !res.Published || res.Plan.Version != "1.16.4.0" || w.repo.Tag("1.16.4.0") != res.Commit {
				t.Errorf("the patched line:\n%s", res.Text())
			}
			if parents := w.repo.Parents(res.Commit); len(parents) != 1 || parents[0] != first["release-1.16"].Commit {
				t.Errorf("release-1.16 moved to %v, want a regular commit on its previous release", parents)
			}
			if rec := w.recordOf(w.repo.Branch("release-1.16")); rec.Upstream != "1.16.4" {
				t.Errorf("release-1.16 records %+v", rec)
			}
		case "release-1.17":
			if res.Plan.Decision.Action != models.Nothing || !res.Plan.Unchanged || res.Plan.Version != "1.17.1.0" {
				t.Errorf("the unchanged line:\n%s", res.Text())
			}
			w.noWrites()
			if w.repo.Branch("release-1.17") != first["release-1.17"].Commit {
				t.Error("release-1.17 moved")
			}
		default:
			t.Fatalf("unexpected line %+v", l)
		}
	}
	if n := len(w.repo.Releases()); n != 3 {
		t.Errorf("%d releases, want 1.16.3.0, 1.17.1.0 and 1.16.4.0", n)
	}
}

// FuzzParseLineConfig feeds arbitrary workflow text to the release-lines reader: it never
// panics, an error names the file, and what it accepts has a prefix.
func FuzzParseLineConfig(f *testing.F) {
	f.Add("jobs:\n  u:\n    strategy:\n      matrix:\n        model_version: ['1.29.13', '1.32.1']\n    steps:\n      - run: sed -i \"s|refs/tags/v[0-9]\\+\\.[0-9]\\+\\.[0-9]\\+/|x|\" pyproject.toml\n")
	f.Add("jobs:\n  r:\n    strategy:\n      matrix:\n        model_version: ['2.16.1']\n    env:\n      MODEL_VERSION_PREFIX: releases/download/v\n")
	f.Add("jobs: [")
	f.Fuzz(func(t *testing.T, workflow string) {
		cfg, err := modelenv.ParseLineConfig("w.yml", []byte(workflow))
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
