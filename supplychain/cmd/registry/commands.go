package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"dagger/shipyard/supplychain/wire"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"dagger/shipyard/supplychain/internal/cli"
	"dagger/shipyard/supplychain/registry"
)

// push writes one image by digest, or, with one --platform per --image, the index of
// those platform images with each of them. The files are what Dagger's Container.asTarball
// writes (an OCI layout tar), mounted into the container; the manifest bytes are pushed as
// written, so the digest is the engine's.
func push(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	repo := fs.String("repository", "", "where to push: <registry>/<org>/<name>")
	var images, platforms cli.List
	fs.Var(&images, "image", "an image file: an OCI layout (tar or directory) or a docker archive (repeatable, with --platform)")
	fs.Var(&platforms, "platform", "the platform each --image was built for, in order (os/arch[/variant]): push their index")
	dryRun := fs.Bool("dry-run", false, "compute the digests a push would give; push nothing")
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		switch {
		case len(images) == 0:
			return usagef("--image is required")
		case *repo == "" && !*dryRun:
			return usagef("--repository is required")
		case len(platforms) == 0 && len(images) != 1:
			return usagef("give one --image, or one --platform per --image for an index")
		case len(platforms) > 0 && len(platforms) != len(images):
			return usagef("%d --platform for %d --image: give one per image, in order", len(platforms), len(images))
		}
		if len(platforms) == 0 {
			img, _, err := registry.OpenImage(images[0])
			if err != nil {
				return err
			}
			d, err := digestOrPush(*dryRun, "image", img.Digest, func() (string, error) {
				return registry.PushByDigest(ctx, *repo, img, conn.auth, conn.options()...)
			})
			if err != nil {
				return err
			}
			return wire.WriteJSON(stdout, wire.Pushed{Digest: d})
		}
		imgs, listed, err := openPlatformImages(images, platforms)
		if err != nil {
			return err
		}
		idx, err := registry.NewIndex(imgs)
		if err != nil {
			return err
		}
		d, err := digestOrPush(*dryRun, "index", idx.Digest, func() (string, error) {
			return registry.PushIndexByDigest(ctx, *repo, idx, conn.auth, conn.options()...)
		})
		if err != nil {
			return err
		}
		return wire.WriteJSON(stdout, wire.Pushed{Digest: d, Platforms: listed})
	}
}

// digestOrPush pushes with push, or on a dry run only computes the digest of what would be
// pushed (what, an image or an index, names it in an error).
func digestOrPush(dryRun bool, what string, digest func() (v1.Hash, error), push func() (string, error)) (string, error) {
	if !dryRun {
		return push()
	}
	h, err := digest()
	if err != nil {
		return "", fmt.Errorf("%s digest: %w", what, err)
	}
	return h.String(), nil
}

// openPlatformImages opens each platform's image and pairs the platform it was built for
// with its digest, refusing an image whose config names another platform: the index must
// say what each image runs on.
func openPlatformImages(files, platforms []string) ([]v1.Image, []registry.PlatformDigest, error) {
	imgs := make([]v1.Image, len(files))
	listed := make([]registry.PlatformDigest, len(files))
	for i, f := range files {
		want := platforms[i]
		img, _, err := registry.OpenImage(f)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", want, err)
		}
		got, err := registry.PlatformOf(img)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", want, err)
		}
		if got.String() != want {
			return nil, nil, fmt.Errorf("the image built for %s says it is for %q in its config", want, got.String())
		}
		h, err := img.Digest()
		if err != nil {
			return nil, nil, fmt.Errorf("%s: image digest: %w", want, err)
		}
		imgs[i], listed[i] = img, registry.PlatformDigest{Platform: want, Digest: h.String()}
	}
	return imgs, listed, nil
}

// assemble builds every image's index from platform images already in the registry (each
// checked to be for the platform it is listed under), and only then pushes them: a refused
// image leaves the registry as it was.
func assemble(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	plans := fs.String("indexes", "", `the indexes to assemble, JSON: [{"name": …, "repository": …, "platforms": [{"platform": …, "digest": …}]}]`)
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		var list []wire.Assembly
		if err := json.Unmarshal([]byte(*plans), &list); err != nil || len(list) == 0 {
			return usagef("--indexes: want a JSON list of indexes to assemble (%v)", err)
		}
		indexes := make([]v1.ImageIndex, len(list))
		var errs []error
		for i, a := range list {
			idx, err := registry.IndexOfPushed(ctx, a.Repository, a.Platforms, conn.auth, conn.options()...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", a.Name, err))
			}
			indexes[i] = idx
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		out := make([]wire.Pushed, len(list))
		for i, a := range list {
			d, err := registry.PushIndexByDigest(ctx, a.Repository, indexes[i], conn.auth, conn.options()...)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", a.Name, err))
				continue
			}
			out[i] = wire.Pushed{Name: a.Name, Repository: a.Repository, Digest: d, Platforms: a.Platforms}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		return wire.WriteJSON(stdout, out)
	}
}

