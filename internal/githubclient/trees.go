package githubclient

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v84/github"

	"dagger/shipyard/internal/fanout"
	"dagger/shipyard/internal/github"
)

// Tree lists a tree recursively (sha: a tree SHA, or a commit or branch whose tree is
// meant). complete is false when GitHub cut the listing (past 100,000 entries or 7 MB).
func (c *Client) Tree(ctx context.Context, owner, repo, sha string) (entries []github.TreeEntry, complete bool, err error) {
	tree, resp, err := c.gh.Git.GetTree(ctx, seg(owner), seg(repo), seg(sha), true)
	if err = apiErr(resp, err); err != nil {
		return nil, false, fmt.Errorf("github: tree %s of %s/%s: %w", sha, owner, repo, err)
	}
	for _, e := range tree.Entries {
		entries = append(entries, github.TreeEntry{Path: e.GetPath(), Mode: e.GetMode(), Type: e.GetType(), SHA: e.GetSHA()})
	}
	return entries, !tree.GetTruncated(), nil
}

// CreateBlob writes content (any bytes, sent in base64) as a blob and returns its SHA,
// after checking that GitHub stored exactly these bytes. A blob is named by its content, so
// writing it twice changes nothing: a write whose outcome is unknown is simply repeated.
func (c *Client) CreateBlob(ctx context.Context, owner, repo string, content []byte) (string, error) {
	want := github.BlobSHA(content)
	var got string
	err := c.repeatContentAddressed(ctx, func(ctx context.Context) error {
		blob, resp, err := c.gh.Git.CreateBlob(ctx, seg(owner), seg(repo), gh.Blob{
			Content: gh.Ptr(base64.StdEncoding.EncodeToString(content)), Encoding: gh.Ptr("base64"),
		})
		if err = apiErr(resp, err); err != nil {
			return err
		}
		got = blob.GetSHA()
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("github: create blob in %s/%s: %w", owner, repo, err)
	}
	if got != want {
		return "", fmt.Errorf("github: create blob in %s/%s: GitHub named it %s, but its bytes are %s", owner, repo, got, want)
	}
	return got, nil
}

// repeatContentAddressed runs a write of a Git object named by its content (a blob, a
// tree) and repeats it while its outcome is unknown, within the client's retry budget:
// unlike other writes, doing it twice gives the same object.
func (c *Client) repeatContentAddressed(ctx context.Context, write func(ctx context.Context) error) error {
	err := write(ctx)
	for attempt := 1; err != nil && github.OutcomeUnknown(err); attempt++ {
		if attempt >= c.t.policy.MaxAttempts {
			return fmt.Errorf("gave up after %d attempt(s): %w", attempt, err)
		}
		if serr := c.t.sleep(ctx, c.t.backoff(attempt)); serr != nil {
			return fmt.Errorf("%w (and waiting to repeat it stopped: %w)", err, serr)
		}
		c.t.retries.Add(1)
		err = write(ctx)
	}
	return err
}

// WriteTree writes a tree holding exactly files (with their modes) and returns its SHA,
// on top of base, whose entries current lists (Tree): files whose blob and mode are
// already there are not sent again, paths base has and files lacks are deleted, and when
// nothing differs base itself is returned and nothing is written. What changed goes in
// bounded requests, each tree on top of the one before: text inline, other bytes (and
// files past one batch's bound) as base64 blobs first. Every request writes an object
// named by its content, so each is repeated when its outcome is unknown.
func (c *Client) WriteTree(ctx context.Context, owner, repo, base string, current []github.TreeEntry, files []github.TreeFile, lim github.TreeBatches) (string, error) {
	lim = lim.WithDefaults()
	changed, deleted, err := treeChanges(current, files)
	if err != nil {
		return "", fmt.Errorf("github: tree for %s/%s: %w", owner, repo, err)
	}
	if len(changed) == 0 && len(deleted) == 0 && base != "" {
		return base, nil
	}
	// Bytes that cannot travel as JSON text, and files too large for one batch, become
	// blobs; the tree then names them by SHA.
	blobSHAs, err := c.writeBlobs(ctx, owner, repo, changed, lim)
	if err != nil {
		return "", err
	}
	batches := treeBatches(deleted, changed, blobSHAs, lim)
	tree := base
	for i, entries := range batches {
		err := c.repeatContentAddressed(ctx, func(ctx context.Context) error {
			created, resp, err := c.gh.Git.CreateTree(ctx, seg(owner), seg(repo), tree, entries)
			if err = apiErr(resp, err); err != nil {
				return err
			}
			tree = created.GetSHA()
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("github: create tree (request %d of %d) in %s/%s: %w", i+1, len(batches), owner, repo, err)
		}
	}
	return tree, nil
}

// treeChanges compares files with the entries of the base tree: the files to send (new,
// or with another blob or mode; sorted by path) and the paths to delete (sorted). A file
// without a mode keeps the base's, else is a regular file.
func treeChanges(current []github.TreeEntry, files []github.TreeFile) (changed []github.TreeFile, deleted []string, err error) {
	have := map[string]github.TreeEntry{}
	for _, e := range current {
		if e.Type != "tree" {
			have[e.Path] = e
		}
	}
	wanted := map[string]bool{}
	for _, f := range files {
		if f.Path == "" || strings.HasPrefix(f.Path, "/") {
			return nil, nil, fmt.Errorf("path %q must be relative to the repository root", f.Path)
		}
		if wanted[f.Path] {
			return nil, nil, fmt.Errorf("%s is given twice", f.Path)
		}
		if f.Mode == "" {
			f.Mode = github.ModeFile
			if e, ok := have[f.Path]; ok && e.Type == "blob" {
				f.Mode = e.Mode
			}
		}
		switch f.Mode {
		case github.ModeFile, github.ModeExecutable, github.ModeSymlink:
		default:
			return nil, nil, fmt.Errorf("%s has mode %q; a file is %s, %s or %s", f.Path, f.Mode, github.ModeFile, github.ModeExecutable, github.ModeSymlink)
		}
		wanted[f.Path] = true
		if e, ok := have[f.Path]; ok && e.Type == "blob" && e.Mode == f.Mode && e.SHA == github.BlobSHA(f.Content) {
			continue
		}
		changed = append(changed, f)
	}
	for p := range have {
		if !wanted[p] {
			deleted = append(deleted, p)
		}
	}
	sort.Strings(deleted)
	sort.Slice(changed, func(i, j int) bool { return changed[i].Path < changed[j].Path })
	return changed, deleted, nil
}

// treeBatches splits the deletions and changes into create-tree requests within lim:
// deletions first, then each file inline or by its blob's SHA. There is always at least one
// request (an empty tree is "tree": [], not null).
func treeBatches(deleted []string, changed []github.TreeFile, blobSHAs map[string]string, lim github.TreeBatches) [][]*gh.TreeEntry {
	var batches [][]*gh.TreeEntry
	var batch []*gh.TreeEntry
	size := 0
	flush := func() {
		if len(batch) > 0 {
			batches = append(batches, batch)
		}
		batch, size = nil, 0
	}
	for _, p := range deleted {
		// A deletion has neither SHA nor content: go-github sends "sha": null for it.
		batch = append(batch, &gh.TreeEntry{Path: gh.Ptr(p)})
	}
	for _, f := range changed {
		e := &gh.TreeEntry{Path: gh.Ptr(f.Path), Mode: gh.Ptr(f.Mode), Type: gh.Ptr("blob")}
		n := 0
		if sha, ok := blobSHAs[f.Path]; ok {
			e.SHA = gh.Ptr(sha)
		} else {
			e.Content, n = gh.Ptr(string(f.Content)), jsonLen(f.Content)
		}
		if len(batch) > 0 && (size+n > lim.MaxBytes || len(batch) >= lim.MaxEntries) {
			flush()
		}
		batch, size = append(batch, e), size+n
	}
	flush()
	if len(batches) == 0 {
		batches = [][]*gh.TreeEntry{{}}
	}
	return batches
}

// writeBlobs writes, lim.Blobs at a time, the files that cannot go inline: bytes that are
// not UTF-8, and files larger than a batch. It returns their SHAs by path.
func (c *Client) writeBlobs(ctx context.Context, owner, repo string, files []github.TreeFile, lim github.TreeBatches) (map[string]string, error) {
	var blobs []github.TreeFile
	for _, f := range files {
		if !utf8.Valid(f.Content) || jsonLen(f.Content) > lim.MaxBytes {
			blobs = append(blobs, f)
		}
	}
	shas := make([]string, len(blobs))
	// The tree cannot be written without every blob: the first failure stops the rest.
	g := fanout.New(ctx, lim.Blobs).FailFast()
	for i, f := range blobs {
		g.Go(func(ctx context.Context) error {
			sha, err := c.CreateBlob(ctx, owner, repo, f.Content)
			if err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			shas[i] = sha
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(blobs))
	for i, f := range blobs {
		out[f.Path] = shas[i]
	}
	return out, nil
}

// jsonLen is the length of UTF-8 text as a JSON string's contents: what it adds to a
// request, escapes included (a control character takes six bytes).
func jsonLen(text []byte) int {
	n := 0
	for _, b := range text {
		switch {
		case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
			n += 2
		case b < 0x20 || b == '<' || b == '>' || b == '&':
			n += 6 // \u00XX; encoding/json escapes <, > and & for HTML too
		case b == 0xe2:
			n += 4 // may start U+2028 or U+2029, which encoding/json sends as \u2028 (6 bytes for 3)
		default:
			n++
		}
	}
	return n
}
