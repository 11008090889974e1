package versions

import (
	"errors"

	"dagger/shipyard/models/upstreams"
)

// screen tries each integration's edits, and Cloudcoil's, on their own, and leaves out of
// the plan those that cannot be made, each named with its file and fix: one integration
// that drifted, or a template that cannot express a line, never stops the others.
func screen(src *sources, plan upstreams.Updates) upstreams.Updates {
	for _, name := range patchedIntegrations(plan) {
		in := src.file.Integrations[name]
		old, ok := src.cookiecutters[name]
		if in == nil || !ok {
			continue // left out already, when its file was missing
		}
		if _, err := upstreams.ApplyToCookiecutter(old, *in, plan); err != nil {
			plan = plan.Without(problemOf(name, upstreams.CookiecutterPath(name), err))
		}
	}
	if _, err := raisedRequirements(src, plan); err != nil {
		pkg := src.file.Cloudcoil.Package
		problem := upstreams.Problem{
			Integration: pkg, File: upstreams.TemplatePyproject, Problem: err.Error(),
			Fix: "make the template's requirement on " + pkg + " read >=X.Y.Z within cloudcoil.minor of " + upstreams.FilePath + ", or migrate both together",
		}
		// Only the move within the minor is left out; a migration item stays for review.
		kept := upstreams.Updates{Changes: []upstreams.Change{}, Problems: append(append([]upstreams.Problem{}, plan.Problems...), problem)}
		for _, c := range plan.Changes {
			if c.Kind != upstreams.KindCloudcoil {
				kept.Changes = append(kept.Changes, c)
			}
		}
		plan = kept
	}
	return plan
}

// problemOf names what keeps an integration's file from being edited.
func problemOf(name, path string, err error) upstreams.Problem {
	var migration *upstreams.TemplateMigrationError
	if errors.As(err, &migration) {
		return upstreams.Problem{Integration: name, File: path, Problem: err.Error(), Fix: "template migration: " + migration.Fix()}
	}
	return upstreams.Problem{Integration: name, File: path, Problem: err.Error(),
		Fix: "bring " + path + " and integrations." + name + " of " + upstreams.FilePath + " back in step as the message says"}
}
