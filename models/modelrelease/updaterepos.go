package modelrelease

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"dagger.io/dagger"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/github"
)

// Repository updates: after a source update is merged in Cloudcoil, each integration's
// repository is rendered and generated from the merged source and pushed to the main
// branch of its model repository (cloudcoil/models-<name>), whose own Update Versions
// workflow then releases it. The push is a regular commit on main's head through the Git
// data API (tree, commit, ref update without force): GitHub moves the branch only when
// the commit descends from its head, so a push never discards anyone's commit. The tree
// keeps the generation's modes and bytes (ReadGenerated) and is written in bounded
// requests carrying only what differs from main (github.Client.WriteTree).

// DefaultModelOwner owns the model repositories.
const DefaultModelOwner = "cloudcoil"

// ModelRepoName is the repository of an integration: models-<name>.
func ModelRepoName(owner, name string) string {
	return owner + "/models-" + name
}

// UpdateOptions configure UpdateRepos.
type UpdateOptions struct {
	// Names are the integrations to update; empty means every one of models/upstreams.json.
	Names []string
	// Owner owns the model repositories (default DefaultModelOwner).
	Owner string
	// Branch is the branch to push (default "main").
	Branch string
	// SourceRepo is the Cloudcoil repository (owner/name) and SourceBranch its main branch
	// (default "main"); SourceCommit, a full SHA, is the commit of it generated from. It
	// must be SourceBranch's head or descend from the commit the model repository's last
	// generation records (CheckSource); the commit message records it. A dry run may leave
	// it empty, and then skips that check.
	SourceRepo, SourceBranch, SourceCommit string
	// DryRun generates and compares, and pushes nothing.
	DryRun bool
	// Log receives one line per step (nil: none).
	Log func(format string, args ...any)
}

// RepoUpdate is what the update of one integration did.
type RepoUpdate struct {
	Name, Repo string
	// Head is main's commit the update read; Commit the one it pushed ("" when none).
	Head, Commit string
	// Unchanged says main already holds exactly the generated tree.
	Unchanged bool
	// Steps are the flow's steps that ran.
	Steps []string
	Err   error
}

// Updates are the outcome of UpdateRepos, one per integration in the order asked.
type Updates []RepoUpdate

// Err joins the failures, each naming its integration and step; nil when all succeeded.
func (u Updates) Err() error {
	var errs []error
	for _, r := range u {
		if r.Err != nil {
			errs = append(errs, r.Err)
		}
	}
	return errors.Join(errs...)
}

// Text renders one line per integration.
func (u Updates) Text() string {
	var b strings.Builder
	for _, r := range u {
		switch {
		case r.Err != nil:
			fmt.Fprintf(&b, "%s: failed (%s): %v\n", r.Repo, flow.FailedStep(r.Err), r.Err)
		case r.Unchanged:
			fmt.Fprintf(&b, "%s: unchanged at %.12s; nothing pushed\n", r.Repo, r.Head)
		case r.Commit == "":
			fmt.Fprintf(&b, "%s: generated and read %.12s; dry run, nothing written\n", r.Repo, r.Head)
		default:
			fmt.Fprintf(&b, "%s: pushed %.12s on %.12s\n", r.Repo, r.Commit, r.Head)
		}
	}
	return b.String()
}

// Integrations lists the integrations of the Cloudcoil repository's models/upstreams.json,
// sorted, as a JSON array for a workflow matrix.
func Integrations(ctx context.Context, source *dagger.Directory) (string, error) {
	file, err := readUpstreams(ctx, source)
	if err != nil {
		return "", err
	}
	return Validation{Integrations: file.Names()}.ListJSON(), nil
}

// updateState is one integration's update as its steps fill it in.
type updateState struct {
	name, owner, repo, branch string
	files                     []github.TreeFile
	head, headTree            string
	current                   []github.TreeEntry // headTree's entries
	tree, commit              string
}

// UpdateRepos updates the model repositories of the integrations, concurrently, each on
// its own: one integration's failure never stops another's push. The GitHub client holds
// the token (CI_GITHUB_TOKEN, whose pushes start the repositories' own workflows) in
// memory; no container receives it. The error, when any update failed, joins every
// failure; the updates are returned either way.
func (e Env) UpdateRepos(ctx context.Context, gh *github.Client, source *dagger.Directory, o UpdateOptions) (Updates, error) {
	if o.Owner == "" {
		o.Owner = DefaultModelOwner
	}
	if o.Branch == "" {
		o.Branch = "main"
	}
	if o.SourceBranch == "" {
		o.SourceBranch = "main"
	}
	if !fullSHA.MatchString(o.SourceCommit) && (o.SourceCommit != "" || !o.DryRun) {
		return nil, fmt.Errorf("update-repos: the source commit %q is not a full commit SHA: give --commit the Cloudcoil commit the source is a checkout of (github.sha in a workflow)", o.SourceCommit)
	}
	file, err := readUpstreams(ctx, source)
	if err != nil {
		return nil, err
	}
	if log := o.Log; log != nil {
		// The integrations log concurrently; the caller's function sees one line at a time.
		var mu sync.Mutex
		o.Log = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			log(format, args...)
		}
	}
	names := o.Names
	if len(names) == 0 {
		names = file.Names()
	}
	out := make(Updates, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = e.updateRepo(ctx, gh, source, name, o)
		}()
	}
	wg.Wait()
	if err := out.Err(); err != nil {
		return out, fmt.Errorf("update-repos: %d of %d failed:\n%w", countFailed(out), len(out), err)
	}
	return out, nil
}

