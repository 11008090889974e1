package versions

import (
	"context"
	"errors"
	"fmt"

	"dagger/shipyard/internal/github"
	"dagger/shipyard/models/upstreams"
)

// pullBody is the description of the open pull request: the plan (each change with a link
// to its upstream release, and a section for those that need review) and how the pull
// request is maintained. It holds no time, so an unchanged plan renders the same body and
// an unchanged run writes nothing.
func pullBody(plan upstreams.Updates, base string) string {
	return plan.PRBody() + fmt.Sprintf("\n---\nKept current by `dagger call model-versions`: each run rebuilds `%s` "+
		"from the head of `%s` and updates this description, replacing anything pushed to the branch by hand. "+
		"It is closed once nothing is pending, for review included.\n", Branch, base)
}

// closingBody replaces the description when the pull request is closed: the updates that
// still need review stay listed where reviewers last looked.
func closingBody(plan upstreams.Updates, base string) string {
	return plan.PRBody() + fmt.Sprintf("\n---\nClosed by `dagger call model-versions`: `%s` already holds every "+
		"update that is applied automatically.\n", base)
}

// pullDecision is what to do with the pull request when there are files to propose.
type pullDecision string

const (
	pullKeep   pullDecision = "keep"   // open, with the right title and body
	pullCreate pullDecision = "create" // none open
	pullEdit   pullDecision = "edit"   // open, with a stale title or body
)

// decidePull compares the open pull request (if any) with the wanted title and body and
// returns the decision and, for pullEdit, only the fields that differ.
func decidePull(pr github.PullRequest, open bool, title, body string) (pullDecision, github.PullRequestEdit) {
	if !open {
		return pullCreate, github.PullRequestEdit{}
	}
	var edit github.PullRequestEdit
	if pr.Title != title {
		edit.Title = &title
	}
	if pr.Body != body {
		edit.Body = &body
	}
	if edit.Title == nil && edit.Body == nil {
		return pullKeep, edit
	}
	return pullEdit, edit
}

// syncPull opens the pull request or brings its title and body in line with the plan.
func (r *modelVersionsState) syncPull(ctx context.Context, pr github.PullRequest, open, pushed bool, plan upstreams.Updates) error {
	title, body := plan.PRTitle(), pullBody(plan, r.opts.Base)
	decision, edit := decidePull(pr, open, title, body)
	if decision == pullCreate {
		created, err := r.createPull(ctx, title, body)
		if !errors.Is(err, github.ErrAlreadyExists) {
			if err != nil {
				return err
			}
			r.report.Action = ActionOpened
			return r.confirmPull(ctx, created.Number, title, body)
		}
		// Opened by someone else between our read and our write: adopt it.
		if pr, open, err = r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base); err != nil {
			return err
		}
		if !open {
			return fmt.Errorf("%s: GitHub says a pull request from %s exists but none is open into %s: re-run", r.opts.Repo, Branch, r.opts.Base)
		}
		decision, edit = decidePull(pr, open, title, body)
	}
	r.report.PullRequest = pullRef(pr)
	if decision == pullKeep {
		r.report.Action = ActionUnchanged
		if pushed {
			r.report.Action = ActionUpdated
		}
		return nil
	}
	if err := r.write(ctx, func(ctx context.Context) error {
		_, err := r.gh.EditPullRequest(ctx, r.owner, r.name, pr.Number, edit)
		return err
	}, func(ctx context.Context) (bool, error) {
		cur, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
		return open && cur.Number == pr.Number && cur.Title == title && cur.Body == body, err
	}); err != nil {
		return err
	}
	r.report.Action = ActionUpdated
	return r.confirmPull(ctx, pr.Number, title, body)
}

// createPull opens the pull request; when the answer is lost it looks for the one it may
// have opened before trying again, so a retry never opens a second.
func (r *modelVersionsState) createPull(ctx context.Context, title, body string) (github.PullRequest, error) {
	var created github.PullRequest
	err := r.write(ctx, func(ctx context.Context) (err error) {
		created, err = r.gh.CreatePullRequest(ctx, r.owner, r.name, github.NewPullRequest{
			Title: title, Body: body, Head: Branch, Base: r.opts.Base,
		})
		return err
	}, func(ctx context.Context) (bool, error) {
		cur, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
		if open {
			created = cur
		}
		return open, err
	})
	return created, err
}

// confirmPull reads the open pull request back after a write: it must be the one written,
// as written. The read also leaves the ETag cache holding what the next run will ask for.
func (r *modelVersionsState) confirmPull(ctx context.Context, number int, title, body string) error {
	cur, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
	if err != nil {
		return err
	}
	if !open || cur.Number != number || cur.Title != title || cur.Body != body {
		return fmt.Errorf("%s: pull request #%d from %s does not read back as written; another writer may have changed it: re-run",
			r.opts.Repo, number, Branch)
	}
	r.report.PullRequest = pullRef(cur)
	return nil
}

// closePull closes the open pull request once the base holds every applied update. The
// branch is left in place: it costs nothing, and the next update rebuilds it anyway.
func (r *modelVersionsState) closePull(ctx context.Context, pr github.PullRequest, plan upstreams.Updates) error {
	closed, body := "closed", closingBody(plan, r.opts.Base)
	edit := github.PullRequestEdit{State: &closed}
	if pr.Body != body {
		edit.Body = &body
	}
	if err := r.write(ctx, func(ctx context.Context) error {
		_, err := r.gh.EditPullRequest(ctx, r.owner, r.name, pr.Number, edit)
		return err
	}, func(ctx context.Context) (bool, error) {
		_, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base)
		return !open, err
	}); err != nil {
		return err
	}
	if _, open, err := r.gh.OpenPullRequest(ctx, r.owner, r.name, Branch, r.opts.Base); err != nil {
		return err
	} else if open {
		return fmt.Errorf("%s: pull request #%d from %s is still open after closing it: re-run", r.opts.Repo, pr.Number, Branch)
	}
	r.report.Action = ActionClosed
	r.report.PullRequest = &PullRequest{Number: pr.Number, URL: pr.URL, State: "closed"}
	return nil
}

func pullRef(pr github.PullRequest) *PullRequest {
	return &PullRequest{Number: pr.Number, URL: pr.URL, State: pr.State}
}
