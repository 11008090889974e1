package selfrelease

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// renovateConfig is the part of Renovate's configuration the example sets.
type renovateConfig struct {
	CustomManagers []struct {
		CustomType          string   `json:"customType"`
		ManagerFilePatterns []string `json:"managerFilePatterns"`
		MatchStrings        []string `json:"matchStrings"`
		DatasourceTemplate  string   `json:"datasourceTemplate"`
		PackageNameTemplate string   `json:"packageNameTemplate"`
		VersioningTemplate  string   `json:"versioningTemplate"`
		DepNameTemplate     string   `json:"depNameTemplate"`
		// ExtractVersionTemplate turns a release's tag into the version.
		ExtractVersionTemplate string `json:"extractVersionTemplate"`
	} `json:"customManagers"`
	PackageRules []struct {
		MatchDepNames []string `json:"matchDepNames"`
		GroupName     string   `json:"groupName"`
	} `json:"packageRules"`
}

// readRenovateConfig reads the example Renovate configuration.
func readRenovateConfig(t *testing.T) renovateConfig {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "renovate", "renovate.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg renovateConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("renovate.json: %v", err)
	}
	return cfg
}

// userFiles are the files that carry Shipyard's pin in an adopting repository, at the
// paths they have there: the wrappers copied into .github/workflows/, and the workflows
// the template patch writes into Cloudcoil's template (rendered into every model
// repository's .github/workflows/ too).
func userFiles(t *testing.T) map[string][]byte {
	t.Helper()
	root := filepath.Join("..", "..")
	out := map[string][]byte{}
	wrappers, err := filepath.Glob(filepath.Join(root, "examples", "github-actions", "*", "*.yml"))
	if err != nil || len(wrappers) == 0 {
		t.Fatalf("no wrappers (%v)", err)
	}
	for _, f := range wrappers {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[".github/workflows/"+filepath.Base(f)] = b
	}
	template, err := filepath.Glob(filepath.Join(root, "models", "genrepo", "template", "*.yml"))
	if err != nil || len(template) == 0 {
		t.Fatalf("no template workflows (%v)", err)
	}
	for _, f := range template {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out["cookiecutter/models-{{ cookiecutter.model_name }}/.github/workflows/"+filepath.Base(f)] = b
	}
	return out
}

// jsRegex turns one of Renovate's "/…/" patterns (JavaScript syntax) into Go's: the two
// agree on what the example uses (classes, groups, named groups (?<name>…)).
func jsRegex(t *testing.T, p string) *regexp.Regexp {
	t.Helper()
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] != '/' {
		t.Fatalf("%q is not a /regex/ pattern", p)
	}
	return regexp.MustCompile(p[1 : len(p)-1])
}

