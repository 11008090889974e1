package versions

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"dagger/shipyard/models/upstreams"
)

// commitSpec is one commit of the automation branch: its message, and the files that
// differ from the base head once it is applied (cumulative, so the last spec's files are
// the branch's whole change).
type commitSpec struct {
	Message string
	Files   []FileChange
}

// planCommits lays out the automation branch as reviewable commits on the base head:
// first the applied updates; then each proposal (a new line, replacing or added as the
// integration's policy says) as its own commit moving the matrix, so a reviewer can take
// or drop each; and, when neither exists but something still needs review (a Cloudcoil
// migration, a skipped integration), one commit without file changes that carries the
// checklist, so the pull request can exist: GitHub opens none without a commit. A
// proposal that cannot be written (no schema URL reaches it, or the template cannot
// derive it) is left to the body as a problem. An empty plan lays out nothing.
func planCommits(src *sources, plan upstreams.Updates) ([]commitSpec, []upstreams.Problem, error) {
	applied, err := desiredFiles(src, plan)
	if err != nil {
		return nil, nil, err
	}
	var specs []commitSpec
	if len(applied) > 0 {
		specs = append(specs, commitSpec{Message: commitMessage(plan), Files: applied})
	}
	state := overlay(nil, applied)
	var problems []upstreams.Problem
	for _, c := range plan.Changes {
		if c.Kind != upstreams.KindProposed {
			continue
		}
		files, err := proposalFiles(src, state, c)
		if err != nil {
			p := problemOf(c.Integration, upstreams.CookiecutterPath(c.Integration), err)
			p.Problem = fmt.Sprintf("the proposal of %s is listed for review but not written as a commit: %s", c.To, p.Problem)
			problems = append(problems, p)
			continue
		}
		state = overlay(state, files)
		specs = append(specs, commitSpec{Message: proposalMessage(c), Files: changedFrom(src, state)})
	}
	if len(specs) == 0 && !plan.Empty() {
		specs = append(specs, commitSpec{Message: reviewMessage(plan)})
	}
	return specs, problems, nil
}

// overlay is the state (changed files by path) with files written over it.
func overlay(state map[string][]byte, files []FileChange) map[string][]byte {
	next := make(map[string][]byte, len(state)+len(files))
	for p, b := range state {
		next[p] = b
	}
	for _, f := range files {
		next[f.Path] = f.Content
	}
	return next
}

// current is a file's content in the state, else at the base head (as read).
func current(src *sources, state map[string][]byte, path string) ([]byte, bool) {
	if b, ok := state[path]; ok {
		return b, true
	}
	if path == upstreams.FilePath {
		return src.upstreamsJSON, true
	}
	for name, b := range src.cookiecutters {
		if upstreams.CookiecutterPath(name) == path {
			return b, true
		}
	}
	b, ok := src.requirements[path]
	return b, ok
}

// proposalFiles writes one proposal over the current state.
func proposalFiles(src *sources, state map[string][]byte, c upstreams.Change) ([]FileChange, error) {
	upstreamsJSON, _ := current(src, state, upstreams.FilePath)
	before, err := upstreams.Parse(upstreamsJSON)
	if err != nil {
		return nil, err
	}
	in := before.Integrations[c.Integration]
	path := upstreams.CookiecutterPath(c.Integration)
	cookie, ok := current(src, state, path)
	if in == nil || !ok {
		return nil, fmt.Errorf("%s: integrations.%s: the plan proposes it but its %s was not read", upstreams.FilePath, c.Integration, path)
	}
	newUpstreams, err := upstreams.ProposeToUpstreams(upstreamsJSON, c)
	if err != nil {
		return nil, err
	}
	newCookie, err := upstreams.ProposeToCookiecutter(cookie, *in, c)
	if err != nil {
		return nil, err
	}
	return []FileChange{{Path: upstreams.FilePath, Content: newUpstreams}, {Path: path, Content: newCookie}}, nil
}

// changedFrom lists the state's files that differ from the base head, by path with
// upstreams.json first.
func changedFrom(src *sources, state map[string][]byte) []FileChange {
	paths := make([]string, 0, len(state))
	for p := range state {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool {
		if (paths[i] == upstreams.FilePath) != (paths[j] == upstreams.FilePath) {
			return paths[i] == upstreams.FilePath
		}
		return paths[i] < paths[j]
	})
	var out []FileChange
	for _, p := range paths {
		base, _ := current(src, nil, p)
		if !bytes.Equal(state[p], base) {
			out = append(out, FileChange{Path: p, Content: state[p]})
		}
	}
	return out
}

// proposalMessage is a proposal commit's message: what it adds, and that it needs review.
func proposalMessage(c upstreams.Change) string {
	var b strings.Builder
	fmt.Fprintf(&b, "feat(models): propose %s %s, a new line (needs review)\n\n", c.Integration, c.To)
	fmt.Fprintf(&b, "Adds %s to the generation matrix of %s with its schema URLs:\n", c.To, c.Integration)
	for _, u := range c.SchemaURLs {
		fmt.Fprintf(&b, "- %s\n", u)
	}
	fmt.Fprintf(&b, "\nUpstream release: %s\n", c.ReleaseURL)
	fmt.Fprintf(&b, "To decline this proposal for good, set \"declined\": %q in integrations.%s of %s\non the base branch; a dropped commit comes back on the next run.\n",
		c.To, c.Integration, upstreams.FilePath)
	b.WriteString("\nWritten by dagger call model-versions from models/upstreams.json.\n")
	return b.String()
}

// reviewMessage is the message of the commit without file changes that lets the pull
// request carry what needs review when nothing is edited.
func reviewMessage(plan upstreams.Updates) string {
	var b strings.Builder
	b.WriteString("chore(models): upstream model versions to review\n\n")
	b.WriteString("Nothing is edited: each item needs a maintainer (see the pull request's checklist).\n")
	for _, c := range plan.Changes {
		if !c.Applied {
			fmt.Fprintf(&b, "- %s %s → %s (%s)\n", c.Integration, c.From, c.To, c.Kind)
		}
	}
	for _, p := range plan.Problems {
		fmt.Fprintf(&b, "- %s skipped: fix %s\n", p.Integration, p.File)
	}
	b.WriteString("\nWritten by dagger call model-versions from models/upstreams.json.\n")
	return b.String()
}
