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
