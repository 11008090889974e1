package versions

import (
	"context"
	"fmt"
	"path"

	"dagger/shipyard/models/upstreams"
)

// sources are the generator repository's files at one commit of the base branch.
type sources struct {
	head          string // commit of the base branch everything was read at
	upstreamsJSON []byte
	file          *upstreams.File
	// cookiecutters holds models/<name>/cookiecutter.yaml of the integrations the plan
	// edits, by integration name.
	cookiecutters map[string][]byte
	// requirements holds, by path, the files that declare the requirement on Cloudcoil
	// (the template's pyproject.toml), read only when the plan moves Cloudcoil and only
	// when they exist.
	requirements map[string][]byte
	// unlisted are the integration folders upstreams.json has no entry for, as problems.
	unlisted []upstreams.Problem
}

// readSources reads the base branch's head and models/upstreams.json at that commit.
// Reading by commit, not by branch name, keeps every file of the run from one snapshot even
// if the branch moves meanwhile; the commit built later sits on this same head.
func (r *modelVersionsState) readSources(ctx context.Context) (*sources, error) {
	head, found, err := r.gh.BranchHead(ctx, r.owner, r.name, r.opts.Base)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("--base %s: no such branch in %s", r.opts.Base, r.opts.Repo)
	}
	b, found, err := r.gh.FileAt(ctx, r.owner, r.name, upstreams.FilePath, head)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fmt.Errorf("%s not found at %s (%s) of %s: is --repo the Cloudcoil generator repository?",
			upstreams.FilePath, r.opts.Base, short(head), r.opts.Repo)
	}
	file, err := upstreams.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s at %s (%s): %w", r.opts.Repo, r.opts.Base, short(head), err)
	}
	src := &sources{head: head, upstreamsJSON: b, file: file, cookiecutters: map[string][]byte{}, requirements: map[string][]byte{}}
	if src.unlisted, err = r.unlistedFolders(ctx, src); err != nil {
		return nil, err
	}
	return src, nil
}

// unlistedFolders names each folder under models/ that holds a cookiecutter.yaml but has no
// entry in upstreams.json: no run would ever update it, while update-repos, which renders
// every folder, publishes it. Only names the file does not list cost a request.
func (r *modelVersionsState) unlistedFolders(ctx context.Context, src *sources) ([]upstreams.Problem, error) {
	entries, found, err := r.gh.DirAt(ctx, r.owner, r.name, "models", src.head)
	if err != nil || !found {
		return nil, err
	}
	listed := map[string]bool{}
	for _, name := range src.file.Names() {
		listed[name] = true
	}
	for _, p := range src.file.Problems {
		listed[p.Integration] = true // an entry set aside is named already
	}
	var out []upstreams.Problem
	for _, name := range entries {
		if listed[name] || name == path.Base(upstreams.FilePath) {
			continue
		}
		cookie := upstreams.CookiecutterPath(name)
		if _, found, err := r.gh.FileAt(ctx, r.owner, r.name, cookie, src.head); err != nil {
			return nil, err
		} else if found {
			out = append(out, upstreams.Problem{
				Integration: name, File: cookie,
				Problem: fmt.Sprintf("has no entry in %s: model-versions never updates it and validate-models never checks it, yet update-repos publishes it", upstreams.FilePath),
				Fix:     "add integrations." + name + " to " + upstreams.FilePath + " (propose-upstreams proposes one), or remove the folder",
			})
		}
	}
	return out, nil
}

// readCookiecutters reads the cookiecutter.yaml of each integration with an applied patch
// or a proposal, and only those: the others are not edited, so reading them would only
// cost requests. An integration whose file is missing is left out of the plan, named.
func (r *modelVersionsState) readCookiecutters(ctx context.Context, src *sources, plan upstreams.Updates) (upstreams.Updates, error) {
	missing := map[string]bool{}
	for _, name := range append(patchedIntegrations(plan), proposedIntegrations(plan)...) {
		if _, read := src.cookiecutters[name]; read || missing[name] {
			continue
		}
		path := upstreams.CookiecutterPath(name)
		b, found, err := r.gh.FileAt(ctx, r.owner, r.name, path, src.head)
		if err != nil {
			return plan, err
		}
		if !found {
			missing[name] = true
			plan = plan.Without(upstreams.Problem{
				Integration: name, File: path,
				Problem: fmt.Sprintf("does not exist at %s (%s)", r.opts.Base, short(src.head)),
				Fix:     "add it, or remove integrations." + name + " from " + upstreams.FilePath,
			})
			continue
		}
		src.cookiecutters[name] = b
	}
	return plan, nil
}

// patchedIntegrations lists, in plan order, the integrations with an applied patch.
func patchedIntegrations(plan upstreams.Updates) []string {
	var names []string
	seen := map[string]bool{}
	for _, c := range plan.Applied() {
		if c.Kind == upstreams.KindPatch && !seen[c.Integration] {
			seen[c.Integration] = true
			names = append(names, c.Integration)
		}
	}
	return names
}

// short abbreviates a commit SHA for messages.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

// proposedIntegrations lists, in plan order, the integrations with a proposal.
func proposedIntegrations(plan upstreams.Updates) []string {
	var names []string
	for _, c := range plan.Changes {
		if c.Kind == upstreams.KindProposed {
			names = append(names, c.Integration)
		}
	}
	return names
}

// readRequirements reads the files that may declare the requirement on Cloudcoil, when
// the plan moves Cloudcoil within its minor (and only then, so other runs cost nothing).
func (r *modelVersionsState) readRequirements(ctx context.Context, src *sources, plan upstreams.Updates) error {
	if !movesCloudcoil(plan) {
		return nil
	}
	for _, path := range requirementPaths() {
		b, found, err := r.gh.FileAt(ctx, r.owner, r.name, path, src.head)
		if err != nil {
			return err
		}
		if found {
			src.requirements[path] = b
		}
	}
	return nil
}

// requirementPaths are where the generator repository declares the requirement on
// Cloudcoil besides models/upstreams.json: the template's pyproject.toml. (An
// integration's models/<name>/pyproject.toml overlay holds generator settings, not
// requirements, so it is not read: a 404 costs rate limit on every run.)
func requirementPaths() []string {
	return []string{upstreams.TemplatePyproject}
}

// movesCloudcoil reports whether the plan applies a Cloudcoil update.
func movesCloudcoil(plan upstreams.Updates) bool {
	for _, c := range plan.Applied() {
		if c.Kind == upstreams.KindCloudcoil {
			return true
		}
	}
	return false
}