// TestRenovateUpdatesThePins reads the example Renovate configuration as Renovate does:
// its file patterns select every file of an adopting repository that pins Shipyard and
// nothing else, and its match string captures each pin (module, commit, tag) exactly as
// FindPins reads it, so an update rewrites the commit and the tag together.
func TestRenovateUpdatesThePins(t *testing.T) {
	cfg := readRenovateConfig(t)
	if len(cfg.CustomManagers) != 2 {
		t.Fatalf("%d custom managers, want Shipyard's and the Dagger CLI's", len(cfg.CustomManagers))
	}
	m := cfg.CustomManagers[0]
	if m.CustomType != "regex" || m.DatasourceTemplate != "git-tags" || m.VersioningTemplate != "semver" ||
		m.PackageNameTemplate != "https://{{{depName}}}" {
		t.Errorf("manager %+v: want a regex manager on git-tags of https://<depName>, semver", m)
	}
	files := userFiles(t)
	files["README.md"] = []byte("SHIPYARD: " + Module + "@" + sha + " # v0.1.0\n")
	files["docs/tesk-core.md"] = files["README.md"]
	pinned := 0
	for path, content := range files {
		selected := false
		for _, p := range m.ManagerFilePatterns {
			selected = selected || jsRegex(t, p).MatchString(path)
		}
		pins := FindPins(path, content)
		switch {
		case strings.HasSuffix(path, ".md") && selected:
			t.Errorf("%s: a document is selected by managerFilePatterns; its pins are the tag alone, which scripts/shipyard-release repin keeps", path)
			continue
		case strings.HasSuffix(path, ".md"):
			continue
		case len(pins) > 0 && !selected:
			t.Errorf("%s pins Shipyard but managerFilePatterns do not select it", path)
			continue
		case !selected:
			continue
		}
		var found []Pin
		for _, ms := range m.MatchStrings {
			re := jsRegex(t, "/"+ms+"/")
			for _, g := range re.FindAllStringSubmatch(string(content), -1) {
				cap := map[string]string{}
				for i, name := range re.SubexpNames() {
					if name != "" {
						cap[name] = g[i]
					}
				}
				if cap["depName"] != Module {
					t.Errorf("%s: depName %q, want %s", path, cap["depName"], Module)
				}
				found = append(found, Pin{Commit: cap["currentDigest"], Tag: cap["currentValue"]})
			}
		}
		if len(found) != len(pins) {
			t.Errorf("%s: Renovate matches %d pins, the file has %d: %v", path, len(found), len(pins), pins)
			continue
		}
		for i := range pins {
			if found[i].Commit != pins[i].Commit || found[i].Tag != pins[i].Tag {
				t.Errorf("%s:%d: Renovate reads %s@%s # %s, the pin is %s", path, pins[i].Line, Module, found[i].Commit, found[i].Tag, pins[i])
			}
		}
		pinned += len(pins)
	}
	if pinned < 10 {
		t.Errorf("Renovate updates %d pins; the wrappers and the template hold more", pinned)
	}
}

// TestRenovateUpdatesTheDaggerCLI: the second manager reads every workflow's one
// DAGGER_VERSION (the version dagger-for-github installs in each job) as a release of
// dagger/dagger, in the same group as Shipyard's pin, so one pull request moves both and
// its CI runs the pinned release on the new CLI.
func TestRenovateUpdatesTheDaggerCLI(t *testing.T) {
	cfg := readRenovateConfig(t)
	if len(cfg.CustomManagers) < 2 {
		t.Fatalf("%d custom managers, want the Dagger CLI's second", len(cfg.CustomManagers))
	}
	m := cfg.CustomManagers[1]
	if m.CustomType != "regex" || m.DatasourceTemplate != "github-releases" || m.DepNameTemplate != "dagger/dagger" || m.ExtractVersionTemplate != "^v(?<version>.*)$" {
		t.Errorf("manager %+v: want a regex manager on dagger/dagger's GitHub releases, tags v<version>", m)
	}
	if len(cfg.PackageRules) == 0 || !slices.Contains(cfg.PackageRules[0].MatchDepNames, "dagger/dagger") || !slices.Contains(cfg.PackageRules[0].MatchDepNames, Module) {
		t.Errorf("package rules %+v: want dagger/dagger grouped with %s", cfg.PackageRules, Module)
	}
	use := regexp.MustCompile(`version: \$\{\{ env\.DAGGER_VERSION \}\}`)
	files := userFiles(t)
	for path, content := range files {
		selected := false
		for _, p := range m.ManagerFilePatterns {
			selected = selected || jsRegex(t, p).MatchString(path)
		}
		if !selected {
			t.Errorf("%s: managerFilePatterns do not select it", path)
			continue
		}
		var found []string
		for _, ms := range m.MatchStrings {
			re := jsRegex(t, "/"+ms+"/")
			for _, g := range re.FindAllStringSubmatch(string(content), -1) {
				found = append(found, g[re.SubexpIndex("currentValue")])
			}
		}
		if len(found) != 1 {
			t.Errorf("%s: Renovate reads %d DAGGER_VERSION values %v, want the workflow's one", path, len(found), found)
			continue
		}
		if !use.Match(content) {
			t.Errorf("%s: no job installs ${{ env.DAGGER_VERSION }}", path)
		}
	}
}
