package github

import (
	"context"
	"fmt"
	"time"
)

// Calls are the GitHub operations Shipyard performs. Each takes a context first and
// returns an error last, and its other arguments and results are plain data, so the GitHub
// command (cmd/github) can carry out any of them for the module as one JSON request and
// answer: package githubclient performs them on go-github, and githubcmd.Client asks the
// command. The names and signatures are the contract between the two.
type Calls interface {
	LatestWorkflowRun(ctx context.Context, owner, repo, workflowFile, event, branch, headSHA string) (WorkflowRun, bool, error)
	WorkflowRunJobs(ctx context.Context, owner, repo string, runID int64) ([]WorkflowJob, error)
	IsAncestor(ctx context.Context, owner, repo, sha, branch string) (bool, error)
	FileAt(ctx context.Context, owner, repo, path, ref string) ([]byte, bool, error)
	DirAt(ctx context.Context, owner, repo, path, ref string) ([]string, bool, error)
	CommitsAfter(ctx context.Context, owner, repo, sha, branch string) (onBranch bool, after []string, complete bool, err error)
	BranchHead(ctx context.Context, owner, repo, branch string) (sha string, found bool, err error)
	CommitTree(ctx context.Context, owner, repo, sha string) (string, error)
	Commit(ctx context.Context, owner, repo, sha string) (GitCommit, error)
	CreateTree(ctx context.Context, owner, repo, baseTree string, changes []TreeChange) (string, error)
	CreateCommit(ctx context.Context, owner, repo, message, tree string, parents []string) (string, error)
	CreateBranch(ctx context.Context, owner, repo, branch, sha string) error
	UpdateBranch(ctx context.Context, owner, repo, branch, sha string, force bool) error
	CompareFiles(ctx context.Context, owner, repo, base, head string) (Comparison, bool, error)
	Tree(ctx context.Context, owner, repo, sha string) (entries []TreeEntry, complete bool, err error)
	WriteTree(ctx context.Context, owner, repo, base string, current []TreeEntry, files []TreeFile, lim TreeBatches) (string, error)
	TagRef(ctx context.Context, owner, repo, tag string) (Tag, bool, error)
	TagNames(ctx context.Context, owner, repo string) ([]string, error)
	GenerateNotes(ctx context.Context, owner, repo string, in NotesRequest) (GeneratedNotes, error)
	OpenPullRequest(ctx context.Context, owner, repo, head, base string) (PullRequest, bool, error)
	CreatePullRequest(ctx context.Context, owner, repo string, np NewPullRequest) (PullRequest, error)
	EditPullRequest(ctx context.Context, owner, repo string, number int, e PullRequestEdit) (PullRequest, error)
	Releases(ctx context.Context, owner, repo string) ([]Release, error)
	ReleasePage(ctx context.Context, owner, repo string, perPage, page int) (releases []Release, next int, err error)
	ReleaseByTag(ctx context.Context, owner, repo, tag string) (Release, bool, error)
	CreateRelease(ctx context.Context, owner, repo string, nr NewRelease) (Release, error)
	PinnedReleases(ctx context.Context, owner, repo string) ([]PinnedRelease, error)
	ReleaseByID(ctx context.Context, owner, repo string, id int64) (PinnedRelease, bool, error)
	EditRelease(ctx context.Context, owner, repo string, id int64, e ReleaseEdit) (PinnedRelease, error)
	DeleteRelease(ctx context.Context, owner, repo string, id int64) error
	RepoPermissions(ctx context.Context, owner, repo string) (p Permissions, found bool, err error)
	CreateOrgRepo(ctx context.Context, org string, r NewRepository) error
	ReplaceTopics(ctx context.Context, owner, repo string, topics []string) error
	Rulesets(ctx context.Context, owner, repo, target string) ([]Ruleset, error)
	BranchStatusChecks(ctx context.Context, owner, repo, branch string) ([]string, error)
	ProtectionStatusChecks(ctx context.Context, owner, repo, branch string) ([]string, error)
	Environments(ctx context.Context, owner, repo string) ([]Environment, error)
	DeploymentPolicies(ctx context.Context, owner, repo, env string) ([]DeploymentPolicy, error)
	SecretNames(ctx context.Context, owner, repo string) ([]string, error)
	OrgSecretNames(ctx context.Context, owner, repo string) ([]string, error)
	EnvironmentSecretNames(ctx context.Context, owner, repo, env string) ([]string, error)
	Variables(ctx context.Context, owner, repo string) (map[string]string, error)
	CreateAttestation(ctx context.Context, owner, repo string, bundle []byte) (id int64, err error)
	Attestations(ctx context.Context, owner, repo, subjectDigest string) ([]Attestation, error)
}

