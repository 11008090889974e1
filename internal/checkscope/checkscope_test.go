package checkscope

import (
	"strings"
	"testing"
)

func TestModelRepository(t *testing.T) {
	tests := []struct {
		name    string
		data    []byte
		want    bool
		why     string
		wantErr bool
	}{
		{name: "the template's name", data: []byte("[project]\nname = \"cloudcoil.models.cert_manager\"\n"), want: true},
		{name: "normalised spelling", data: []byte("[project]\nname = \"Cloudcoil-Models-Kyverno\"\n"), want: true},
		{name: "tesk-core", data: []byte("[project]\nname = \"tesk-core\"\ndynamic = [\"version\"]\n"), why: `"tesk-core", not a model package`},
		{name: "the generator itself", data: []byte("[project]\nname = \"cloudcoil\"\n"), why: `"cloudcoil", not a model package`},
		{name: "no pyproject.toml", why: "no pyproject.toml"},
		{name: "no project name", data: []byte("[tool.uv]\n"), why: "no [project] name"},
		{name: "broken TOML", data: []byte("[project\nname = 1\n"), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, why, err := ModelRepository(tt.data)
			if (err != nil) != tt.wantErr || got != tt.want || !strings.Contains(why, tt.why) {
				t.Errorf("ModelRepository = %t, %q, %v; want %t, %q (error %t)", got, why, err, tt.want, tt.why, tt.wantErr)
			}
		})
	}
}

func FuzzModelRepository(f *testing.F) {
	f.Add([]byte("[project]\nname = \"cloudcoil.models.x\"\n"))
	f.Add([]byte("[project]\nname = 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ok, why, err := ModelRepository(data)
		if err == nil && !ok && why == "" {
			t.Errorf("not a model repository, without a reason: %q", data)
		}
	})
}

func TestTeskSkipped(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		skip bool
	}{
		{name: "a model repository", data: []byte("[project]\nname = \"cloudcoil.models.cert_manager\"\n"), skip: true},
		{name: "tesk-core", data: []byte("[project]\nname = \"tesk-core\"\n")},
		{name: "no pyproject.toml"},
		{name: "no project name", data: []byte("[tool.uv]\n")},
		{name: "broken TOML: the check runs and reports it", data: []byte("[project\nname = \"cloudcoil.models.x\"\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TeskSkipped("lint", tt.data)
			want := ""
			if tt.skip {
				want = "lint skipped: the source is a Cloudcoil model repository, not tesk-core; tesk-core's checks have nothing to check here"
			}
			if got != want {
				t.Errorf("TeskSkipped = %q, want %q", got, want)
			}
		})
	}
}

func TestModelSkipped(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		// why is the reason the skip gives; "" when the check runs.
		why     string
		wantErr string
	}{
		{name: "a model repository", data: []byte("[project]\nname = \"cloudcoil.models.cert_manager\"\n")},
		{name: "tesk-core", data: []byte("[project]\nname = \"tesk-core\"\n"), why: `pyproject.toml names the project "tesk-core", not a model package cloudcoil.models.<name>`},
		{name: "no pyproject.toml", why: "the tree has no pyproject.toml"},
		{name: "broken TOML", data: []byte("[project\n"), wantErr: "check-artifacts: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ModelSkipped("check-artifacts", tt.data)
			want := ""
			if tt.why != "" {
				want = "check-artifacts skipped: the source is not a generated Cloudcoil model repository (" + tt.why +
					"); this check builds a model package, so it has nothing to check in another project's repository"
			}
			if got != want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.wantErr)) {
				t.Errorf("ModelSkipped = %q, %v; want %q, error %q", got, err, want, tt.wantErr)
			}
		})
	}
}
