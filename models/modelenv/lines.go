package modelenv

import (
	"encoding/json"
	"fmt"
	"sort"

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

// ReleaseLines lists the repository's release lines, oldest first: the matrix the
// release workflow runs model-release over, one job per line. Two versions of one minor
// are refused: each line has one release branch, release-<major>.<minor>.
func ReleaseLines(cfg LineConfig) ([]Line, error) {
	if len(cfg.Versions) == 0 {
		return nil, fmt.Errorf("%s: the model_version matrix is empty: list the upstream versions this repository releases in versions of models/<name>/cookiecutter.yaml", cfg.Path)
	}
	parsed := make([]upstreams.Version, len(cfg.Versions))
	for i, v := range cfg.Versions {
		var err error
		if parsed[i], err = upstreams.ParseVersion(v); err != nil {
			return nil, fmt.Errorf("%s: model_version %q: %w; versions in cookiecutter.yaml are X.Y.Z upstream versions", cfg.Path, v, err)
		}
	}
	sort.Slice(parsed, func(i, j int) bool { return parsed[i].Compare(parsed[j]) < 0 })
	lines := make([]Line, len(parsed))
	seen := map[string]string{}
	for i, v := range parsed {
		branch, err := models.ReleaseBranch(v.String())
		if err != nil {
			return nil, fmt.Errorf("%s: model_version: %w", cfg.Path, err)
		}
		if other, dup := seen[branch]; dup {
			return nil, fmt.Errorf("%s: model_version lists %s and %s, two versions of one minor line (%s): keep the newest patch of each minor in versions of cookiecutter.yaml",
				cfg.Path, other, v, branch)
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
