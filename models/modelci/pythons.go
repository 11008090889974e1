package modelci

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"dagger/shipyard/internal/pins"
	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/version"
	"dagger/shipyard/models/modelenv"
)

// pythonClassifier is a trove classifier naming one Python minor version.
var pythonClassifier = regexp.MustCompile(`^Programming Language :: Python :: (3\.[0-9]+)$`)

// PythonVersions are the Python minors a model repository says it supports, which model-ci
// tests each, as the template's own CI matrix does: those its classifiers name, and the
// pinned minors its requires-python admits. A classifier that requires-python excludes is
// a contradiction in the file and an error; so is a version without a pinned image, which
// says how to pin one (--pin python-3.X=…, model-ci has no --python-image). pinned are the
// minors with an image.
func PythonVersions(pyproject []byte, pinned []string) ([]string, error) {
	doc, err := pytoml.Parse(modelenv.PyprojectPath, pyproject)
	if err != nil {
		return nil, err
	}
	classifiers, _, err := doc.Strings("project", "classifiers")
	if err != nil {
		return nil, err
	}
	requires, _, err := doc.String("project", "requires-python")
	if err != nil {
		return nil, err
	}
	admits := func(string) bool { return true }
	if strings.TrimSpace(requires) != "" {
		if admits, err = pythonSpecifier(requires); err != nil {
			return nil, fmt.Errorf("%s: [project] requires-python %q: %w", modelenv.PyprojectPath, requires, err)
		}
	}
	var out []string
	for _, c := range classifiers {
		m := pythonClassifier.FindStringSubmatch(strings.TrimSpace(c))
		if m == nil || slices.Contains(out, m[1]) {
			continue
		}
		if !admits(m[1]) {
			return nil, fmt.Errorf("%s: the classifier %q names Python %s, which requires-python %q excludes; make them agree", modelenv.PyprojectPath, c, m[1], requires)
		}
		out = append(out, m[1])
	}
	if strings.TrimSpace(requires) != "" {
		for _, v := range pinned {
			if admits(v) && !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: neither classifiers (Programming Language :: Python :: 3.X) nor requires-python name a Python version to test", modelenv.PyprojectPath)
	}
	slices.SortFunc(out, compareMinor)
	var missing []string
	for _, v := range out {
		if !slices.Contains(pinned, v) {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s names Python %s, which Shipyard pins no image for; pin one with --pin python-%s=IMAGE@sha256:<64 hex digits> (a constructor flag, given before the function) or a stage AS python-%s in %s",
			modelenv.PyprojectPath, strings.Join(missing, ", "), missing[0], missing[0], pins.File)
	}
	return out, nil
}

// testPythons are the versions model-ci tests: the repository's (PythonVersions), or only
// those given, each of which must be one of them.
func testPythons(pyproject []byte, pinned, only []string) ([]string, error) {
	all, err := PythonVersions(pyproject, pinned)
	if err != nil || len(only) == 0 {
		return all, err
	}
	for _, v := range only {
		if !slices.Contains(all, v) {
			return nil, fmt.Errorf("--python %s: %s supports Python %s only", v, modelenv.PyprojectPath, strings.Join(all, ", "))
		}
	}
	return only, nil
}

func compareMinor(a, b string) int {
	return minorNumber(a) - minorNumber(b)
}

func minorNumber(v string) int {
	_, minor, _ := strings.Cut(v, ".")
	n, _ := strconv.Atoi(minor)
	return n
}

// pythonSpecifier reads a requires-python specifier set (">=3.10", ">=3.10,<3.14",
// "~=3.11", "!=3.12.*") into a test of Python minors, using the project's PEP 440
// ordering: a minor 3.X is admitted when 3.X.0 is, or, for != and < clauses, by its
// release prefix.
func pythonSpecifier(spec string) (func(string) bool, error) {
	type clause struct {
		op string
		v  version.PEP440
	}
	var clauses []clause
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		op := ""
		for _, o := range []string{"~=", "==", "!=", "<=", ">=", "<", ">"} {
			if strings.HasPrefix(part, o) {
				op = o
				break
			}
		}
		if op == "" {
			return nil, fmt.Errorf("%q has no comparison operator", part)
		}
		raw := strings.TrimSpace(strings.TrimPrefix(part, op))
		wild := strings.HasSuffix(raw, ".*")
		raw = strings.TrimSuffix(raw, ".*")
		v, err := version.ParsePEP440(raw)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", part, err)
		}
		if wild && op != "==" && op != "!=" {
			return nil, fmt.Errorf("%q: a wildcard only goes with == or !=", part)
		}
		if wild {
			op += "*"
		}
		clauses = append(clauses, clause{op, v})
	}
	return func(minor string) bool {
		m, err := version.ParsePEP440(minor + ".0")
		if err != nil {
			return false
		}
		for _, c := range clauses {
			cmp := m.Compare(c.v)
			ok := true
			switch c.op {
			case ">=":
				ok = cmp >= 0
			case ">":
				ok = cmp > 0
			case "<=":
				ok = cmp <= 0
			case "<":
				ok = cmp < 0
			case "==":
				ok = cmp == 0
			case "!=":
				ok = cmp != 0
			case "==*", "!=*":
				ok = releasePrefix(m.Release(), c.v.Release()) == (c.op == "==*")
			case "~=":
				// ~=3.11 is >=3.11,==3.*; ~=3.11.2 is >=3.11.2,==3.11.*.
				r := c.v.Release()
				ok = cmp >= 0 && len(r) >= 2 && releasePrefix(m.Release(), r[:len(r)-1])
			default:
				return false
			}
			if !ok {
				return false
			}
		}
		return true
	}, nil
}

// releasePrefix reports whether release starts with prefix, missing components being 0.
func releasePrefix(release, prefix []int) bool {
	for i, p := range prefix {
		got := 0
		if i < len(release) {
			got = release[i]
		}
		if got != p {
			return false
		}
	}
	return true
}
