package updaterepos

import (
	"context"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/modelenv"
	"fmt"
	"regexp"
	"strings"
)

// A re-run of an older update-repos run (GitHub's "Re-run failed jobs" after a newer run
// pushed) would generate from an older Cloudcoil commit and fast-forward main back to an
// older generation, which Update Versions would then release. So a push is allowed only
// from a source that is at least as new as the one main was last generated from: Cloudcoil
// main's head, or a descendant of the Cloudcoil commit that the model repository's last
// generated commit records in its SourceTrailer.

// SourceTrailer is the Git trailer with which an update commit records the Cloudcoil commit
// it was generated from.
const SourceTrailer = "Cloudcoil-Commit"

// MaxGeneratedSearch bounds how many commits of main (first parents, from the head) are
// read to find the last generated commit: maintainers' own commits lie in between.
const MaxGeneratedSearch = 50

var (
	trailerLine = regexp.MustCompile(`(?m)^` + SourceTrailer + `: ([0-9a-f]{40})\s*$`)
	fullSHA     = regexp.MustCompile(`^[0-9a-f]{40}$`)
)

// RecordedSource is the Cloudcoil commit a commit message records in its SourceTrailer, or
// "" when it records none (a maintainer's commit). The last such trailer counts, as Git
// reads trailers.
func RecordedSource(message string) string {
	m := trailerLine.FindAllStringSubmatch(message, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// SourceFacts are what decides whether a generation may be pushed.
type SourceFacts struct {
	// SourceRepo and SourceBranch are Cloudcoil's repository and main branch; MainHead is
	// that branch's head.
	SourceRepo, SourceBranch, MainHead string
	// Source is the Cloudcoil commit the generation is made from.
	Source string
	// ModelRepo is the model repository; Generated is its last generated commit ("" when
	// none was found within MaxGeneratedSearch commits of its branch) and Recorded the
	// Cloudcoil commit that commit records.
	ModelRepo, Generated, Recorded string
	// Descends says whether Source descends from Recorded (or is Recorded).
	Descends bool
}

// CheckSource refuses a push whose source is older than the model repository's last
// generation: it must be Cloudcoil main's head, or descend from the recorded commit.
func CheckSource(f SourceFacts) error {
	switch {
	case f.Source == f.MainHead:
		return nil
	case f.Recorded != "" && f.Descends:
		return nil
	case f.Recorded == "":
		return fmt.Errorf("source commit %s is not the head of %s %s (%s), and no commit among the last %d of %s records the Cloudcoil commit it was generated from (%s trailer), so nothing shows the source is not older than what %s holds",
			f.Source, f.SourceRepo, f.SourceBranch, f.MainHead, MaxGeneratedSearch, f.ModelRepo, SourceTrailer, f.ModelRepo)
	}
	return fmt.Errorf("source commit %s does not descend from %s, the Cloudcoil commit that %s's last generated commit %.12s was generated from, and is not the head of %s %s (%s): pushing it would revert %s to an older generation (is this a re-run of an older run?)",
		f.Source, f.Recorded, f.ModelRepo, f.Generated, f.SourceRepo, f.SourceBranch, f.MainHead, f.ModelRepo)
}

// sourceFacts gathers SourceFacts for one model repository: Cloudcoil main's head first,
// and only when the source is not that head, the last generated commit (walking main's
// first parents from head) and the ancestry of the source.
// checkSourceAccess is what a run that writes asks first: the token may write the
// Cloudcoil repository's contents (CI_GITHUB_TOKEN may: model-versions pushes its branch
// there). Such a run generates at the release level, beside the caches of every
// credentialed run, so no code of the source runs before the token is shown to be the
// repository's own. The push permission GitHub reports is the token's user's role, so the
// token's own grant is read from its scopes, or asked (github.ProbeContentsWrite).
func checkSourceAccess(ctx context.Context, gh github.API, sourceRepo string) error {
	owner, name, ok := strings.Cut(sourceRepo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return fmt.Errorf("the Cloudcoil repository %q is not owner/name: give --repo (the wrappers pass $GITHUB_REPOSITORY)", sourceRepo)
	}
	p, found, err := gh.RepoPermissions(ctx, owner, name)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("the token cannot see %s (GitHub answers 404): is --repo the Cloudcoil repository?", sourceRepo)
	}
	const fix = "give --github-token CI_GITHUB_TOKEN, which has contents: write on the Cloudcoil repository and the model repositories (or run with --dry-run)"
	if !p.Push {
		return fmt.Errorf("the token may not push to %s: %w; "+fix, sourceRepo, modelenv.ErrNoAccess)
	}
	probe, err := github.ProbeContentsWrite(ctx, gh, owner, name, p)
	if err != nil {
		return err
	}
	if why := github.WhyNoContentsWrite(p, probe); why != "" {
		return fmt.Errorf("the token may not write the contents of %s: %s: %w; "+fix, sourceRepo, why, modelenv.ErrNoAccess)
	}
	return nil
}

func sourceFacts(ctx context.Context, gh github.API, o UpdateOptions, owner, repo, head string) (SourceFacts, error) {
	f := SourceFacts{SourceRepo: o.SourceRepo, SourceBranch: o.SourceBranch, Source: o.SourceCommit, ModelRepo: owner + "/" + repo}
	srcOwner, srcName, ok := strings.Cut(o.SourceRepo, "/")
	if !ok || srcOwner == "" || srcName == "" || strings.Contains(srcName, "/") {
		return f, fmt.Errorf("the Cloudcoil repository %q is not owner/name: give --repo (the wrappers pass $GITHUB_REPOSITORY)", o.SourceRepo)
	}
	mainHead, found, err := gh.BranchHead(ctx, srcOwner, srcName, o.SourceBranch)
	if err != nil {
		return f, err
	}
	if !found {
		return f, fmt.Errorf("%s has no branch %s (or the token cannot read it): is --repo the Cloudcoil repository?", o.SourceRepo, o.SourceBranch)
	}
	f.MainHead = mainHead
	if f.Source == f.MainHead {
		return f, nil
	}
	sha := head
	for range MaxGeneratedSearch {
		if sha == "" {
			break // a repository still to be created records nothing
		}
		c, err := gh.Commit(ctx, owner, repo, sha)
		if err != nil {
			return f, err
		}
		if rec := RecordedSource(c.Message); rec != "" {
			f.Generated, f.Recorded = c.SHA, rec
			break
		}
		if len(c.Parents) == 0 {
			break
		}
		sha = c.Parents[0]
	}
	if f.Recorded == "" {
		return f, nil
	}
	f.Descends, err = gh.IsAncestor(ctx, srcOwner, srcName, f.Recorded, f.Source)
	return f, err
}
