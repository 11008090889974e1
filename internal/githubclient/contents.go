package githubclient

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v84/github"
)

// errPathForbidden refuses a path with "..": a path that climbs out of the contents
// endpoint would reach other API resources with the client's token. go-github refuses it
// too; checking first keeps the refusal in this package's words.
var errPathForbidden = errors.New(`path must not contain ".."`)

// contents reads a path at ref: a file or a directory's entries; found is false when the
// path does not exist there.
func (c *Client) contents(ctx context.Context, owner, repo, path, ref string) (*gh.RepositoryContent, []*gh.RepositoryContent, bool, error) {
	if strings.Contains(path, "..") {
		return nil, nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, errPathForbidden)
	}
	file, dir, resp, err := c.gh.Repositories.GetContents(ctx, seg(owner), seg(repo), path, &gh.RepositoryContentGetOptions{Ref: ref})
	err = apiErr(resp, err)
	if isNotFound(err) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, err)
	}
	return file, dir, true, nil
}

// FileAt returns a file's content at ref; found is false when it does not exist there.
func (c *Client) FileAt(ctx context.Context, owner, repo, path, ref string) ([]byte, bool, error) {
	file, dir, found, err := c.contents(ctx, owner, repo, path, ref)
	if !found || err != nil {
		return nil, false, err
	}
	if file == nil || dir != nil {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a directory, not a file", path, ref, owner, repo)
	}
	if file.GetType() != "file" {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a %s, not a file", path, ref, owner, repo, file.GetType())
	}
	content, err := decodeContent(file)
	if err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, err)
	}
	return content, true, nil
}

// decodeContent returns a file's content by its encoding. GitHub sends base64 wrapped in
// lines, which the decoder skips; encoding "none" means the file (over 1 MB) was left out,
// which deserves a clearer word than go-github's "unsupported encoding".
func decodeContent(f *gh.RepositoryContent) ([]byte, error) {
	switch f.GetEncoding() {
	case "base64":
		if f.Content == nil {
			return nil, errors.New("malformed answer: base64 encoding of null content")
		}
		return base64.StdEncoding.DecodeString(*f.Content)
	case "":
		if f.Content == nil {
			return []byte{}, nil
		}
		return []byte(*f.Content), nil
	case "none":
		return nil, errors.New("unsupported content encoding none: the file is too large (over 1 MB) to be sent inline")
	default:
		return nil, fmt.Errorf("unsupported content encoding %q", f.GetEncoding())
	}
}
