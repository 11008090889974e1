package cookiecutter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Context builds the cookiecutter variables the way cookiecutter does with --no-input: the
// keys of cookiecutter.json in their order, each overridden by the config file's
// default_context and then by extra (the command line's key=value), and each rendered
// with the variables before it (module_name's default is a template of model_name).
// Private variables (a leading "_") are taken as they are.
func Context(cookiecutterJSON, configYAML []byte, extra map[string]string) (map[string]string, error) {
	keys, defaults, err := orderedObject(cookiecutterJSON)
	if err != nil {
		return nil, fmt.Errorf("cookiecutter.json: %w", err)
	}
	var config struct {
		DefaultContext map[string]string `yaml:"default_context"`
	}
	if err := yaml.Unmarshal(configYAML, &config); err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	ctx := map[string]string{}
	for _, k := range keys {
		raw := defaults[k]
		if v, ok := config.DefaultContext[k]; ok {
			raw = v
		}
		if v, ok := extra[k]; ok {
			raw = v
		}
		if strings.HasPrefix(k, "_") {
			ctx[k] = raw
			continue
		}
		v, err := Render(raw, ctx)
		if err != nil {
			return nil, fmt.Errorf("variable %s: %w", k, err)
		}
		ctx[k] = v
	}
	return ctx, nil
}

func orderedObject(data []byte) ([]string, map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object")
	}
	var keys []string
	values := map[string]string{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, nil, fmt.Errorf("%s: only string variables are supported: %w", key, err)
		}
		keys = append(keys, key)
		values[key] = v
	}
	return keys, values, nil
}

// RenderDir renders every file of the template folder templateDir (the one holding
// cookiecutter.json and the `{{ cookiecutter.… }}` project folder), paths and contents,
// and returns the project's files by slash-separated path relative to the rendered
// project folder, with that folder's name. hooks/ is not part of the output.
func RenderDir(templateDir string, ctx map[string]string) (project string, files map[string]string, err error) {
	entries, err := os.ReadDir(templateDir)
	if err != nil {
		return "", nil, err
	}
	var projectDir string
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), "{{") {
			if projectDir != "" {
				return "", nil, fmt.Errorf("%s: two project folders, %s and %s", templateDir, projectDir, e.Name())
			}
			projectDir = e.Name()
		}
	}
	if projectDir == "" {
		return "", nil, fmt.Errorf("%s: no {{ cookiecutter.… }} project folder", templateDir)
	}
	if project, err = Render(projectDir, ctx); err != nil {
		return "", nil, err
	}
	files = map[string]string{}
	root := filepath.Join(templateDir, projectDir)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		name, err := Render(filepath.ToSlash(rel), ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out, err := Render(string(data), ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		files[name] = out
		return nil
	})
	return project, files, err
}

// overlays are the files the template's post-generation hook appends from the config
// folder (_config_dir) to the rendered ones of the same name, when they exist there.
var overlays = []string{"Makefile", "pyproject.toml", "README.md"}

// AppendOverlays does what the hook's `cat $_config_dir/<file> >> <file>` lines do.
func AppendOverlays(files map[string]string, configDir string) error {
	for _, name := range overlays {
		data, err := os.ReadFile(filepath.Join(configDir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		files[name] += string(data)
	}
	return nil
}

// Integration renders the project of one integration of a Cloudcoil checkout (root holds
// cookiecutter/ and models/<name>/) as `make gen-repo-<name>` does before the hook's uv
// and lint steps: the template with models/<name>/cookiecutter.yaml and _config_dir, then
// the overlays appended.
func Integration(root, name string) (project string, files map[string]string, err error) {
	tmpl := filepath.Join(root, "cookiecutter")
	cc, err := os.ReadFile(filepath.Join(tmpl, "cookiecutter.json"))
	if err != nil {
		return "", nil, err
	}
	configDir := filepath.Join(root, "models", name)
	config, err := os.ReadFile(filepath.Join(configDir, "cookiecutter.yaml"))
	if err != nil {
		return "", nil, err
	}
	ctx, err := Context(cc, config, map[string]string{"_config_dir": configDir})
	if err != nil {
		return "", nil, err
	}
	if project, files, err = RenderDir(tmpl, ctx); err != nil {
		return "", nil, err
	}
	return project, files, AppendOverlays(files, configDir)
}
