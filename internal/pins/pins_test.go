package pins

import (
	"strings"
	"testing"
)

func TestPinOverrides(t *testing.T) {
	const img = "10.87.0.1:5000/base@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		name     string
		override string
		get      func(Pins) string
		err      string
	}{
		{"python minor", "python-3.13=" + img, func(p Pins) string { return p.Python["3.13"] }, ""},
		{"new python minor", "python-3.14=" + img, func(p Pins) string { return p.Python["3.14"] }, ""},
		{"uv", "uv=" + img, func(p Pins) string { return p.UV }, ""},
		{"trivy", "trivy=" + img, func(p Pins) string { return p.Trivy }, ""},
		{"k3s", "k3s=" + img, func(p Pins) string { return p.K3s }, ""},
		{"go", "go=" + img, func(p Pins) string { return p.Go }, ""},
		{"unknown name", "node=" + img, nil, `no pinned image is named "node"`},
		{"not by digest", "go=golang:1.26", nil, "not pinned by digest"},
		{"no value", "go=", nil, "want NAME=IMAGE"},
		{"no equals", "go", nil, "want NAME=IMAGE"},
		{"bad python minor", "python-3=" + img, nil, `no pinned image is named "python-3"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defaults := DefaultPins()
			got, err := defaults.WithOverrides([]string{tc.override})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := tc.get(got); v != img {
				t.Errorf("pin = %q, want %q", v, img)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("overridden pins invalid: %v", err)
			}
			if DefaultPins().Python["3.13"] != defaults.Python["3.13"] || defaults.Go != DefaultPins().Go {
				t.Error("WithOverrides changed its receiver")
			}
		})
	}
}
