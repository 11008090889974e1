// Package releasegate is release-plan, the first step of tesk-core's release: it checks
// every rule a release tag must pass before anything is built or published, and computes
// the typed plan of the release: version, pre-release and latest flags, commit, image tags
// and curated notes.
//
// The rules are a pure function, Evaluate, over Facts: plain data that Gather fetches from
// the GitHub API at the tagged commit (never the caller's working tree). Check runs
// both and returns the plan or a *GateError listing every violated rule.
package releasegate

import "strings"

// Branches, event and files of the tesk-core release process.
const (
	// MainBranch is where release tags go: main is moved forward to a commit of dev.
	MainBranch = "main"
	// DevBranch is where CI must have passed for the commit's push.
	DevBranch = "dev"
	// CIEvent is the event of that CI run.
	CIEvent = "push"
	// DefaultWorkflow is the CI workflow's file name.
	DefaultWorkflow = "ci.yml"
	// DefaultImageOrg is tesk-core's Docker Hub organisation.
	DefaultImageOrg = "elixircloud"
	// CitationFile is the citation metadata at the repository root.
	CitationFile = "CITATION.cff"
)

// imageNames are the images of a tesk-core release, published as <org>/<image>.
func imageNames() []string { return []string{"tesk-core-taskmaster", "tesk-core-filer"} }

// Facts is everything the rules look at, fetched from GitHub by Gather.
type Facts struct {
	Repo     string `json:"repo"` // owner/name
	Tag      string `json:"tag"`
	Workflow string `json:"workflow"`  // CI workflow file name, e.g. ci.yml
	ImageOrg string `json:"image_org"` // Docker Hub organisation of the images

	TagRef TagFacts `json:"tag_ref"`
	// Rehearsal is the commit a rehearsal checks before the tag is pushed (Config.Commit):
	// the files, the branches and CI are read there, and the tag need not exist yet.
	Rehearsal string `json:"rehearsal,omitempty"`
	// OnMain is whether the tagged commit is main's head or one of its ancestors, by the
	// branch's commit (a tag may also be named main).
	OnMain bool `json:"on_main"`
	// OnDev is whether the tagged commit is dev's head or one of its ancestors: a CI run
	// counts as the push to dev only for a commit that is on dev.
	OnDev    bool      `json:"on_dev"`
	Citation FileFacts `json:"citation"`
	Notes    FileFacts `json:"notes"`
	CI       CIFacts   `json:"ci"`
	// CIChecked: an earlier job of the release passed rule 6; CI was not read (Config).
	CIChecked bool         `json:"ci_checked,omitempty"`
	Releases  []ReleaseRef `json:"releases"` // every release the token can see
}

// TagFacts is what the tag ref resolved to.
type TagFacts struct {
	Found     bool `json:"found"`
	Annotated bool `json:"annotated"`
	// TargetType is the type of the tagged object: "commit" normally.
	TargetType string `json:"target_type,omitempty"`
	CommitSHA  string `json:"commit_sha,omitempty"`
	// Verified and Reason are GitHub's verification of the tag object's signature.
	Verified bool   `json:"verified"`
	Reason   string `json:"reason,omitempty"`
}

// FileFacts is a file at the tagged commit.
type FileFacts struct {
	Path    string `json:"path"`
	Found   bool   `json:"found"`
	Content []byte `json:"content,omitempty"`
}

// CIFacts is the newest CI run for the commit's push to dev, as its latest attempt left it.
type CIFacts struct {
	// WorkflowFound is false when the repository has no workflow of that file name.
	WorkflowFound bool   `json:"workflow_found"`
	Found         bool   `json:"found"`
	Status        string `json:"status,omitempty"`
	Conclusion    string `json:"conclusion,omitempty"`
	Attempt       int    `json:"attempt,omitempty"`
	URL           string `json:"url,omitempty"`
	// Jobs are the jobs of the run's latest attempt, read only when the run as a whole did
	// not succeed: then its gate job (CIGateJob) decides rule 6.
	Jobs []CIJob `json:"jobs,omitempty"`
}

// CIJob is one job of the CI run's latest attempt.
type CIJob struct {
	Name string `json:"name"`
	// Status is queued, in_progress, completed, …; Conclusion (success, failure,
	// cancelled, skipped, …) is set once completed.
	Status     string `json:"status"`
	Conclusion string `json:"conclusion,omitempty"`
	URL        string `json:"url,omitempty"` // the job's page on GitHub
}

// ReleaseRef is a GitHub release as the rules need it.
type ReleaseRef struct {
	Tag        string `json:"tag"`
	Draft      bool   `json:"draft"`
	Prerelease bool   `json:"prerelease"`
	URL        string `json:"url,omitempty"`
}

// commit is the commit the rules read: the rehearsed one, or the tag's. It reads those two
// fields only, so Gather may call it while other reads fill the rest.
func (f *Facts) commit() string {
	if f.Rehearsal != "" {
		return f.Rehearsal
	}
	return f.TagRef.CommitSHA
}

// versionOf is the tag without its v: the version of the image tags, CITATION.cff and the
// notes' file name. It is taken literally, so that the files can be checked (and every
// problem reported) even for a tag of the wrong form.
func versionOf(tag string) string { return strings.TrimPrefix(tag, "v") }

// NotesPath is the curated release notes' path for a tag.
func NotesPath(tag string) string { return "docs/releases/" + versionOf(tag) + ".md" }
