// Package teskrepo seeds the GitHub simulator with a repository shaped like tesk-core, for
// tests of the release flow from any package: the fixture project's files on dev, squash
// merged pull requests by several authors, main moved forward to a commit of dev, signed
// annotated release tags, CITATION.cff and curated notes at each release commit, CI passed
// for each push to dev, and releases published before. It can also teach the engine double
// what Dagger's git API would fetch for a tag, since the double does not model git trees.
package teskrepo

import (
	"dagger/shipyard/internal/githubclient"

	"cmp"
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
)

// The repository and its release process.
const (
	Owner    = "elixir-cloud-aai"
	Name     = "tesk-core"
	FullName = Owner + "/" + Name
	// GitURL is what Dagger's git API fetches the tagged source from.
	GitURL = "https://github.com/" + FullName + ".git"
	// Workflow is the CI workflow whose push runs the release gate checks.
	Workflow = "ci.yml"
	// Package is the Python distribution inside the images.
	Package = "teskcore"
)

// Tokens the simulator accepts: a release job's (contents: write) and a reader's.
const (
	Token     = "ghp_tesk0core0release0SECRET"
	ReadToken = "ghp_tesk0core0reader0SECRET"
)

// Repo is the seeded repository.
type Repo struct {
	Sim *githubsim.Server
	GH  *githubsim.Repo
	t   testing.TB
	// prs counts seeded pull requests, for distinct titles.
	prs int
}

// Options shape the history before the release under test.
type Options struct {
	// Published are the releases that exist already, each tagged on main and published
	// (0.x versions as pre-releases, as GitHub marks them). Nil means v0.10.6, the last
	// release of the old tag workflows; an empty, non-nil slice means none.
	Published []string
	// Sim are options of the simulator, e.g. a shared clock.
	Sim []githubsim.Option
}

// New starts a simulator holding tesk-core: the fixture project committed on dev, a few
// merged pull requests, and the published releases of opts, each on a release commit of
// its own.
func New(t testing.TB, opts Options) *Repo {
	t.Helper()
	published := opts.Published
	if published == nil {
		published = []string{"v0.10.6"}
	}
	sim := githubsim.New(t, opts.Sim...)
	sim.AddToken(Token, githubsim.Token{PushAccess: true})
	sim.AddToken(ReadToken, githubsim.Token{})
	r := &Repo{Sim: sim, GH: sim.AddRepo(Owner, Name), t: t}
	r.GH.CommitOnBranch("dev", "Initial import", projectFiles(t))
	r.GH.SetBranch("main", r.GH.Branch("dev"))
	r.GH.MergePullRequest(githubsim.MergedPull{Title: "feat(filer): S3 uploads", Author: "uniqueg", Labels: []string{"enhancement"}})
	r.GH.MergePullRequest(githubsim.MergedPull{Title: "build(deps): bump boto3 from 1.34.0 to 1.35.0", Author: "dependabot[bot]"})
	for _, tag := range published {
		r.Publish(tag, r.Prepare(tag))
	}
	return r
}

// projectFiles reads the tesk-core fixture project.
func projectFiles(t testing.TB) map[string]string {
	t.Helper()
	return fixtures.ReadFiles(t, fixtures.TeskCore(t, nil))
}

// Version is a tag without its v.
func Version(tag string) string { return strings.TrimPrefix(tag, "v") }

// Notes are curated release notes in the organisation's format for a version.
func Notes(version string) string {
	return "Release " + version + " publishes both images under version tags without v and retries FTP uploads.\n\n" +
		"## Features\n\n" +
		"- Publish images as X.Y.Z, see https://github.com/elixir-cloud-aai/tesk-core/blob/main/docs/development.md (#12, #34)\n\n" +
		"## Fixes\n\n" +
		"- Retry FTP uploads of the filer when the server drops the connection (#40)\n"
}

// Citation is CITATION.cff set for a version.
func Citation(version string) string {
	return "cff-version: 1.2.0\n" +
		"message: If you use this software, please cite it as below.\n" +
		"title: tesk-core\n" +
		"version: " + version + "\n" +
		"date-released: 2026-05-01\n"
}

// Prepare makes the release commit of tag as the process asks, with pulls merged to dev
// before it: the release pull request sets CITATION.cff and docs/releases/<version>.md,
// CI passes for its push to dev, and main moves forward to it. It returns the commit; the
// tag is not created (see Tag), so a test can prepare a backport's commit early and tag
// it later.
func (r *Repo) Prepare(tag string, pulls ...githubsim.MergedPull) string {
	r.t.Helper()
	for _, p := range pulls {
		r.GH.MergePullRequest(p)
	}
	v := Version(tag)
	_, sha := r.GH.MergePullRequest(githubsim.MergedPull{
		Title: "chore: release " + tag, Author: "uniqueg",
		Files: map[string]string{"CITATION.cff": Citation(v), "docs/releases/" + v + ".md": Notes(v)},
	})
	r.GH.AddWorkflowRun(githubsim.WorkflowRun{
		Workflow: Workflow, Event: "push", HeadBranch: "dev", HeadSHA: sha, Status: "completed", Conclusion: "success",
	})
	r.GH.SetBranch("main", sha)
	return sha
}

// Change merges an ordinary pull request to dev and returns its commit.
func (r *Repo) Change(title, author string) string {
	r.t.Helper()
	r.prs++
	_, sha := r.GH.MergePullRequest(githubsim.MergedPull{
		Title: title, Author: author,
		Files: map[string]string{"src/tesk_core/change_" + strconv.Itoa(r.prs) + ".py": "CHANGE = " + strconv.Quote(title) + "\n"},
	})
	return sha
}

