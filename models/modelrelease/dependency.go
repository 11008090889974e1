package modelrelease

import (
	"fmt"
	"strings"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/internal/version"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// CheckCloudcoilDependency is the Cloudcoil dependency check of a release: the project
// requires cloudcoil exactly once, with a lower bound, and uv.lock locks a final cloudcoil
// release that satisfies it within the lower bound's minor X.Y, since a new Cloudcoil
// minor is a deliberate migration and never arrives in a packaging revision. A bounded
// requirement (">=X.Y.Z,<X.(Y+1)" or "~=X.Y.Z") must itself stay in that minor; the real
// template's unbounded ">=X.Y.Z" is held to it through the lock alone.
func CheckCloudcoilDependency(pyproject, lock []byte) []models.Problem {
	var ps []models.Problem
	add := func(p, format string, args ...any) {
		ps = append(ps, models.Problem{Path: p, Message: fmt.Sprintf(format, args...)})
	}
	deps, err := projectDependencies(pyproject)
	if err != nil {
		add(modelenv.PyprojectPath, "%v", err)
		return ps
	}
	var specs []string
	for _, d := range deps {
		m := modelenv.RequirementName.FindStringSubmatch(d)
		if m != nil && modelenv.NormaliseName(m[1]) == modelenv.CloudcoilPackage {
			specs = append(specs, m[3])
		}
	}
	if len(specs) != 1 {
		add(modelenv.PyprojectPath, "[project] dependencies must require %s once, found %d requirement(s)", modelenv.CloudcoilPackage, len(specs))
		return ps
	}
	spec := strings.TrimSpace(specs[0])
	low, high, bounded, err := minorRange(spec)
	if err != nil {
		add(modelenv.PyprojectPath, "%s requirement %q: %v", modelenv.CloudcoilPackage, spec, err)
		return ps
	}
	locked, err := lockedVersion(lock, modelenv.CloudcoilPackage)
	if err != nil {
		add("uv.lock", "%v; run uv lock", err)
		return ps
	}
	v, err := version.ParseRelease(locked)
	ok := err == nil
	switch {
	case !ok:
		add("uv.lock", "%s %s is not a final release; lock a released version", modelenv.CloudcoilPackage, locked)
	case bounded && (v.Compare(low) < 0 || v.Compare(high) >= 0):
		add("uv.lock", "%s %s is outside the required range %s; run uv lock --upgrade-package %s", modelenv.CloudcoilPackage, locked, spec, modelenv.CloudcoilPackage)
	case v.Compare(low) < 0:
		add("uv.lock", "%s %s is below the requirement %q in %s; run uv lock --upgrade-package %s", modelenv.CloudcoilPackage, locked, spec, modelenv.PyprojectPath, modelenv.CloudcoilPackage)
	case v.Compare(high) >= 0:
		minor := fmt.Sprintf("%d.%d", low[0], low[1])
		lockedMinor := fmt.Sprintf("%d.%d", v[0], minorOf(v))
		add("uv.lock", "%s %s is outside Cloudcoil %s, the minor of the requirement %q in %s; lock a %s release (uv lock --upgrade-package %s==%s.Z) or migrate to %s by raising the lower bound in %s to >=%s.0",
			modelenv.CloudcoilPackage, locked, minor, spec, modelenv.PyprojectPath, minor, modelenv.CloudcoilPackage, minor, lockedMinor, modelenv.PyprojectPath, lockedMinor)
	}
	return ps
}

// minorRange reads the lower bound of a requirement and the exclusive upper bound of the
// minor it must stay in: the requirement's own (bounded), or the lower bound's next minor
// when the requirement has none.
func minorRange(spec string) (low, high version.Release, bounded bool, err error) {
	var lows, highs []string
	for _, clause := range strings.Split(strings.ReplaceAll(spec, " ", ""), ",") {
		switch {
		case strings.HasPrefix(clause, "~="):
			v := strings.TrimPrefix(clause, "~=")
			p, err := version.ParseRelease(v)
			if err != nil || len(p) != 3 {
				return nil, nil, false, fmt.Errorf("~=%s must name X.Y.Z to stay within the minor X.Y", v)
			}
			lows = append(lows, v)
			highs = append(highs, fmt.Sprintf("%d.%d", p[0], p[1]+1))
		case strings.HasPrefix(clause, ">="):
			lows = append(lows, strings.TrimPrefix(clause, ">="))
		case strings.HasPrefix(clause, "<") && !strings.HasPrefix(clause, "<="):
			highs = append(highs, strings.TrimPrefix(clause, "<"))
		case clause == "":
		default:
			return nil, nil, false, fmt.Errorf("clause %q: use >=X.Y.Z (or >=X.Y.Z,<X.(Y+1), or ~=X.Y.Z) in %s [project] dependencies", clause, modelenv.PyprojectPath)
		}
	}
	if len(lows) == 0 {
		return nil, nil, false, fmt.Errorf("no lower bound, so nothing fixes the Cloudcoil minor the models are generated with; require %s>=X.Y.Z (or >=X.Y.Z,<X.(Y+1)) in [project] dependencies", modelenv.CloudcoilPackage)
	}
	if len(lows) != 1 || len(highs) > 1 {
		return nil, nil, false, fmt.Errorf("want one lower bound and at most one upper bound, as >=X.Y.Z or >=X.Y.Z,<X.(Y+1)")
	}
	low, errL := version.ParseRelease(lows[0])
	if errL != nil || len(low) < 2 {
		return nil, nil, false, fmt.Errorf("lower bound %s must be a final release X.Y or X.Y.Z", lows[0])
	}
	next := version.Release{low[0], low[1] + 1}
	if len(highs) == 0 {
		return low, next, false, nil
	}
	high, errH := version.ParseRelease(highs[0])
	if errH != nil {
		return nil, nil, false, fmt.Errorf("bounds must be final releases")
	}
	if high.Compare(next) != 0 {
		return nil, nil, false, fmt.Errorf("upper bound %s is not the next minor %d.%d, so the requirement does not stay within Cloudcoil %d.%d",
			highs[0], next[0], next[1], low[0], low[1])
	}
	return low, high, true, nil
}

// projectDependencies reads the strings of [project]'s dependencies array.
func projectDependencies(data []byte) ([]string, error) {
	doc, err := pytoml.Parse(modelenv.PyprojectPath, data)
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
		if modelenv.NormaliseName(n) == name {
			found = append(found, v)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("want one locked %s, found %d", name, len(found))
	}
	return found[0], nil
}

// minorOf is a release's minor, 0 when it names none ("1" is 1.0).
func minorOf(v version.Release) int {
	if len(v) < 2 {
		return 0
	}
	return v[1]
}
