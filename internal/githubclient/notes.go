package githubclient

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/github"
)

// GenerateNotes asks GitHub to generate the notes of a release (POST
// /repos/{owner}/{repo}/releases/generate-notes). GitHub saves nothing, so although it
// is a POST it may be repeated: an answer lost to a 5xx or a dropped connection is asked
// for again within the client's retry budget, which the transport does not do for POSTs.
func (c *Client) GenerateNotes(ctx context.Context, owner, repo string, in github.NotesRequest) (github.GeneratedNotes, error) {
	opts := &gh.GenerateNotesOptions{TagName: in.TagName}
	if in.PreviousTagName != "" {
		opts.PreviousTagName = &in.PreviousTagName
	}
	if in.TargetCommitish != "" {
		opts.TargetCommitish = &in.TargetCommitish
	}
	var out github.GeneratedNotes
	err := c.WriteThenVerify(ctx,
		func(ctx context.Context) error {
			n, resp, err := c.gh.Repositories.GenerateReleaseNotes(ctx, seg(owner), seg(repo), opts)
			if err != nil {
				return apiErr(resp, err)
			}
			out = github.GeneratedNotes{Name: n.Name, Body: n.Body}
			return nil
		},
		// Nothing was saved whatever happened: asking again is the only way to know.
		func(context.Context) (bool, error) { return false, nil },
	)
	if err != nil {
		return github.GeneratedNotes{}, fmt.Errorf("github: generate the notes of %s in %s/%s: %w", in.TagName, owner, repo, err)
	}
	return out, nil
}
