package github

import (
	"context"
	"fmt"

	gh "github.com/google/go-github/v84/github"
)

// FileAt returns a file's content at ref; found is false when it does not exist there.
func (c *Client) FileAt(ctx context.Context, owner, repo, path, ref string) ([]byte, bool, error) {
	file, dir, _, err := c.gh.Repositories.GetContents(ctx, owner, repo, path, &gh.RepositoryContentGetOptions{Ref: ref})
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, apiErr(err))
	}
	if file == nil || dir != nil {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a %s, not a file", path, ref, owner, repo, contentType(file))
	}
	if file.GetType() != "file" {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a %s, not a file", path, ref, owner, repo, file.GetType())
	}
	content, err := file.GetContent()
	if err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, apiErr(err))
	}
	return []byte(content), true, nil
}

func contentType(f *gh.RepositoryContent) string {
	if f == nil {
		return "directory"
	}
	return f.GetType()
}
