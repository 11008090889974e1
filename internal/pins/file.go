package pins

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// File is where a repository keeps the images Shipyard runs for it, as FROM lines of a
// Dockerfile: Dependabot's docker updater reads such lines (image:tag@sha256:digest) and
// opens a pull request when a newer tag or digest appears, so a new Python or Trivy is
// the repository's own change, reviewed and tested by its CI, not a Shipyard release.
// Each stage's name says which pin it sets:
//
//	FROM docker.io/library/python:3.14-slim-bookworm@sha256:… AS python-3.14
//	FROM docker.io/aquasec/trivy:0.74.0@sha256:… AS trivy
const File = ".shipyard/pins.Dockerfile"

// RepositoryNames are the pins a repository's File may set: the images its own CI runs.
// The Go image builds Shipyard's signing tool, which is Shipyard's, not the repository's.
func RepositoryNames() []string { return []string{"python-3.X", "uv", "trivy", "k3s"} }

var (
	fromLine  = regexp.MustCompile(`(?i)^FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$`)
	pinnedRef = regexp.MustCompile(`^[a-z0-9]+(?:[._/:-][a-z0-9]+)*(?::[\w][\w.-]{0,127})?@sha256:[0-9a-f]{64}$`)
)

// ParseFile reads a repository's pins file (name is its path, for messages) into the
// overrides it sets, NAME=IMAGE as --pin takes them, in the file's order. Every line is a
// comment, blank, or `FROM <image>:<tag>@sha256:<digest> AS <name>`; anything else, an
// image not pinned by digest, a name that is no repository pin, or a name given twice is
// an error naming the line and the fix.
func ParseFile(name string, content []byte) ([]string, error) {
	var out []string
	seen := map[string]int{}
	var problems []string
	bad := func(line int, format string, args ...any) {
		problems = append(problems, fmt.Sprintf("%s:%d: %s", name, line, fmt.Sprintf(format, args...)))
	}
	for i, raw := range strings.Split(string(content), "\n") {
		n, line := i+1, strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := fromLine.FindStringSubmatch(line)
		switch {
		case m == nil:
			bad(n, "%q is not a FROM line: write FROM <image>:<tag>@sha256:<digest> AS <name>", line)
			continue
		case m[2] == "":
			bad(n, "FROM %s names no pin: add AS <name> (%s)", m[1], strings.Join(RepositoryNames(), ", "))
			continue
		case !pinnedRef.MatchString(m[1]):
			bad(n, "%s is not pinned by digest: write <image>:<tag>@sha256:<digest>, which Dependabot keeps current", m[1])
			continue
		}
		pin := strings.ToLower(m[2])
		if !isRepositoryPin(pin) {
			bad(n, "%q is not a pin a repository sets (names: %s)", m[2], strings.Join(RepositoryNames(), ", "))
			continue
		}
		if first, dup := seen[pin]; dup {
			bad(n, "%s is pinned already, on line %d: keep one", pin, first)
			continue
		}
		seen[pin] = n
		out = append(out, pin+"="+m[1])
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return out, nil
}

// ForTree are the images Shipyard runs for a tree whose pins file sets repository
// (ParseFile's overrides): the defaults, then the file's, then overrides, the caller's
// --pin, which is given for one run and so wins. Every function that works on a tree takes
// its pins from here, the caller's working tree's or a release's tagged commit's.
func ForTree(repository, overrides []string) (Pins, error) {
	p, err := DefaultPins().WithOverrides(repository)
	if err != nil {
		return Pins{}, fmt.Errorf("%s: %w", File, err)
	}
	return p.WithOverrides(overrides)
}

func isRepositoryPin(name string) bool {
	if minor, ok := strings.CutPrefix(name, "python-"); ok {
		return IsPythonMinor(minor)
	}
	return name == "uv" || name == "trivy" || name == "k3s"
}

// FileOf writes p's repository pins as a pins file: what a repository starts from, the
// images Shipyard was tested with.
func FileOf(p Pins) []byte {
	var b strings.Builder
	b.WriteString("# The images Shipyard runs for this repository, pinned by tag and digest; Dependabot\n" +
		"# (package-ecosystem: docker) keeps them current. Each stage's name is the pin it sets.\n")
	minors := make([]string, 0, len(p.Python))
	for v := range p.Python {
		minors = append(minors, v)
	}
	sort.Slice(minors, func(i, j int) bool { return minorNumber(minors[i]) < minorNumber(minors[j]) })
	for _, v := range minors {
		fmt.Fprintf(&b, "FROM %s AS python-%s\n", p.Python[v], v)
	}
	fmt.Fprintf(&b, "FROM %s AS uv\nFROM %s AS trivy\nFROM %s AS k3s\n", p.UV, p.Trivy, p.K3s)
	return []byte(b.String())
}

func minorNumber(v string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(v, "3."), "%d", &n)
	return n
}