func digest(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	return resolveEach(fs, func(ctx context.Context, conn connection, ref string) (wire.Resolved, error) {
		d, err := registry.Digest(ctx, ref, conn.auth, conn.options()...)
		return wire.Resolved{Image: ref, Digest: d}, err
	})
}

// platforms resolves each reference to its digest (a tag with one HEAD; a digest is
// checked by the read of its manifest) and lists the platform images of that digest's
// index, none for a single image.
func platforms(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	return resolveEach(fs, func(ctx context.Context, conn connection, ref string) (wire.Resolved, error) {
		repo, d, byDigest := strings.Cut(ref, "@")
		if !byDigest {
			var err error
			if d, err = registry.Digest(ctx, ref, conn.auth, conn.options()...); err != nil {
				return wire.Resolved{}, err
			}
			repo, _ = splitTag(ref)
		}
		listed, err := registry.Platforms(ctx, repo+"@"+d, conn.auth, conn.options()...)
		return wire.Resolved{Image: ref, Digest: d, Platforms: listed}, err
	})
}

// resolveEach is a command that resolves each --image with resolve, in order, and prints
// what it found; the first failure stops it.
func resolveEach(fs *flag.FlagSet, resolve func(context.Context, connection, string) (wire.Resolved, error)) func(context.Context, connection, io.Writer) error {
	var images cli.List
	fs.Var(&images, "image", "a reference, <registry>/<repo>:<tag> or @sha256:… (repeatable)")
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		if len(images) == 0 {
			return usagef("--image is required")
		}
		out := make([]wire.Resolved, len(images))
		for i, ref := range images {
			r, err := resolve(ctx, conn, ref)
			if err != nil {
				return err
			}
			out[i] = r
		}
		return wire.WriteJSON(stdout, out)
	}
}

// splitTag splits <repo>:<tag>; the repository's registry may have a port.
func splitTag(ref string) (repo, tag string) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 || i < strings.LastIndexByte(ref, '/') {
		return ref, ""
	}
	return ref[:i], ref[i+1:]
}

func tags(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	repo := fs.String("repository", "", "<registry>/<org>/<name>")
	var want cli.List
	fs.Var(&want, "tag", "a tag to resolve (repeatable); a tag that does not exist is left out")
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		if *repo == "" || len(want) == 0 {
			return usagef("--repository and --tag are required")
		}
		found, err := registry.ResolveTags(ctx, *repo, want, conn.auth, conn.options()...)
		if err != nil {
			return err
		}
		return wire.WriteJSON(stdout, found)
	}
}

// splitDigestRef splits <repo>@sha256:….
func splitDigestRef(ref string) (string, string, error) {
	repo, d, ok := strings.Cut(ref, "@")
	if !ok || repo == "" || d == "" {
		return "", "", usagef("--image %q: want <registry>/<repo>@sha256:…", ref)
	}
	return repo, d, nil
}

// tagPolicy declares --tag-policy, which every command that plans or writes tags needs:
// the names of the publishing system's latest, branch and commit tags.
func tagPolicy(fs *flag.FlagSet) func() (registry.TagPolicy, error) {
	value := fs.String("tag-policy", "", `the system's tag names, JSON: {"latest": …, "branchTag": …, "branch": …, "commitPrefix": …}`)
	return func() (registry.TagPolicy, error) {
		if *value == "" {
			return registry.TagPolicy{}, usagef("--tag-policy is required")
		}
		p, err := wire.ParseTagPolicy(*value)
		if err != nil {
			return registry.TagPolicy{}, usagef("%v", err)
		}
		return p, nil
	}
}

