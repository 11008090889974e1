package versions

import (
	"bytes"
	"fmt"
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
// first the applied updates; then each proposal (a new line of a track-lines
// integration) as its own commit adding the matrix entry and its schema URLs, so a
// reviewer can take or drop each; and, when neither exists but something still needs
// review (a maintained-minors minor, a Cloudcoil migration), one commit without file
// changes that carries the checklist, so the pull request can exist: GitHub opens none
// without a commit. A proposal that cannot be written (no schema URL reaches it) is
// left to the body and noted. An empty plan lays out nothing.
func planCommits(src *sources, plan upstreams.UpdatePlan) ([]commitSpec, []string, error) {
	applied, err := desiredFiles(src, plan)
	if err != nil {
		return nil, nil, err
	}
	var specs []commitSpec
	if len(applied) > 0 {
		specs = append(specs, commitSpec{Message: commitMessage(plan), Files: applied})
	}
	upstreamsJSON, cookiecutters := applyAll(src, applied)
	var notes []string
	for _, c := range plan.Changes {
		if c.Kind != upstreams.KindProposed {
			continue
		}
		files, err := proposalFiles(src, upstreamsJSON, cookiecutters, c)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s %s is listed for review but not proposed as a commit: %v", c.Integration, c.To, err))
			continue
		}
		upstreamsJSON, cookiecutters = withFiles(upstreamsJSON, cookiecutters, files)
		specs = append(specs, commitSpec{Message: proposalMessage(c), Files: cumulative(src, upstreamsJSON, cookiecutters)})
	}
	if len(specs) == 0 && !plan.Empty() {
		specs = append(specs, commitSpec{Message: reviewMessage(plan)})
	}
	return specs, notes, nil
}

// applyAll is the base files with the applied changes: upstreams.json and the
// cookiecutter.yaml files read, by path.
func applyAll(src *sources, applied []FileChange) ([]byte, map[string][]byte) {
	cookiecutters := map[string][]byte{}
	for name, b := range src.cookiecutters {
		cookiecutters[upstreams.CookiecutterPath(name)] = b
	}
	return withFiles(src.upstreamsJSON, cookiecutters, applied)
}

// withFiles returns the state with files written over it.
func withFiles(upstreamsJSON []byte, cookiecutters map[string][]byte, files []FileChange) ([]byte, map[string][]byte) {
	next := make(map[string][]byte, len(cookiecutters))
	for p, b := range cookiecutters {
		next[p] = b
	}
	for _, f := range files {
		if f.Path == upstreams.FilePath {
			upstreamsJSON = f.Content
			continue
		}
		next[f.Path] = f.Content
	}
	return upstreamsJSON, next
}

// proposalFiles writes one proposal over the current state.
func proposalFiles(src *sources, upstreamsJSON []byte, cookiecutters map[string][]byte, c upstreams.Change) ([]FileChange, error) {
	before, err := upstreams.Parse(upstreamsJSON)
	if err != nil {
		return nil, err
	}
	in := before.Integrations[c.Integration]
	path := upstreams.CookiecutterPath(c.Integration)
	cookie, ok := cookiecutters[path]
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

// cumulative lists the files of the state that differ from the base head, upstreams.json
// first, then cookiecutter.yaml files by path.
func cumulative(src *sources, upstreamsJSON []byte, cookiecutters map[string][]byte) []FileChange {
	var out []FileChange
	if !bytes.Equal(upstreamsJSON, src.upstreamsJSON) {
		out = append(out, FileChange{Path: upstreams.FilePath, Content: upstreamsJSON})
	}
	for _, name := range src.file.Names() {
		path := upstreams.CookiecutterPath(name)
		if b, ok := cookiecutters[path]; ok && !bytes.Equal(b, src.cookiecutters[name]) {
			out = append(out, FileChange{Path: path, Content: b})
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
	fmt.Fprintf(&b, "\nUpstream release: %s\nDrop this commit to decline the proposal.\n", c.ReleaseURL)
	b.WriteString("\nWritten by dagger call model-versions from models/upstreams.json.\n")
	return b.String()
}

// reviewMessage is the message of the commit without file changes that lets the pull
// request carry what needs review when nothing is edited.
func reviewMessage(plan upstreams.UpdatePlan) string {
	var b strings.Builder
	b.WriteString("chore(models): upstream model versions to review\n\n")
	b.WriteString("Nothing is edited: each item needs a maintainer (see the pull request's checklist).\n")
	for _, c := range plan.Changes {
		if !c.Applied {
			fmt.Fprintf(&b, "- %s %s → %s (%s)\n", c.Integration, c.From, c.To, c.Kind)
		}
	}
	b.WriteString("\nWritten by dagger call model-versions from models/upstreams.json.\n")
	return b.String()
}