// Tag pushes tag as a signed, annotated tag of sha that GitHub verified.
func (r *Repo) Tag(tag, sha string) {
	r.t.Helper()
	r.GH.AnnotatedTag(tag, sha, githubsim.ValidSignature())
}

// Release prepares and tags a release commit: what a maintainer does before the release
// workflow runs. It returns the commit.
func (r *Repo) Release(tag string, pulls ...githubsim.MergedPull) string {
	r.t.Helper()
	sha := r.Prepare(tag, pulls...)
	r.Tag(tag, sha)
	return sha
}

// Publish tags sha (when the tag does not exist yet) and publishes its GitHub release, as
// another release would have done: 0.x and a, b, rc versions as pre-releases.
func (r *Repo) Publish(tag, sha string) {
	r.t.Helper()
	if r.GH.Tag(tag) == "" {
		r.Tag(tag, sha)
	}
	r.GH.AddRelease(githubsim.Release{TagName: tag, Name: tag, Body: Notes(Version(tag)), Prerelease: preRelease(tag)})
}

// preRelease is GitHub's pre-release flag of tesk-core's releases: below 1.0.0, or a, b, rc.
func preRelease(tag string) bool {
	v := Version(tag)
	return strings.HasPrefix(v, "0.") || strings.ContainsAny(strings.TrimLeft(v, "0123456789."), "abrc")
}

// Releases returns the repository's releases, drafts included.
func (r *Repo) Releases() []githubsim.Release { return r.GH.Releases() }

// ReleasesOf returns the releases of one tag.
func (r *Repo) ReleasesOf(tag string) []githubsim.Release {
	var out []githubsim.Release
	for _, rel := range r.GH.Releases() {
		if rel.TagName == tag {
			out = append(out, rel)
		}
	}
	return out
}

// Client returns an API client of the simulator with the given token whose retries do not
// really sleep.
func (r *Repo) Client(t testing.TB, token string, opts ...githubclient.Option) *githubclient.Client {
	t.Helper()
	noSleep := githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() })
	c, err := githubclient.NewClient(r.Sim.URL, token, append([]githubclient.Option{noSleep}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// ServeTree teaches the engine double what Dagger's git API fetches from GitURL for tag:
// the commit the tag points to (GitRepository.tag(…).commit), and the files and folders of
// that commit's tree (GitRepository.commit(…).tree), which a release builds so that what
// it builds is the commit it checked. Call it after the tag exists.
func (r *Repo) ServeTree(e *engine.Engine, tag string) {
	r.t.Helper()
	sha := r.GH.Tag(tag)
	if sha == "" {
		r.t.Fatalf("teskrepo: ServeTree: no tag %s", tag)
		return
	}
	e.OnField(engine.FieldRule{Type: "GitRef", Field: "commit", ChainContains: TagChain(tag), Value: sha})
	ref := CommitChain(sha)
	files := r.GH.Files(sha)
	folders := map[string][]string{}
	for p, content := range files {
		e.OnFile(engine.FileRule{Path: p, ChainContains: ref, Contents: content})
		// Each folder lists its files and subfolders ("name/"), as Directory.entries does.
		for dir, name := path.Dir(p), path.Base(p); ; dir, name = path.Dir(dir), path.Base(dir)+"/" {
			if !slices.Contains(folders[dir], name) {
				folders[dir] = append(folders[dir], name)
			}
			if dir == "." {
				break
			}
		}
	}
	// The root's rule matches every folder object of the tree listed as itself, so it goes
	// first and the folders' own rules, registered later, win for them.
	dirs := slices.Sorted(maps.Keys(folders))
	slices.SortStableFunc(dirs, func(a, b string) int { return cmp.Compare(strings.Count(a, "/"), strings.Count(b, "/")) })
	if i := slices.Index(dirs, "."); i > 0 {
		dirs = append([]string{"."}, slices.Delete(dirs, i, i+1)...)
	}
	for _, dir := range dirs {
		entries := folders[dir]
		slices.Sort(entries)
		e.OnEntries(engine.DirRule{Path: dir, ChainContains: ref, Entries: entries})
	}
}

// TagChain is the part of an engine chain that names a tag of a git repository; the URL is
// left out because options of Query.git (auth) may follow it in the chain.
func TagChain(tag string) string { return fmt.Sprintf("tag(name:%q)", tag) }

// CommitChain is the part of an engine chain that names a commit of a git repository.
func CommitChain(sha string) string { return fmt.Sprintf("commit(id:%q)", sha) }

// ReportBuiltVersion makes `python -c …importlib.metadata…` in an image built from a
// Dockerfile print the version the build was given (SETUPTOOLS_SCM_PRETEND_VERSION), or
// setuptools_scm's fallback without one, as the installed package would.
func ReportBuiltVersion(e *engine.Engine) {
	e.OnExec(engine.ExecRule{ArgsContain: "importlib.metadata", Run: func(ex engine.Exec) (string, string, int) {
		if ex.Build == nil {
			return "", "PackageNotFoundError: No package metadata was found for " + Package + "\n", 1
		}
		if v := ex.Build.BuildArgs["SETUPTOOLS_SCM_PRETEND_VERSION"]; v != "" {
			return v + "\n", "", 0
		}
		return "0.0.0.dev0\n", "", 0
	}})
}
