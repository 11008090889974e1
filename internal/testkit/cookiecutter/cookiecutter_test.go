package cookiecutter

import (
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

func TestRender(t *testing.T) {
	ctx := map[string]string{"model_name": "cert-manager", "urls": "a, b", "empty": ""}
	tests := []struct{ name, tmpl, want, err string }{
		{"variable and filter", "{{ cookiecutter.model_name | replace('-', '_') }}", "cert_manager", ""},
		{"trim in a loop", "[{%- for u in cookiecutter.urls.split(',') %}\n  {{ u | trim }},{%- endfor %}\n]", "[\n  a,\n  b,\n]", ""},
		{"false if", "x{%- if cookiecutter.empty %}\ny{%- endif %}\n", "x\n", ""},
		{"raw keeps actions expressions", "{%- raw %}\n${{ github.ref }}\n{%- endraw %}", "\n${{ github.ref }}", ""},
		{"raw reopened", "{% raw %}a: {% endraw %}[{{cookiecutter.model_name}}]{% raw %} ${{ b }}{% endraw %}", "a: [cert-manager] ${{ b }}", ""},
		{"undefined", "{{ cookiecutter.nope }}", "", "undefined variable cookiecutter.nope"},
		{"unknown filter", "{{ cookiecutter.model_name | upper }}", "", `unsupported filter "upper"`},
		{"unclosed if", "{% if cookiecutter.empty %}", "", "is not closed"},
		{"unknown statement", "{% set x = 1 %}", "", "unsupported statement"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.tmpl, ctx)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Render = %q, %v; want an error containing %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Render = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestContextRendersDefaultsInOrder(t *testing.T) {
	cc := []byte(`{"model_name": "model", "module_name": "{{ cookiecutter.model_name | replace('-', '_') }}", "_config_dir": ""}`)
	ctx, err := Context(cc, []byte("default_context:\n  model_name: knative-serving\n"), map[string]string{"_config_dir": "/x/{{ y }}"})
	if err != nil {
		t.Fatal(err)
	}
	if ctx["module_name"] != "knative_serving" || ctx["_config_dir"] != "/x/{{ y }}" {
		t.Errorf("context = %v", ctx)
	}
}

// Every real integration renders with the real template, and the hook's overlays end up
// appended to the template's files.
func TestRealIntegrationsRender(t *testing.T) {
	root := filepath.Join(corpus.Dir(t, "cloudcoil"), "tree")
	names, err := filepath.Glob(filepath.Join(root, "models", "*"))
	if err != nil || len(names) != 12 {
		t.Fatalf("integrations: %v, %v", names, err)
	}
	for _, dir := range names {
		name := filepath.Base(dir)
		project, files, err := Integration(root, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if project != "models-"+name {
			t.Errorf("%s: project folder %q", name, project)
		}
		module := strings.ReplaceAll(name, "-", "_")
		if _, ok := files["cloudcoil/models/"+module+"/__init__.py"]; !ok {
			t.Errorf("%s: no package folder for %s", name, module)
		}
		if !strings.Contains(files["pyproject.toml"], `namespace = "cloudcoil.models.`+module+`"`) {
			t.Errorf("%s: pyproject.toml has no codegen namespace", name)
		}
		if strings.Contains(files[".github/workflows/update_releases.yml"], "{%") {
			t.Errorf("%s: update_releases.yml kept a Jinja tag", name)
		}
	}
}
