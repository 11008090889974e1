package modelenv

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"dagger.io/dagger"
	"gopkg.in/yaml.v3"
)

// LineConfig is what a model repository says about its release lines, as the Cloudcoil
// template renders it from the integration's cookiecutter.yaml: versions (the upstream
// versions released, one per minor line) becomes a workflow's `model_version` matrix, and
// version_replacement_sed (the text before the version in the schema URLs) becomes the
// prefix that workflow rewrites. Nothing else records them, so Shipyard reads them there.
type LineConfig struct {
	Path     string   // the workflow they were read from
	Versions []string // the model_version matrix, as written
	Prefix   string   // what precedes the version in the codegen input URLs
}

// The workflows the template renders the lines into, in the order Shipyard looks: the
// patched template's Shipyard release workflow, then the real template's Update Versions.
const (
	ShipyardReleaseWorkflow = ".github/workflows/shipyard_release.yml"
	UpdateReleasesWorkflow  = ".github/workflows/update_releases.yml"
)

// LineWorkflows returns the paths ReadLineConfig is given, in order of preference.
func LineWorkflows() []string {
	return []string{ShipyardReleaseWorkflow, UpdateReleasesWorkflow}
}

// prefixEnv is the job environment variable the patched template renders
// version_replacement_sed into.
const prefixEnv = "MODEL_VERSION_PREFIX"

// sedPrefix finds the prefix in the real template's rewrite of the schema URL:
// sed -i "s|<prefix>[0-9]\+\.[0-9]\+\.[0-9]\+/|<prefix>${{ matrix.model_version }}/|".
var sedPrefix = regexp.MustCompile(`s\|([^|\s"]+)\[0-9\]\\\+\\\.\[0-9\]\\\+\\\.\[0-9\]\\\+/\|`)

type workflowLines struct {
	Jobs map[string]struct {
		Env      map[string]string `yaml:"env"`
		Strategy struct {
			Matrix map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Run string `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// ParseLineConfig reads the release lines from a rendered workflow (path is for
// messages): the job whose matrix has model_version, its versions, and the prefix from
// the job's MODEL_VERSION_PREFIX or from its sed rewrite of the schema URL.
func ParseLineConfig(path string, workflow []byte) (LineConfig, error) {
	var w workflowLines
	if err := yaml.Unmarshal(workflow, &w); err != nil {
		return LineConfig{}, fmt.Errorf("%s: not valid YAML: %w", path, err)
	}
	names := make([]string, 0, len(w.Jobs))
	for name := range w.Jobs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		job := w.Jobs[name]
		raw, ok := job.Strategy.Matrix["model_version"]
		if !ok {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			return LineConfig{}, fmt.Errorf("%s: jobs.%s.strategy.matrix.model_version is not a list; the template renders it from versions in cookiecutter.yaml as ['X.Y.Z', …]", path, name)
		}
		cfg := LineConfig{Path: path}
		for _, v := range list {
			s, ok := v.(string)
			if !ok {
				return LineConfig{}, fmt.Errorf("%s: jobs.%s.strategy.matrix.model_version: %v is not a quoted version; write versions in cookiecutter.yaml as \"'1.2.3', '1.3.0'\"", path, name, v)
			}
			cfg.Versions = append(cfg.Versions, s)
		}
		cfg.Prefix = job.Env[prefixEnv]
		for _, st := range job.Steps {
			if cfg.Prefix != "" {
				break
			}
			if m := sedPrefix.FindStringSubmatch(st.Run); m != nil {
				cfg.Prefix = m[1]
			}
		}
		if strings.TrimSpace(cfg.Prefix) == "" {
			return LineConfig{}, fmt.Errorf("%s: job %s has no %s and no sed rewrite of the schema URL, so the text before the version in the input URLs is unknown; set version_replacement_sed in cookiecutter.yaml", path, name, prefixEnv)
		}
		return cfg, nil
	}
	return LineConfig{}, fmt.Errorf("%s: no job has a model_version matrix; the template renders versions from cookiecutter.yaml there", path)
}

// ReadLineConfig reads the release lines of the model repository dir from the first of
// LineWorkflows it has.
func ReadLineConfig(ctx context.Context, dir *dagger.Directory) (LineConfig, error) {
	for _, p := range LineWorkflows() {
		ok, err := dir.Exists(ctx, p)
		if err != nil {
			return LineConfig{}, fmt.Errorf("looking for %s: %w", p, err)
		}
		if !ok {
			continue
		}
		data, err := dir.File(p).Contents(ctx)
		if err != nil {
			return LineConfig{}, fmt.Errorf("%s: %w", p, err)
		}
		return ParseLineConfig(p, []byte(data))
	}
	return LineConfig{}, fmt.Errorf("neither %s nor %s is in the repository: the Cloudcoil template renders the release lines (versions in cookiecutter.yaml) into one of them; regenerate the repository with update-repos", ShipyardReleaseWorkflow, UpdateReleasesWorkflow)
}
