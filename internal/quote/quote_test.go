package quote

import (
	"testing"

	"github.com/pelletier/go-toml/v2"
	"gopkg.in/yaml.v3"
)

// Each string is written as expected, and reads back as itself with the format's own parser.
func TestQuote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, s, toml, yaml string
	}{
		{name: "empty", s: "", toml: `""`, yaml: `""`},
		{name: "a version", s: "1.2.3", toml: `"1.2.3"`, yaml: `"1.2.3"`},
		{name: "quote and backslash", s: `a"b\c`, toml: `"a\"b\\c"`, yaml: `"a\"b\\c"`},
		{name: "tab", s: "tab\there", toml: `"tab\u0009here"`, yaml: `"tab\x09here"`},
		{name: "line break", s: "line\nbreak", toml: `"line\u000Abreak"`, yaml: `"line\x0abreak"`},
		{name: "delete", s: "\x7f", toml: `"\u007F"`, yaml: `"\x7f"`},
		{name: "not ASCII, kept", s: "ünï ✓", toml: `"ünï ✓"`, yaml: `"ünï ✓"`},
		{name: "a URL with a comma", s: "https://x.example/a.yaml,https://x.example/b.yaml",
			toml: `"https://x.example/a.yaml,https://x.example/b.yaml"`, yaml: `"https://x.example/a.yaml,https://x.example/b.yaml"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := TOML(tt.s); got != tt.toml {
				t.Errorf("TOML(%q) = %s, want %s", tt.s, got, tt.toml)
			}
			var fromTOML struct{ K string }
			if err := toml.Unmarshal([]byte("K = "+TOML(tt.s)+"\n"), &fromTOML); err != nil || fromTOML.K != tt.s {
				t.Errorf("TOML(%q) reads back as %q, %v", tt.s, fromTOML.K, err)
			}
			if got := YAML(tt.s); got != tt.yaml {
				t.Errorf("YAML(%q) = %s, want %s", tt.s, got, tt.yaml)
			}
			var fromYAML struct{ K string }
			if err := yaml.Unmarshal([]byte("k: "+YAML(tt.s)+"\n"), &fromYAML); err != nil || fromYAML.K != tt.s {
				t.Errorf("YAML(%q) reads back as %q, %v", tt.s, fromYAML.K, err)
			}
		})
	}
}