// API is what the flows use: the Calls, and what a caller does around them, which runs
// where the caller is (a write verified by reading back, and the counts of what was sent).
type API interface {
	Calls
	// WriteThenVerify performs a write whose outcome may be unknown (see WriteThenVerify).
	WriteThenVerify(ctx context.Context, write func(ctx context.Context) error, readBack func(ctx context.Context) (done bool, err error)) error
	// Stats counts the requests sent so far.
	Stats() Stats
}

// WriteRetry bounds WriteThenVerify: how many writes it may try, and the wait before
// reading back after the attempt-th.
type WriteRetry struct {
	MaxAttempts int
	Wait        func(ctx context.Context, attempt int) error
}

// WriteThenVerify performs a write whose outcome may be unknown. When write fails with a
// 5xx or a network error after the request may have reached GitHub, the write may or may
// not have happened, so it reads back first and re-issues the write only when readBack
// proves it did not happen (done == false). It repeats within retry's attempts and
// returns nil once the write is known to be done. Definite failures (4xx, rate limits,
// cancellation) are returned as they are.
func WriteThenVerify(ctx context.Context, retry WriteRetry, write func(ctx context.Context) error, readBack func(ctx context.Context) (done bool, err error)) error {
	err := write(ctx)
	for attempt := 1; ; attempt++ {
		if err == nil || !OutcomeUnknown(err) {
			return err
		}
		if attempt >= retry.MaxAttempts {
			return fmt.Errorf("github: write outcome still unknown after %d attempt(s): %w", attempt, err)
		}
		// Give GitHub a moment to finish a write that did arrive before asking.
		if serr := retry.Wait(ctx, attempt); serr != nil {
			return fmt.Errorf("github: write outcome unknown (%w), and waiting to verify it stopped: %w", err, serr)
		}
		done, rerr := readBack(ctx)
		if rerr != nil {
			return fmt.Errorf("github: write outcome unknown (%w), and reading back failed: %w", err, rerr)
		}
		if done {
			return nil
		}
		err = write(ctx)
	}
}

// MaxReleasePages bounds a listing of releases (100 per page), so a misbehaving server
// cannot keep a caller paging.
const MaxReleasePages = 100

// ReleasePages reads a repository's releases newest first, one page of perPage (1 to 100;
// 100 when out of range) at a time, handing each page to more; it stops when more returns
// false, after the last page, or after maxPages pages (0 means MaxReleasePages). It
// returns how many pages it read and whether it stopped for one of the first two reasons
// (complete) rather than the page limit.
//
// Unlike Releases, the caller decides how far to go: a flow that only needs releases newer
// than what it tracks stops after the first page or two instead of reading a project's
// whole history, and each page is one conditional request that costs nothing when unchanged.
func ReleasePages(ctx context.Context, c Calls, owner, repo string, perPage, maxPages int, more func([]Release) bool) (pages int, complete bool, err error) {
	if perPage < 1 || perPage > 100 {
		perPage = 100
	}
	if maxPages <= 0 || maxPages > MaxReleasePages {
		maxPages = MaxReleasePages
	}
	page := 1
	for pages < maxPages {
		list, next, err := c.ReleasePage(ctx, owner, repo, perPage, page)
		if err != nil {
			return pages, false, err
		}
		pages++
		if !more(list) || next == 0 {
			return pages, true, nil
		}
		page = next
	}
	return pages, false, nil
}

// BackoffRetry is a WriteRetry of attempts writes that waits base, then twice as long
// after each further attempt; sleep (nil: a timer) does the waiting.
func BackoffRetry(attempts int, base time.Duration, sleep func(context.Context, time.Duration) error) WriteRetry {
	if sleep == nil {
		sleep = Sleep
	}
	return WriteRetry{MaxAttempts: attempts, Wait: func(ctx context.Context, attempt int) error {
		return sleep(ctx, base<<min(attempt-1, 10))
	}}
}

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
