// Package pins holds the container images Shipyard runs, each pinned by tag and digest in
// one place, and the overrides a caller may give (a mirror, an air-gapped registry). Both
// systems' graphs import it: tesk-core's CI and the Cloudcoil model flows.
package pins

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Pins are the container images Shipyard runs, each pinned by tag and digest in this
// one place so that update tooling can bump them; every one can be overridden by a flag.
type Pins struct {
	// Python maps a minor version ("3.12") to its image.
	Python map[string]string `json:"python"`
	UV     string            `json:"uv"`
	Trivy  string            `json:"trivy"`
	K3s    string            `json:"k3s"`
	// Go builds the signing command (supplychain/); its Go satisfies supplychain/go.mod.
	Go string `json:"go"`
}

// pythonMinor is a Python minor version as pins and matrices name it: 3.X.
var pythonMinor = regexp.MustCompile(`^3\.(0|[1-9][0-9]*)$`)

// IsPythonMinor reports whether v names a Python minor version, e.g. 3.12.
func IsPythonMinor(v string) bool { return pythonMinor.MatchString(v) }

// DefaultGoImage builds the signing command; its Go satisfies supplychain/go.mod.
const DefaultGoImage = "docker.io/library/golang:1.26.2-bookworm@sha256:47ce5636e9936b2c5cbf708925578ef386b4f8872aec74a67bd13a627d242b19"

// DefaultPins returns the images Shipyard was last tested with.
func DefaultPins() Pins {
	return Pins{
		Python: map[string]string{
			"3.10": "docker.io/library/python:3.10-slim-bookworm@sha256:9643927a6fc74bd81b0f1bbb5cce3cb4a491f46b4c5dbee770f28e575f180015",
			"3.11": "docker.io/library/python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b",
			"3.12": "docker.io/library/python:3.12-slim-bookworm@sha256:34386ef0cb081344d7ec1c103ba398e6e9f64e9ab3a1509accc92a4e24a07258",
			"3.13": "docker.io/library/python:3.13-slim-bookworm@sha256:21e39cf1815802d4c6f89a0d3a166cc67ce58f95b6d1639e68a394c99310d2e5",
		},
		UV:    "ghcr.io/astral-sh/uv:0.9.18@sha256:5713fa8217f92b80223bc83aac7db36ec80a84437dbc0d04bbc659cae030d8c9",
		Trivy: "docker.io/aquasec/trivy:0.69.3@sha256:bcc376de8d77cfe086a917230e818dc9f8528e3c852f7b1aff648949b6258d1c",
		K3s:   "docker.io/rancher/k3s:v1.34.3-k3s1@sha256:c63773f3549c09ac5f79f57ae3b057118e7de394b3ae84cd9faf68a1be872ae5",
		Go:    DefaultGoImage,
	}
}

// PythonImage returns the image for a Python minor version, or an error naming the versions
// that have one and the flag that adds another.
func (p Pins) PythonImage(minor string) (string, error) {
	if img, ok := p.Python[minor]; ok && img != "" {
		return img, nil
	}
	known := make([]string, 0, len(p.Python))
	for v := range p.Python {
		known = append(known, v)
	}
	sort.Strings(known)
	return "", fmt.Errorf("no pinned image for Python %s (pinned: %s); pass --python-image %s=<image@digest>",
		minor, strings.Join(known, ", "), minor)
}

// WithPythonImages returns a copy of p with "3.X=image" overrides applied.
func (p Pins) WithPythonImages(overrides []string) (Pins, error) {
	out := p
	out.Python = make(map[string]string, len(p.Python)+len(overrides))
	for k, v := range p.Python {
		out.Python[k] = v
	}
	for _, o := range overrides {
		minor, img, ok := strings.Cut(o, "=")
		if !ok || !IsPythonMinor(minor) || strings.TrimSpace(img) == "" {
			return p, fmt.Errorf("--python-image %q: want 3.X=<image>, e.g. 3.12=python:3.12-slim@sha256:…", o)
		}
		out.Python[minor] = img
	}
	return out, nil
}

// WithOverrides returns a copy of p with NAME=IMAGE overrides applied, for a registry
// mirror or an air-gapped registry: python-3.X, uv, trivy, k3s or go. Like every pin, an
// override must be pinned by digest.
func (p Pins) WithOverrides(overrides []string) (Pins, error) {
	out := p
	out.Python = make(map[string]string, len(p.Python))
	for k, v := range p.Python {
		out.Python[k] = v
	}
	for _, o := range overrides {
		name, img, ok := strings.Cut(o, "=")
		img = strings.TrimSpace(img)
		if !ok || img == "" {
			return p, fmt.Errorf("--pin %q: want NAME=IMAGE@sha256:…, e.g. go=registry.example/golang:1.26@sha256:…", o)
		}
		if !strings.Contains(img, "@sha256:") {
			return p, fmt.Errorf("--pin %q: the image is not pinned by digest (image:tag@sha256:…)", o)
		}
		switch minor, isPython := strings.CutPrefix(name, "python-"); {
		case isPython && IsPythonMinor(minor):
			out.Python[minor] = img
		case name == "uv":
			out.UV = img
		case name == "trivy":
			out.Trivy = img
		case name == "k3s":
			out.K3s = img
		case name == "go":
			out.Go = img
		default:
			return p, fmt.Errorf("--pin %q: no pinned image is named %q (names: python-3.X, uv, trivy, k3s, go)", o, name)
		}
	}
	return out, nil
}

// Validate reports pins that are empty or not pinned by digest, so a typo in an override
// fails before anything runs instead of pulling a moving tag.
func (p Pins) Validate() error {
	var bad []string
	check := func(name, img string) {
		if img == "" {
			bad = append(bad, name+" is empty")
		} else if !strings.Contains(img, "@sha256:") {
			bad = append(bad, fmt.Sprintf("%s %q is not pinned by digest (image:tag@sha256:…)", name, img))
		}
	}
	minors := make([]string, 0, len(p.Python))
	for v := range p.Python {
		minors = append(minors, v)
	}
	sort.Strings(minors)
	for _, v := range minors {
		check("python "+v, p.Python[v])
	}
	check("uv", p.UV)
	check("trivy", p.Trivy)
	check("k3s", p.K3s)
	check("go", p.Go)
	if len(bad) > 0 {
		return fmt.Errorf("image pins: %s", strings.Join(bad, "; "))
	}
	return nil
}
