package pins

import (
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
)

// hex64 is a well-formed sha256 digest's hex.
const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

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
		{"not an image", "trivy=notanimage", nil, "not pinned by digest"},
		{"unknown name, alpine by digest", "nosuch=alpine@sha256:" + hex64, nil, `no pinned image is named "nosuch"`},
		{"by tag", "python-3.12=python:3.12", nil, "not pinned by digest"},
		{"short digest", "go=golang@sha256:0123", nil, "not pinned by digest"},
		{"upper-case digest", "go=golang@sha256:" + strings.ToUpper(hex64), nil, "not pinned by digest"},
		{"malformed image", "go=Golang/UPPER@sha256:" + hex64, nil, "not an image reference"},
		{"space in the image", "go=golang 1.26@sha256:" + hex64, nil, "not an image reference"},
		{"empty tag", "go=golang:@sha256:" + hex64, nil, "not an image reference"},
		{"two digests", "go=golang@sha256:" + hex64 + "@sha256:" + hex64, nil, "not an image reference"},
		{"spaces around the image", "go= " + img + " ", nil, "not pinned by digest"},
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

// --python-image is held to the digest rule of every pin (CheckImage): a tag alone would
// run whatever the tag moves to with the caller's checkout mounted. Every refusal names the
// flag's value and the fix, and no value, however malformed, panics.
func TestPythonImageOverrides(t *testing.T) {
	const img = "registry.example/python:3.14-slim@sha256:" + hex64
	tests := []struct {
		name     string
		override string
		// minor and want are the pin an accepted value sets; errs are what a refusal says.
		minor, want string
		errs        []string
	}{
		{"digest-pinned, new minor", "3.14=" + img, "3.14", img, nil},
		{"digest-pinned, replaces a default", "3.12=python@sha256:" + hex64, "3.12", "python@sha256:" + hex64, nil},
		{"tag only", "3.12=python:3.12", "", "", []string{`--python-image "3.12=python:3.12"`, "not pinned by digest", "@sha256:<64 hex digits>"}},
		{"tag only, registry named", "3.14=docker.io/library/python:3.14-slim", "", "", []string{`--python-image "3.14=docker.io/library/python:3.14-slim"`, "not pinned by digest"}},
		{"short digest", "3.14=python:3.14-slim@sha256:0123", "", "", []string{`"3.14=python:3.14-slim@sha256:0123"`, "not pinned by digest"}},
		{"upper-case digest", "3.14=python@sha256:" + strings.ToUpper(hex64), "", "", []string{"not pinned by digest"}},
		{"other algorithm", "3.14=python@sha512:" + hex64 + hex64, "", "", []string{"not pinned by digest"}},
		{"malformed image", "3.14=Python/UPPER@sha256:" + hex64, "", "", []string{"not an image reference"}},
		{"spaces around the image", "3.14= " + img + " ", "", "", []string{"not pinned by digest"}},
		{"digest alone", "3.14=@sha256:" + hex64, "", "", []string{"not an image reference"}},
		{"no image", "3.14=", "", "", []string{`--python-image "3.14="`, "3.X=IMAGE@sha256:<64 hex digits>"}},
		{"no equals", "3.14", "", "", []string{`--python-image "3.14"`, "3.X=IMAGE@sha256:<64 hex digits>"}},
		{"no minor", "=" + img, "", "", []string{"3.X=IMAGE@sha256:<64 hex digits>"}},
		{"not a minor", "python=3.14", "", "", []string{`--python-image "python=3.14"`, "3.X=IMAGE@sha256:<64 hex digits>"}},
		{"a major only", "3=" + img, "", "", []string{"3.X=IMAGE@sha256:<64 hex digits>"}},
		{"control characters", "3.14=py\x00thon\n@sha256:" + hex64, "", "", []string{"not an image reference"}},
		{"very long", "3.14=" + strings.Repeat("a/", 400) + "b@sha256:" + hex64, "", "", []string{"not an image reference"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			defaults := DefaultPins()
			got, err := defaults.WithPythonImages([]string{tc.override})
			if tc.errs != nil {
				if err == nil {
					t.Fatalf("--python-image %q accepted: %q", tc.override, got.Python)
				}
				for _, want := range append(tc.errs, "pin it by digest") {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("err = %v\nlacks %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v := got.Python[tc.minor]; v != tc.want {
				t.Errorf("python %s = %q, want %q", tc.minor, v, tc.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("pins with the override invalid: %v", err)
			}
			if defaults.Python["3.12"] != DefaultPins().Python["3.12"] || len(defaults.Python) != len(DefaultPins().Python) {
				t.Error("WithPythonImages changed its receiver")
			}
		})
	}
}

// Every refusal of a --pin names the value, the pin names and the form expected, so a
// caller fixes it from the message alone.
func TestPinErrorsNameTheFix(t *testing.T) {
	for _, o := range []string{"trivy=notanimage", "nosuch=alpine@sha256:" + hex64, "python-3.12=python:3.12", "go=Golang@sha256:" + hex64, "go"} {
		_, err := DefaultPins().WithOverrides([]string{o})
		if err == nil {
			t.Errorf("--pin %q was accepted", o)
			continue
		}
		for _, want := range []string{o, "python-3.X", "uv, trivy, k3s, go", "NAME=IMAGE@sha256:<64 hex digits>"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("--pin %q: %v\nlacks %q", o, err, want)
			}
		}
	}
}

// The default pins have the form every override must have.
func TestDefaultPinsAreWellFormed(t *testing.T) {
	p := DefaultPins()
	all := []string{p.UV, p.Trivy, p.K3s, p.Go}
	for _, img := range p.Python {
		all = append(all, img)
	}
	for _, img := range all {
		if err := CheckImage(img); err != nil {
			t.Errorf("default pin: %v", err)
		}
	}
}

func TestCheckImage(t *testing.T) {
	for ref, ok := range map[string]bool{
		"docker.io/library/python:3.13-slim-bookworm@sha256:" + hex64: true,
		"10.87.0.1:5000/shipyard-test/base@sha256:" + hex64:           true,
		"localhost:5000/a/b_c/d__e/f-g.h@sha256:" + hex64:             true,
		"[::1]:5000/base@sha256:" + hex64:                             true,
		"[::1]:5000/x@sha256:" + hex64:                                false,
		"alpine@sha256:" + hex64:                                      true,
		"alpine:3.20@sha256:" + hex64:                                 true,
		"alpine":                                                      false,
		"alpine:3.20":                                                 false,
		"alpine@sha512:" + hex64 + hex64:                              false,
		"Alpine@sha256:" + hex64:                                      false,
		"alpine:-x@sha256:" + hex64:                                   false,
		"alpine:" + strings.Repeat("x", 129) + "@sha256:" + hex64:     false,
		"-bad.example/x@sha256:" + hex64:                              false,
		"/x@sha256:" + hex64:                                          false,
		"x/@sha256:" + hex64:                                          false,
		"x//y@sha256:" + hex64:                                        false,
		"x..y@sha256:" + hex64:                                        false,
		"@sha256:" + hex64:                                            false,
		"":                                                            false,
	} {
		if err := CheckImage(ref); (err == nil) != ok {
			t.Errorf("CheckImage(%q) = %v, want ok %t", ref, err, ok)
		}
	}
}

// CheckImage is never more lenient than go-containerregistry's strict reference parser:
// whatever it accepts, a registry client reads as the same digest reference.
func FuzzCheckImage(f *testing.F) {
	for _, s := range []string{"alpine@sha256:" + hex64, "docker.io/library/python:3.13@sha256:" + hex64,
		"10.87.0.1:5000/base@sha256:" + hex64, "[::1]:5000/xy@sha256:" + hex64, "a-b.c_d/e__f@sha256:" + hex64, "x:y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		if CheckImage(ref) != nil {
			return
		}
		d, err := name.NewDigest(ref)
		if err != nil {
			t.Fatalf("CheckImage accepted %q, which go-containerregistry refuses: %v", ref, err)
		}
		if !strings.HasSuffix(ref, "@"+d.DigestStr()) {
			t.Fatalf("%q: go-containerregistry reads the digest %s", ref, d.DigestStr())
		}
	})
}
