// Package teskdemo is the demo tesk-core repository of the README's quick start: v0.11.0
// prepared as the release process asks (CITATION.cff, curated notes, CI passed for its push
// to dev, main moved to it) and tagged with a signed, annotated tag that GitHub verified.
// The module's tests seed it to check the README's sample output, and the demo server
// (internal/demoworld/demoserver) serves it, over the REST API and over git under the same
// SHAs (its commits are git commits, package gitserve), so a newcomer can run release-plan
// and release --dry-run with --demo, with no token and no network.
package teskdemo

import (
	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/gitserve"
)

// The demo repository and its release tag.
const (
	Owner = "elixir-cloud-aai"
	Name  = "tesk-core"
	Tag   = "v0.11.0"
)

// Notes are the demo release's curated notes, in the organisation's format.
const Notes = "Brings signed images.\n\n## Features\n\n- Sign both images (#101, #102)\n"

// Seed adds the demo repository to sim with notes as docs/releases/0.11.0.md (Notes for
// the README's demo) and returns it. Seeding is deterministic: the same notes give the
// same commit SHAs, which are git's.
func Seed(sim *githubsim.Server, notes string) *githubsim.Repo {
	repo := sim.AddRepo(Owner, Name)
	gitserve.Commit(repo, "dev", "feat: first", map[string]string{"README.md": "# tesk-core\n"})
	sha := gitserve.Commit(repo, "dev", "chore: release v0.11.0", map[string]string{
		"CITATION.cff":            "cff-version: 1.2.0\ntitle: tesk-core\nversion: 0.11.0\ndate-released: 2026-11-02\n",
		"docs/releases/0.11.0.md": notes,
	})
	repo.SetBranch("main", sha)
	repo.AnnotatedTag(Tag, sha, githubsim.ValidSignature())
	repo.AddWorkflowRun(githubsim.WorkflowRun{Workflow: "ci.yml", Event: "push", HeadBranch: "dev",
		HeadSHA: sha, Status: "completed", Conclusion: "success"})
	repo.AddRelease(githubsim.Release{TagName: "v0.10.6", Name: "v0.10.6"})
	return repo
}
