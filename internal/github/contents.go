package github

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// errPathForbidden refuses a path with "..": a path that climbs out of the contents
// endpoint would reach other API resources with the client's token.
var errPathForbidden = errors.New(`path must not contain ".."`)

// contentJSON holds the fields of a contents answer for a file the client reads.
type contentJSON struct {
	Type     string  `json:"type"`
	Encoding string  `json:"encoding"`
	Content  *string `json:"content"`
}

// FileAt returns a file's content at ref; found is false when it does not exist there.
func (c *Client) FileAt(ctx context.Context, owner, repo, path, ref string) ([]byte, bool, error) {
	if strings.Contains(path, "..") {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, errPathForbidden)
	}
	var q url.Values
	if ref != "" {
		q = url.Values{"ref": {ref}}
	}
	// The answer is an object for a file and an array for a directory.
	var raw json.RawMessage
	_, err := c.do(ctx, http.MethodGet, repoPath(owner, repo, "contents/"+contentPath(strings.TrimSuffix(path, "/"))), q, nil, &raw)
	if isNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, apiErr(err))
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) > 0 && trimmed[0] == '[' {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a directory, not a file", path, ref, owner, repo)
	}
	var file contentJSON
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: decoding the answer: %w", path, ref, owner, repo, err)
	}
	if file.Type != "file" {
		return nil, false, fmt.Errorf("github: %s at %s in %s/%s is a %s, not a file", path, ref, owner, repo, file.Type)
	}
	content, err := file.decode()
	if err != nil {
		return nil, false, fmt.Errorf("github: contents of %s at %s in %s/%s: %w", path, ref, owner, repo, err)
	}
	return content, true, nil
}

// decode returns a file's content by its encoding. GitHub sends base64 wrapped in lines,
// which the decoder skips; encoding "none" means the file (over 1 MB) was left out.
func (f contentJSON) decode() ([]byte, error) {
	switch f.Encoding {
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
		return nil, fmt.Errorf("unsupported content encoding %q", f.Encoding)
	}
}
