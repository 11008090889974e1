// Package pins holds the container images Shipyard runs, each pinned by tag and digest in
// one place, and the overrides a caller may give (a mirror, an air-gapped registry). Both
// systems' graphs import it: tesk-core's CI and the Cloudcoil model flows.
package pins

import (
	"fmt"
	"regexp"
	"slices"
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

// PythonImageForm is the form of a --python-image value.
const PythonImageForm = "3.X=IMAGE@sha256:<64 hex digits>"

// WithPythonImages returns a copy of p with --python-image overrides applied, each
// 3.X=IMAGE@sha256:<64 hex digits>: like every pin (CheckImage), an image pinned by digest,
// since a tag alone would run whatever it moves to with the caller's checkout mounted. The
// error names the value, the form and the fix.
func (p Pins) WithPythonImages(overrides []string) (Pins, error) {
	out := p
	out.Python = make(map[string]string, len(p.Python)+len(overrides))
	for k, v := range p.Python {
		out.Python[k] = v
	}
	for _, o := range overrides {
		minor, img, ok := strings.Cut(o, "=")
		err := fmt.Errorf("want %s", PythonImageForm)
		if ok && IsPythonMinor(minor) && img != "" {
			err = CheckImage(img)
		}
		if err != nil {
			return p, fmt.Errorf("--python-image %q: %w; pin it by digest, e.g. 3.12=python:3.12-slim@sha256:…", o, err)
		}
		out.Python[minor] = img
	}
	return out, nil
}

// Names are the names --pin takes, as its errors list them.
const Names = "python-3.X (e.g. python-3.13), uv, trivy, k3s, go"

// OverrideForm is the form of a --pin value.
const OverrideForm = "NAME=IMAGE@sha256:<64 hex digits>"

// image is an image reference pinned by digest, IMAGE[:TAG]@sha256:<64 hex>, in the
// grammar of the OCI distribution reference (github.com/distribution/reference,
// reference.go and normalize.go): a name of an optional domain (host and port) and path components of
// lower-case letters and digits joined by its separators, a tag of at most 128 word
// characters, dots and dashes, and the digest. Dagger and the registry commands read the
// same grammar; a repository path of one character, which go-containerregistry refuses
// outside Docker Hub, is refused here too.
var image = func() *regexp.Regexp {
	const (
		domainComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
		// A first component is a domain only when it looks like one (distribution's
		// splitDockerDomain): a dot, a port, localhost, or an IPv6 address in brackets.
		domain = `(?:` + domainComponent + `(?:\.` + domainComponent + `)+(?::[0-9]+)?|` +
			domainComponent + `:[0-9]+|localhost|\[[a-fA-F0-9]*:[a-fA-F0-9:]*\](?::[0-9]+)?)`
		pathComponent = `[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`
		path          = pathComponent + `(?:/` + pathComponent + `)*`
		tag           = `[\w][\w.-]{0,127}`
	)
	return regexp.MustCompile(`^(?:` + domain + `/)?(` + path + `)(?::` + tag + `)?@sha256:[a-f0-9]{64}$`)
}()

// pinnedByDigest is the end of a reference by digest: @sha256: and 64 lower-case hex digits.
var pinnedByDigest = regexp.MustCompile(`@sha256:[a-f0-9]{64}$`)

// CheckImage reports whether ref is an image reference pinned by digest,
// IMAGE[:TAG]@sha256:<64 hex digits>, e.g.
// registry.example/library/golang:1.26@sha256:…: what every pin must be.
func CheckImage(ref string) error {
	switch m := image.FindStringSubmatch(ref); {
	case !pinnedByDigest.MatchString(ref):
		return fmt.Errorf("%q is not pinned by digest: want IMAGE[:TAG]@sha256:<64 hex digits>", ref)
	case m == nil || len(ref) > 512:
		return fmt.Errorf("%q is not an image reference: want IMAGE[:TAG]@sha256:<64 hex digits>, IMAGE as [HOST[:PORT]/]PATH in lower case", ref)
	case len(m[1]) < 2:
		return fmt.Errorf("%q is not an image reference: its repository path %q is shorter than 2 characters", ref, m[1])
	}
	return nil
}

// ParseOverride reads one --pin value, NAME=IMAGE@sha256:<64 hex digits>, e.g.
// go=registry.example/golang:1.26@sha256:…: NAME one of Names, IMAGE pinned by digest
// (CheckImage). It is pure, for every function's constructor and any later reader of pins.
// The error names the value, the names and the form.
func ParseOverride(o string) (name, img string, err error) {
	name, img, ok := strings.Cut(o, "=")
	switch {
	case !ok || img == "":
		err = fmt.Errorf("want %s", OverrideForm)
	case !knownName(name):
		err = fmt.Errorf("no pinned image is named %q", name)
	default:
		err = CheckImage(img)
	}
	if err != nil {
		return "", "", fmt.Errorf("--pin %q: %w (names: %s; form: %s, e.g. go=registry.example/golang:1.26@sha256:…)", o, err, Names, OverrideForm)
	}
	return name, img, nil
}

// knownName is whether --pin takes name: python-3.X, uv, trivy, k3s or go.
func knownName(name string) bool {
	if minor, ok := strings.CutPrefix(name, "python-"); ok {
		return IsPythonMinor(minor)
	}
	return slices.Contains([]string{"uv", "trivy", "k3s", "go"}, name)
}

// WithOverrides returns a copy of p with NAME=IMAGE overrides applied (ParseOverride), for
// a registry mirror or an air-gapped registry: python-3.X, uv, trivy, k3s or go. Like
// every pin, an override must be pinned by digest.
func (p Pins) WithOverrides(overrides []string) (Pins, error) {
	out := p
	out.Python = make(map[string]string, len(p.Python))
	for k, v := range p.Python {
		out.Python[k] = v
	}
	for _, o := range overrides {
		name, img, err := ParseOverride(o)
		if err != nil {
			return p, err
		}
		switch minor, isPython := strings.CutPrefix(name, "python-"); {
		case isPython:
			out.Python[minor] = img
		case name == "uv":
			out.UV = img
		case name == "trivy":
			out.Trivy = img
		case name == "k3s":
			out.K3s = img
		default:
			out.Go = img
		}
	}
	return out, nil
}

// Validate reports pins that are empty or not images pinned by digest (CheckImage), so a
// typo in an override fails before anything runs instead of pulling a moving tag.
func (p Pins) Validate() error {
	var bad []string
	check := func(name, img string) {
		if img == "" {
			bad = append(bad, name+" is empty")
		} else if err := CheckImage(img); err != nil {
			bad = append(bad, name+" "+err.Error())
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
