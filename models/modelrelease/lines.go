package modelrelease

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/models"
	"dagger/shipyard/models/upstreams"
)

// Line is one release line of a model repository: a configured upstream version, the
// release branch that carries it, and whether main carries it too (the newest line).
type Line struct {
	Upstream string `json:"upstream"`
	Branch   string `json:"branch"`
	Newest   bool   `json:"newest"`
}

// ReleaseLines lists the repository's release lines from pyproject.toml's
// upstream-versions, oldest first: the matrix the Update Versions workflow runs
// model-release over, one job per line. Two versions of one minor are refused: each
// line has one release branch, release-<major>.<minor>.
func ReleaseLines(pyproject []byte) ([]Line, error) {
	versions, _, err := Upstreams(pyproject)
	if err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("%s: [%s] %s is empty: list the upstream versions this repository releases", pyprojectPath, modelsTable, upstreamsKey)
	}
	parsed := make([]upstreams.Version, len(versions))
	for i, v := range versions {
		if parsed[i], err = upstreams.ParseVersion(v); err != nil {
			return nil, fmt.Errorf("%s: [%s] %s: %w", pyprojectPath, modelsTable, upstreamsKey, err)
		}
	}
	sort.Slice(parsed, func(i, j int) bool { return parsed[i].Compare(parsed[j]) < 0 })
	lines := make([]Line, len(parsed))
	seen := map[string]string{}
	for i, v := range parsed {
		branch, err := models.ReleaseBranch(v.String())
		if err != nil {
			return nil, fmt.Errorf("%s: [%s] %s: %w", pyprojectPath, modelsTable, upstreamsKey, err)
		}
		if other, dup := seen[branch]; dup {
			return nil, fmt.Errorf("%s: [%s] %s lists %s and %s, two versions of one minor line (%s): keep the newest patch of each minor",
				pyprojectPath, modelsTable, upstreamsKey, other, v, branch)
		}
		seen[branch] = v.String()
		lines[i] = Line{Upstream: v.String(), Branch: branch, Newest: i == len(parsed)-1}
	}
	return lines, nil
}

// LinesJSON is lines as a GitHub Actions matrix input: a JSON array of objects, for
// `matrix: { include: ${{ fromJSON(…) }} }`.
func LinesJSON(lines []Line) string {
	data, _ := json.Marshal(lines) // plain strings and bools: never fails
	return string(data)
}

// SelectLine is SelectUpstream for a release of one line: it also narrows
// upstream-versions to the selected version. A line's release commit then carries its own
// upstream alone, so a patch of another line, which changes main's list, leaves this
// line's fingerprint, and so its release, unchanged.
func SelectLine(data []byte, upstream string) ([]byte, error) {
	selected, err := SelectUpstream(data, upstream)
	if err != nil {
		return nil, err
	}
	doc, err := pytoml.Parse(pyprojectPath, selected)
	if err != nil {
		return nil, err
	}
	pairs := doc.KeyValues(modelsTable + "." + upstreamsKey)
	if len(pairs) != 1 {
		return nil, fmt.Errorf("%s: [%s] %s must be written once as upstream-versions = [\"X.Y.Z\", …], found %d", pyprojectPath, modelsTable, upstreamsKey, len(pairs))
	}
	raw := upstreamsKey + " = [" + pytoml.Quote(upstream) + "]"
	if strings.TrimSpace(pairs[0].Text) == raw {
		return selected, nil
	}
	return doc.Apply(pytoml.Edit{Value: pairs[0], Raw: raw}), nil
}
