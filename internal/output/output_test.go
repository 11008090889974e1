package output

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		format  string
		allowed []string
		wantErr string
	}{
		{"text", nil, ""},
		{"json", nil, ""},
		{"yaml", nil, `--format "yaml": want text or json`},
		{"file", []string{Text, File}, ""},
		{"json", []string{Text, File}, `--format "json": want text or file`},
		{"", nil, `--format "": want text or json`},
	}
	for _, tt := range tests {
		err := Check(tt.format, tt.allowed...)
		if (err == nil) != (tt.wantErr == "") || (err != nil && err.Error() != tt.wantErr) {
			t.Errorf("Check(%q, %v) = %v, want %q", tt.format, tt.allowed, err, tt.wantErr)
		}
	}
}

func TestRender(t *testing.T) {
	v := struct {
		Tag string `json:"tag"`
	}{"v1.0.0"}
	text, err := Render(Text, v, func() string { return "Release v1.0.0\n" })
	if err != nil || text != "Release v1.0.0\n" {
		t.Errorf("text: %q, %v", text, err)
	}
	js, err := Render(JSON, v, func() string { return "unused" })
	if err != nil || js != "{\n  \"tag\": \"v1.0.0\"\n}\n" {
		t.Errorf("json: %q, %v", js, err)
	}
	if _, err := Render(JSON, func() {}, nil); err == nil {
		t.Error("a value JSON cannot encode rendered")
	}
}

func TestQuoted(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Brings signed images.\n", "    | Brings signed images.\n"},
		// A blank line stays a bare bar, and the trailing newlines end the block once.
		{"Intro.\n\n## Features\n\n\n", "    | Intro.\n    |\n    | ## Features\n"},
		{"", "    |\n"},
		{"  indented  \n", "    |   indented\n"},
	}
	for _, tt := range tests {
		if got := Quoted(tt.text); got != tt.want {
			t.Errorf("Quoted(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestYesNo(t *testing.T) {
	if YesNo(true) != "yes" || YesNo(false) != "no" {
		t.Errorf("YesNo: %q, %q", YesNo(true), YesNo(false))
	}
}

func TestMarshal(t *testing.T) {
	got, err := Marshal(map[string][]string{"tags": {"0.11.0", "latest"}})
	if err != nil || got != "{\n  \"tags\": [\n    \"0.11.0\",\n    \"latest\"\n  ]\n}\n" {
		t.Errorf("Marshal = %q, %v", got, err)
	}
	if _, err := Marshal(make(chan int)); err == nil || !strings.HasPrefix(err.Error(), "rendering the result: ") {
		t.Errorf("a value JSON cannot encode: %v", err)
	}
}
