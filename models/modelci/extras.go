package modelci

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"

	pytoml "dagger/shipyard/internal/pyproject"
	"dagger/shipyard/models"
	"dagger/shipyard/models/modelenv"
)

// modelDistributionPrefix is the normalised name every model distribution starts with
// (cloudcoil.models.kubernetes is cloudcoil-models-kubernetes).
const modelDistributionPrefix = "cloudcoil-models-"

// CoreExtra is one requirement of Cloudcoil's own extras that names a model distribution.
type CoreExtra struct {
	Extra       string // the extra's name, e.g. kubernetes
	Requirement string // as written, e.g. "cloudcoil.models.kubernetes>=1.31"
	Project     string // the normalised distribution name
	Line        int    // where the extra is written in pyproject.toml (0: unknown)
}

// ModelExtras reads Cloudcoil's pyproject.toml [project.optional-dependencies] and
// returns the requirements that name a model distribution, in extra and file order.
func ModelExtras(pyproject []byte) ([]CoreExtra, error) {
	doc, err := pytoml.Parse(modelenv.PyprojectPath, pyproject)
	if err != nil {
		return nil, err
	}
	raw, found := doc.Get("project", "optional-dependencies")
	if !found {
		return nil, nil
	}
	table, ok := raw.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: [project] optional-dependencies is not a table of extras", modelenv.PyprojectPath)
	}
	names := make([]string, 0, len(table))
	for name := range table {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []CoreExtra
	for _, extra := range names {
		reqs, _, err := doc.Strings("project", "optional-dependencies", extra)
		if err != nil {
			return nil, err
		}
		line := 0
		if kv := doc.KeyValues("project.optional-dependencies." + extra); len(kv) == 1 {
			line = kv[0].Line
		}
		for _, req := range reqs {
			m := modelenv.RequirementName.FindStringSubmatch(req)
			if m == nil {
				return nil, fmt.Errorf("%s:%d: extra %q: %q does not start with a distribution name (PEP 508)", modelenv.PyprojectPath, line, extra, req)
			}
			if name := modelenv.NormaliseName(m[1]); strings.HasPrefix(name, modelDistributionPrefix) {
				out = append(out, CoreExtra{Extra: extra, Requirement: req, Project: name, Line: line})
			}
		}
	}
	return out, nil
}

// CheckCoreExtras is the rule "add a core installation extra only after the model
// distribution exists on PyPI": each extra naming a distribution that PyPI has no
// version of (published: normalised name → PyPI lists a version) is a problem, so the
// core lockfile never requires an unpublished dependency.
func CheckCoreExtras(extras []CoreExtra, published map[string]bool) []models.Problem {
	var out []models.Problem
	for _, e := range extras {
		if published[e.Project] {
			continue
		}
		at := modelenv.PyprojectPath
		if e.Line > 0 {
			at = fmt.Sprintf("%s:%d", modelenv.PyprojectPath, e.Line)
		}
		out = append(out, models.Problem{Path: at, Message: fmt.Sprintf(
			"extra %q requires %q, but %s is not on PyPI: publish the model repository's first release (trusted publisher, then model-release) before adding the extra, or remove it",
			e.Extra, e.Requirement, e.Project)})
	}
	return out
}

// CoreExtrasOnPyPI reads the facts CheckCoreExtras decides on (one PyPI request per
// distinct model distribution) and applies it.
func CoreExtrasOnPyPI(ctx context.Context, hc *http.Client, baseURL string, pyproject []byte) ([]CoreExtra, []models.Problem, error) {
	extras, err := ModelExtras(pyproject)
	if err != nil {
		return nil, nil, err
	}
	published := map[string]bool{}
	for _, e := range extras {
		if _, seen := published[e.Project]; seen {
			continue
		}
		versions, err := modelenv.PyPIVersions(ctx, hc, baseURL, e.Project)
		if err != nil {
			return nil, nil, err
		}
		published[e.Project] = len(versions) > 0
	}
	return extras, CheckCoreExtras(extras, published), nil
}

// ExtrasText renders the check for the log, and fails with every problem.
func ExtrasText(extras []CoreExtra, problems []models.Problem) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%d core extra requirement(s) name a model distribution\n", len(extras))
	for _, e := range extras {
		fmt.Fprintf(&b, "- %s: %s\n", e.Extra, e.Requirement)
	}
	if len(problems) == 0 {
		return b.String(), nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.String()
	}
	return b.String(), fmt.Errorf("core extras: %d not on PyPI:\n%s", len(problems), strings.Join(msgs, "\n"))
}
