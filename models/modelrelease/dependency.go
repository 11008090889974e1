package modelrelease

import (
	"fmt"
	"regexp"
	"strings"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/version"
	"dagger/shipyard/models"
)

// cloudcoilPackage is the runtime every model package depends on.
const cloudcoilPackage = "cloudcoil"

var (
	requirementName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)
	nameSeparators  = regexp.MustCompile(`[-_.]+`)
)

// CheckCloudcoilDependency is the Cloudcoil dependency check of a release: the project
// requires cloudcoil exactly once, within one minor line (">=X.Y.Z,<X.(Y+1)" or
// "~=X.Y.Z"), since a new Cloudcoil minor is a deliberate migration and never arrives in
// a packaging revision; and uv.lock locks a final cloudcoil release inside that range, so
// the models are generated and tested with a version users can install.
func CheckCloudcoilDependency(pyproject, lock []byte) []models.Problem {
	var ps []models.Problem
	add := func(p, format string, args ...any) {
		ps = append(ps, models.Problem{Path: p, Message: fmt.Sprintf(format, args...)})
	}
	deps, err := projectDependencies(pyproject)
	if err != nil {
		add(pyprojectPath, "%v", err)
		return ps
	}
	var specs []string
	for _, d := range deps {
		m := requirementName.FindStringSubmatch(d)
		if m != nil && normaliseName(m[1]) == cloudcoilPackage {
			specs = append(specs, m[3])
		}
	}
	if len(specs) != 1 {
		add(pyprojectPath, "[project] dependencies must require %s once, found %d requirement(s)", cloudcoilPackage, len(specs))
		return ps
	}
	low, high, err := minorRange(specs[0])
	if err != nil {
		add(pyprojectPath, "%s requirement %q: %v", cloudcoilPackage, specs[0], err)
		return ps
	}
	locked, err := lockedVersion(lock, cloudcoilPackage)
	if err != nil {
		add("uv.lock", "%v; run uv lock", err)
		return ps
	}
	v, err := version.ParseRelease(locked)
	ok := err == nil
	switch {
	case !ok:
		add("uv.lock", "%s %s is not a final release; lock a released version", cloudcoilPackage, locked)
	case v.Compare(low) < 0 || v.Compare(high) >= 0:
		add("uv.lock", "%s %s is outside the required range %s; run uv lock --upgrade-package %s", cloudcoilPackage, locked, strings.TrimSpace(specs[0]), cloudcoilPackage)
	}
	return ps
}

// minorRange reads the lower bound and the exclusive upper bound of a requirement that
// must stay in one minor line.
func minorRange(spec string) (low, high version.Release, err error) {
	var lows, highs []string
	for _, clause := range strings.Split(strings.ReplaceAll(spec, " ", ""), ",") {
		switch {
		case strings.HasPrefix(clause, "~="):
			v := strings.TrimPrefix(clause, "~=")
			p, err := version.ParseRelease(v)
			if err != nil || len(p) != 3 {
				return nil, nil, fmt.Errorf("~=%s must name X.Y.Z to stay within the minor X.Y", v)
			}
			lows = append(lows, v)
			highs = append(highs, fmt.Sprintf("%d.%d", p[0], p[1]+1))
		case strings.HasPrefix(clause, ">="):
			lows = append(lows, strings.TrimPrefix(clause, ">="))
		case strings.HasPrefix(clause, "<") && !strings.HasPrefix(clause, "<="):
			highs = append(highs, strings.TrimPrefix(clause, "<"))
		case clause == "":
		default:
			return nil, nil, fmt.Errorf("clause %q: use >=X.Y.Z,<X.(Y+1) (or ~=X.Y.Z)", clause)
		}
	}
	if len(lows) != 1 || len(highs) != 1 {
		return nil, nil, fmt.Errorf("want exactly one lower bound and one upper bound, as >=X.Y.Z,<X.(Y+1)")
	}
	low, errL := version.ParseRelease(lows[0])
	high, errH := version.ParseRelease(highs[0])
	if errL != nil || errH != nil || len(low) < 2 {
		return nil, nil, fmt.Errorf("bounds must be final releases")
	}
	next := version.Release{low[0], low[1] + 1}
	if high.Compare(next) != 0 {
		return nil, nil, fmt.Errorf("upper bound %s is not the next minor %d.%d, so the requirement does not stay within Cloudcoil %d.%d",
			highs[0], next[0], next[1], low[0], low[1])
	}
	return low, high, nil
}

// normaliseName is the PEP 503 form of a project name.
func normaliseName(s string) string {
	return strings.ToLower(nameSeparators.ReplaceAllString(s, "-"))
}

// projectDependencies reads the strings of [project]'s dependencies array.
func projectDependencies(data []byte) ([]string, error) {
	doc, err := pytoml.Parse(pyprojectPath, data)
	if err != nil {
		return nil, err
	}
	deps, found, err := doc.Strings("project", "dependencies")
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("[project] has no dependencies array")
	}
	return deps, nil
}

// lockedVersion finds a package's version in uv.lock.
func lockedVersion(lock []byte, name string) (string, error) {
	doc, err := pytoml.Parse("uv.lock", lock)
	if err != nil {
		return "", err
	}
	var found []string
	for _, pkg := range doc.Tables("package") {
		n, _ := pkg["name"].(string)
		v, _ := pkg["version"].(string)
		if normaliseName(n) == name {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("want one locked %s, found %d", name, len(found))
	}
	return found[0], nil
}
