package ci

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/version"
)

// DefaultPythonVersions returns tesk-core's test matrix when pyproject.toml says nothing narrower.
func DefaultPythonVersions() []string {
	return []string{"3.10", "3.11", "3.12", "3.13"}
}

var (
	classifierPattern = regexp.MustCompile(`^Programming Language :: Python :: (3\.[0-9]+)$`)
	specifierClause   = regexp.MustCompile(`^(~=|==|!=|<=|>=|<|>)\s*([0-9]+(?:\.[0-9]+)*)(\.\*)?$`)
)

// PythonVersions decides the test matrix from pyproject.toml: the "Programming Language ::
// Python :: 3.X" classifiers when the project lists any (an explicit matrix), otherwise the
// default versions that satisfy [project] requires-python. An empty result is an error: a
// project that excludes every version CI knows would otherwise pass without running a test.
func PythonVersions(data []byte) ([]string, error) {
	doc, err := pyproject.Parse("pyproject.toml", data)
	if err != nil {
		return nil, err
	}
	classifiers, _, err := doc.Strings("project", "classifiers")
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var listed []string
	for _, c := range classifiers {
		if m := classifierPattern.FindStringSubmatch(c); m != nil && !seen[m[1]] {
			seen[m[1]] = true
			listed = append(listed, m[1])
		}
	}
	if len(listed) > 0 {
		sortMinors(listed)
		return listed, nil
	}
	spec, _, err := doc.String("project", "requires-python")
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(spec) == "" {
		return append([]string(nil), DefaultPythonVersions()...), nil
	}
	var out []string
	for _, v := range DefaultPythonVersions() {
		ok, err := satisfies(v, spec)
		if err != nil {
			return nil, fmt.Errorf("pyproject.toml: requires-python %q: %w", spec, err)
		}
		if ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("pyproject.toml: requires-python %q allows none of %s; pass --python to choose versions",
			spec, strings.Join(DefaultPythonVersions(), ", "))
	}
	return out, nil
}

// satisfies reports whether Python minor version v ("3.11") meets a PEP 440 specifier set as
// requires-python uses it. A minor version stands for all its patch releases, so ">=3.11.2"
// admits 3.11 and "<3.12.1" admits 3.12.
func satisfies(v, spec string) (bool, error) {
	minor, err := version.ParseRelease(v)
	if err != nil {
		return false, err
	}
	for _, raw := range strings.Split(spec, ",") {
		clause := strings.TrimSpace(raw)
		if clause == "" {
			continue
		}
		m := specifierClause.FindStringSubmatch(clause)
		if m == nil {
			return false, fmt.Errorf("unsupported clause %q", clause)
		}
		op, target, wildcard := m[1], m[2], m[3] != ""
		rel, err := version.ParseRelease(target)
		if err != nil {
			return false, err
		}
		if !clauseAllowsMinor(op, rel, wildcard, minor) {
			return false, nil
		}
	}
	return true, nil
}

func clauseAllowsMinor(op string, target version.Release, wildcard bool, minor version.Release) bool {
	// A minor line [3, 11] stands for 3.11.0, 3.11.1, …: it is allowed when one of its
	// releases meets the clause. lineStart is its first release; cmp compares the line to
	// the target's first two parts.
	lineStart := append(append(version.Release(nil), minor...), 0)
	cmp := minor.Compare(target[:min(2, len(target))])
	switch op {
	case ">=", ">":
		// Some 3.X.n exceeds any target inside or below the line (3.10.1 > 3.10).
		return cmp >= 0
	case "<":
		return lineStart.Compare(target) < 0
	case "<=":
		return lineStart.Compare(target) <= 0
	case "==":
		if len(target) == 1 {
			return wildcard && minor[0] == target[0]
		}
		return cmp == 0
	case "!=":
		if wildcard && len(target) == 2 {
			return cmp != 0
		}
		return true // excluding one release (3.11.4) leaves the rest of the line
	case "~=":
		// ~=3.10 means >=3.10, ==3.*; ~=3.10.2 means >=3.10.2, ==3.10.*.
		switch {
		case len(target) < 2:
			return false
		case len(target) == 2:
			return minor[0] == target[0] && cmp >= 0
		default:
			return cmp == 0
		}
	}
	return false
}

func sortMinors(vs []string) {
	sort.Slice(vs, func(i, j int) bool {
		a, _ := version.ParseRelease(vs[i])
		b, _ := version.ParseRelease(vs[j])
		return a.Compare(b) < 0
	})
}

// ImageSpec is one image of the project: its short name (taskmaster), the published
// repository name (tesk-core-taskmaster) and its Dockerfile.
type ImageSpec struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Dockerfile string `json:"dockerfile"`
}

// DiscoverImages turns the entries of containers/ into image specs: each <name>.Dockerfile is
// one image, published as <prefix><name>. Sorted by name so the graph is deterministic.
func DiscoverImages(entries []string, prefix string) ([]ImageSpec, error) {
	var out []ImageSpec
	for _, e := range entries {
		base := path.Base(strings.TrimSuffix(e, "/"))
		name, ok := strings.CutSuffix(base, ".Dockerfile")
		if !ok || name == "" {
			continue
		}
		if !imageNamePattern.MatchString(name) {
			return nil, fmt.Errorf("containers/%s: image name %q must be lowercase letters, digits and dashes", base, name)
		}
		out = append(out, ImageSpec{Name: name, Repository: prefix + name, Dockerfile: "containers/" + base})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("containers/: no <name>.Dockerfile found; each image needs containers/<name>.Dockerfile")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

var imageNamePattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// FallbackVersion is what setuptools_scm reports without Git history, as the seed describes.
const FallbackVersion = "0.0.0.dev0"

// ImageVersion decides the SETUPTOOLS_SCM_PRETEND_VERSION build argument: the given version
// (a leading v is an error: image and package versions carry none), else none at all when
// the source has its Git history (setuptools_scm derives it), else the fallback.
func ImageVersion(flag string, sourceHasGit bool) (value string, set bool, err error) {
	switch {
	case flag != "":
		if strings.HasPrefix(flag, "v") || strings.ContainsAny(flag, " \t\n/") {
			return "", false, fmt.Errorf("--version %q: give the package version without v, e.g. 0.11.0rc1", flag)
		}
		return flag, true, nil
	case sourceHasGit:
		return "", false, nil
	default:
		return FallbackVersion, true, nil
	}
}
