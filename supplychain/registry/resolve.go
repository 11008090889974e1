package registry

import (
	"context"
	"fmt"
	"sort"

	"github.com/google/go-containerregistry/pkg/name"
	"golang.org/x/sync/errgroup"
)

// MaxTagsResolved bounds Tags: resolving every tag costs one request per tag,
// so a larger repository is refused rather than hammered; ResolveTags with
// the tags that matter is the economical call.
const MaxTagsResolved = 256

// Digest returns the digest that a <repo>:<tag> or <repo>@<digest> reference
// resolves to, with one HEAD request. For a digest reference it confirms that
// the registry has it.
func Digest(ctx context.Context, ref string, auth Auth, opts ...Option) (string, error) {
	d, err := digest(ctx, ref, auth, opts)
	if err != nil {
		return "", auth.Scrub(fmt.Errorf("resolve digest: %w", err))
	}
	return d, nil
}

func digest(ctx context.Context, ref string, auth Auth, opts []Option) (string, error) {
	r, c, err := connect(parseReference, ref, auth, opts)
	if err != nil {
		return "", err
	}
	desc, err := c.puller.Head(ctx, r)
	if err != nil {
		return "", fmt.Errorf("%s: %w", r, err)
	}
	got := desc.Digest.String()
	if d, ok := r.(name.Digest); ok && d.DigestStr() != got {
		return "", fmt.Errorf("%s: registry answered with digest %s", r, got)
	}
	return got, nil
}

// ResolveTags returns tag → digest for the given tags of repo, with one HEAD
// per tag (a few in parallel). A tag that does not exist is absent from the
// map; any other failure is an error, since guessing would let a version move.
func ResolveTags(ctx context.Context, repo string, tags []string, auth Auth, opts ...Option) (map[string]string, error) {
	m, err := resolveTags(ctx, repo, tags, auth, opts)
	if err != nil {
		return nil, auth.Scrub(fmt.Errorf("resolve tags of %s: %w", repo, err))
	}
	return m, nil
}

func resolveTags(ctx context.Context, repo string, tags []string, auth Auth, opts []Option) (map[string]string, error) {
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return nil, err
	}
	return c.resolve(ctx, r, tags)
}

// Tags returns every tag of repo with its digest: the tag list, then one HEAD
// per tag. It refuses repositories with more than MaxTagsResolved tags.
func Tags(ctx context.Context, repo string, auth Auth, opts ...Option) (map[string]string, error) {
	m, err := allTags(ctx, repo, auth, opts)
	if err != nil {
		return nil, auth.Scrub(fmt.Errorf("tags of %s: %w", repo, err))
	}
	return m, nil
}

func allTags(ctx context.Context, repo string, auth Auth, opts []Option) (map[string]string, error) {
	r, c, err := connect(parseRepository, repo, auth, opts)
	if err != nil {
		return nil, err
	}
	list, err := c.listTags(ctx, r)
	if err != nil {
		return nil, err
	}
	if len(list) > MaxTagsResolved {
		return nil, fmt.Errorf("%d tags, more than the %d Tags resolves: use ResolveTags with the tags you need", len(list), MaxTagsResolved)
	}
	return c.resolve(ctx, r, list)
}

// listTags lists the tags of repo; a repository that does not exist yet has
// none.
func (c *client) listTags(ctx context.Context, repo name.Repository) ([]string, error) {
	list, err := c.puller.List(ctx, repo)
	if isNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list tags: %w", err)
	}
	sort.Strings(list)
	return list, nil
}

func (c *client) resolve(ctx context.Context, repo name.Repository, tags []string) (map[string]string, error) {
	uniq := make([]string, 0, len(tags))
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if err := checkTagSyntax(t); err != nil {
			return nil, err
		}
		if !seen[t] {
			seen[t] = true
			uniq = append(uniq, t)
		}
	}
	digests := make([]string, len(uniq))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.jobs)
	for i := range uniq {
		g.Go(func() error {
			desc, err := c.puller.Head(gctx, repo.Tag(uniq[i]))
			switch {
			case isNotFound(err):
			case err != nil:
				return fmt.Errorf("tag %s: %w", uniq[i], err)
			default:
				digests[i] = desc.Digest.String()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(uniq))
	for i, tag := range uniq {
		if digests[i] != "" {
			out[tag] = digests[i]
		}
	}
	return out, nil
}