// planTags plans, for every image, pointing the tags at its digest. Every image is
// planned, and a refused tag of any of them is an error that names each.
func planTags(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	policy := tagPolicy(fs)
	var images, want cli.List
	fs.Var(&images, "image", "an image by digest, <registry>/<repo>@sha256:… (repeatable)")
	fs.Var(&want, "tag", "a tag to point at each digest (repeatable)")
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		if len(images) == 0 || len(want) == 0 {
			return usagef("--image and --tag are required")
		}
		p, err := policy()
		if err != nil {
			return err
		}
		plans := make([]registry.Tagging, len(images))
		var errs []error
		for i, ref := range images {
			repo, d, err := splitDigestRef(ref)
			if err != nil {
				return err
			}
			existing, err := registry.ResolveTags(ctx, repo, want, conn.auth, conn.options()...)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if plans[i], err = registry.PlanTags(p, repo, d, want, existing); err != nil {
				errs = append(errs, err)
			}
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		return wire.WriteJSON(stdout, plans)
	}
}

// applyTags applies each plan in turn (registry.ApplyTags: the immutable tags rechecked
// right before writing) and stops at the first failure; it prints the reports of the
// plans applied, the failed one's included. A plan that moves the branch tag is rechecked
// against --branch-history right before it moves; the latest tag is refused (see latest).
func applyTags(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	policy := tagPolicy(fs)
	plansJSON := fs.String("plans", "", "the plans to apply, JSON: what plan-tags printed")
	branchJSON := fs.String("branch-history", "", `what the branch says about the commit being tagged, JSON: {"commit": …, "onBranch": …, "newer": […], "complete": …}, read just before`)
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		p, err := policy()
		if err != nil {
			return err
		}
		var plans []registry.Tagging
		if err := json.Unmarshal([]byte(*plansJSON), &plans); err != nil || len(plans) == 0 {
			return usagef("--plans: want the JSON list plan-tags prints (%v)", err)
		}
		var branch *registry.BranchHistory
		if *branchJSON != "" {
			branch = &registry.BranchHistory{}
			if err := json.Unmarshal([]byte(*branchJSON), branch); err != nil {
				return usagef("--branch-history: %v", err)
			}
		}
		reports := []registry.ApplyReport{}
		var failed error
		for _, plan := range plans {
			opts := conn.options()
			if branch != nil {
				opts = append(opts, registry.WithStillNewest(registry.StillNewestIn(p, plan.Image, *branch, conn.auth, conn.options()...)))
			}
			report, err := registry.ApplyTags(ctx, p, plan.Image, plan.Digest, plan, conn.auth, nil, opts...)
			reports = append(reports, report)
			if err != nil {
				failed = err
				break
			}
		}
		if err := wire.WriteJSON(stdout, reports); err != nil {
			return err
		}
		return failed
	}
}

// moveLatest moves the policy's latest tag to each image's digest in every repository or in
// none. The GitHub
// half of "still the highest release" was asked by the caller right before this command;
// --higher lists the final versions above this release that have a git tag, and right
// before the first write each repository is read again for them: a release whose images
// are out, while its GitHub release is not yet, keeps latest where it is.
func moveLatest(fs *flag.FlagSet) func(context.Context, connection, io.Writer) error {
	policy := tagPolicy(fs)
	var images, higher cli.List
	fs.Var(&images, "image", "an image of the release by digest, <registry>/<repo>@sha256:… (repeatable)")
	fs.Var(&higher, "higher", "a final version above this release's, as tagged in the registry (repeatable)")
	return func(ctx context.Context, conn connection, stdout io.Writer) error {
		if len(images) == 0 {
			return usagef("--image is required")
		}
		p, err := policy()
		if err != nil {
			return err
		}
		targets := make([]registry.LatestImage, len(images))
		for i, ref := range images {
			repo, d, err := splitDigestRef(ref)
			if err != nil {
				return err
			}
			targets[i] = registry.LatestImage{Repo: repo, Digest: d}
		}
		stillLatest := func(ctx context.Context) (bool, error) {
			if len(higher) == 0 {
				return true, nil
			}
			for _, t := range targets {
				found, err := registry.ResolveTags(ctx, t.Repo, higher, conn.auth, conn.options()...)
				if err != nil {
					return false, fmt.Errorf("re-reading the version tags of %s: %w", t.Repo, err)
				}
				if len(found) > 0 {
					return false, nil
				}
			}
			return true, nil
		}
		report, err := registry.MoveLatest(ctx, p.Latest, targets, conn.auth, stillLatest, conn.options()...)
		if werr := wire.WriteJSON(stdout, report); werr != nil {
			return werr
		}
		return err
	}
}