func countFailed(u Updates) int {
	n := 0
	for _, r := range u {
		if r.Err != nil {
			n++
		}
	}
	return n
}

// updateRepo runs one integration's steps.
func (e Env) updateRepo(ctx context.Context, gh *github.Client, source *dagger.Directory, name string, o UpdateOptions) RepoUpdate {
	repo := ModelRepoName(o.Owner, name)
	st := &updateState{name: name, owner: o.Owner, repo: "models-" + name, branch: o.Branch}
	steps := []flow.Step[updateState]{
		{
			Name: "generate",
			Next: "fix the integration's source under models/" + name + "/ (run make gen-repo-" + name + " locally) and merge the fix",
			Run: func(ctx context.Context, s *updateState) error {
				dir, err := e.GenRepo(ctx, source, name)
				if err != nil {
					return err
				}
				s.files, err = e.ReadGenerated(ctx, dir, DefaultTreeLimits)
				return err
			},
		},
		{
			Name: "read " + o.Branch,
			Next: "create " + repo + " with a " + o.Branch + " branch and give CI_GITHUB_TOKEN contents write access to it",
			Run: func(ctx context.Context, s *updateState) error {
				head, ok, err := gh.BranchHead(ctx, s.owner, s.repo, s.branch)
				if err != nil {
					return err
				}
				if !ok {
					return fmt.Errorf("%s has no branch %s (or CI_GITHUB_TOKEN cannot read it)", repo, s.branch)
				}
				s.head = head
				if s.headTree, err = gh.CommitTree(ctx, s.owner, s.repo, head); err != nil {
					return err
				}
				var complete bool
				if s.current, complete, err = gh.Tree(ctx, s.owner, s.repo, s.headTree); err != nil {
					return err
				}
				if !complete {
					s.current = nil // GitHub cut the listing: send every file, on no base
				}
				return nil
			},
		},
		{
			Name: "check source",
			Next: "run update-repos for Cloudcoil " + o.SourceBranch + "'s head (a new run, or a re-run of the newest run) rather than re-running an older one",
			Run: func(ctx context.Context, s *updateState) error {
				if o.SourceCommit == "" {
					return nil // a dry run without --commit: nothing is pushed
				}
				f, err := sourceFacts(ctx, gh, o, s.owner, s.repo, s.head)
				if err != nil {
					return err
				}
				return CheckSource(f)
			},
		},
		{
			Name:   "write tree",
			Writes: true,
			Next:   "re-run the update; a tree object changes no branch",
			Run: func(ctx context.Context, s *updateState) error {
				base := s.headTree
				if s.current == nil {
					base = ""
				}
				var err error
				s.tree, err = gh.WriteTree(ctx, s.owner, s.repo, base, s.current, s.files, github.DefaultTreeBatches)
				return err
			},
		},
		{
			Name:   "push",
			Writes: true,
			Next:   "re-run the update: it commits on " + o.Branch + "'s new head; never force-push over it",
			Run: func(ctx context.Context, s *updateState) error {
				if s.tree == s.headTree {
					return nil // the same files: nothing to push
				}
				msg := UpdateMessage(name, o.SourceCommit)
				commit, err := gh.CreateCommit(ctx, s.owner, s.repo, msg, s.tree, []string{s.head})
				if err != nil {
					return err
				}
				err = gh.UpdateBranch(ctx, s.owner, s.repo, s.branch, commit, false)
				if errors.Is(err, github.ErrNotFastForward) {
					return fmt.Errorf("%s of %s diverged from %.12s, the head this update read and committed on (another push moved it): %w", s.branch, repo, s.head, err)
				}
				if err != nil {
					return err
				}
				s.commit = commit
				return nil
			},
		},
	}
	ran, err := flow.Run(ctx, flow.Runner{Flow: "update-repos " + name, Log: o.Log, DryRun: o.DryRun}, steps, st)
	u := RepoUpdate{Name: name, Repo: repo, Head: st.head, Commit: st.commit, Steps: ran, Err: err}
	u.Unchanged = err == nil && st.tree != "" && st.tree == st.headTree
	return u
}

// UpdateMessage is the commit message of a repository update.
func UpdateMessage(name, sourceCommit string) string {
	from := "the Cloudcoil source"
	if sourceCommit != "" {
		from = "Cloudcoil at " + sourceCommit
	}
	msg := fmt.Sprintf("Update generated models and template of %s\n\nRendered and generated from %s by Shipyard's update-repos.\n", name, from)
	if sourceCommit != "" {
		msg += "\n" + SourceTrailer + ": " + sourceCommit + "\n"
	}
	return msg
}
