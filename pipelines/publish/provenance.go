package publish

import (
	"context"
	"dagger/shipyard/internal/wire"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"dagger.io/dagger"
)

// Origin is what a provenance says before the build is known: the source repository and
// the builder, as the call's settings give them. A flow makes the provenance of each build
// from it once it knows the ref and commit (Provenance).
type Origin struct {
	// SourceRepository is the source's URL, e.g. https://github.com/elixir-cloud-aai/tesk-core.
	SourceRepository string
	// BuilderID and BuildType identify the builder outside GitHub Actions (both required
	// there; in Actions the workflow is the builder). InvocationID names the run (optional).
	BuilderID, BuildType, InvocationID string
	// GitHub holds the GITHUB_* variables of the run (and RUNNER_ENVIRONMENT) when built in
	// GitHub Actions; GITHUB_WORKFLOW_REF set means "built in Actions".
	GitHub map[string]string
}

// Provenance is the provenance of a build of commit on ref (e.g. refs/tags/v0.11.0).
func (o Origin) Provenance(ref, commit string) Provenance {
	return Provenance{Origin: o, SourceRef: ref, SourceCommit: commit}
}

// Provenance describes how the images were built, for their SLSA build provenance.
type Provenance struct {
	Origin
	// SourceRef is the git ref built, e.g. refs/heads/dev (optional).
	SourceRef string
	// SourceCommit is the full commit SHA built.
	SourceCommit string
	// BaseImages lists, per image name, base images known by digest (NAME@sha256:…).
	BaseImages map[string][]string
}

// githubFlags maps the variables of a GitHub Actions run to the command's flags.
var githubFlags = map[string]string{
	"GITHUB_SERVER_URL":          "--github-server-url",
	"GITHUB_REPOSITORY":          "--github-repository",
	"GITHUB_REPOSITORY_ID":       "--github-repository-id",
	"GITHUB_REPOSITORY_OWNER_ID": "--github-repository-owner-id",
	"GITHUB_WORKFLOW_REF":        "--github-workflow-ref",
	"GITHUB_EVENT_NAME":          "--github-event-name",
	"GITHUB_RUN_ID":              "--github-run-id",
	"GITHUB_RUN_ATTEMPT":         "--github-run-attempt",
	"RUNNER_ENVIRONMENT":         "--github-runner-environment",
}

// GitHubVariables lists the variables Provenance.GitHub accepts.
func GitHubVariables() []string {
	out := make([]string, 0, len(githubFlags))
	for k := range githubFlags {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParseGitHubEnv reads NAME=value pairs (the --github-env flag) into Provenance.GitHub.
// Unknown names are refused rather than dropped, so a typo cannot silently turn a build
// in Actions into one attributed to the fallback builder.
func ParseGitHubEnv(pairs []string) (map[string]string, error) {
	out, err := wire.ParsePairs("a variable", pairs)
	if err != nil {
		return nil, InputErrorf("%s: %w", InputGitHubEnv, err)
	}
	for _, k := range slices.Sorted(maps.Keys(out)) {
		if _, known := githubFlags[k]; !known {
			return nil, InputErrorf("%s: %s is not one of %s", InputGitHubEnv, k, strings.Join(GitHubVariables(), ", "))
		}
	}
	return out, nil
}

// ErrNoBuilder is CheckBuilder's error: the provenance would name no builder.
var ErrNoBuilder = errors.New("the provenance would name no builder")

// CheckBuilder checks that the provenance can name its builder: the GitHub Actions run
// (GITHUB_WORKFLOW_REF among the run's variables) or, elsewhere, a builder id and build
// type. A flow that attests checks it before it writes anything, so a missing input never
// leaves pushed digests behind.
func (o Origin) CheckBuilder() error {
	if o.GitHub["GITHUB_WORKFLOW_REF"] == "" && (o.BuilderID == "" || o.BuildType == "") {
		return InputErrorf("%w: outside GitHub Actions it needs %s and %s (or give %s)", ErrNoBuilder, InputBuilderID, InputBuildType, InputGitHubEnv)
	}
	return nil
}

// AttestArgs are the provenance flags of `supplychain attest` for img: the source, the
// Dockerfile, the build arguments the image was built with, the base images and the
// builder. Flags come in a fixed order, so the same build gives the same exec.
func AttestArgs(p Provenance, a Artifact) ([]string, error) {
	if p.SourceRepository == "" || p.SourceCommit == "" {
		return nil, fmt.Errorf("image %s: the provenance needs the source repository and commit", a.Name)
	}
	args := []string{"--source-repository", p.SourceRepository, "--source-commit", p.SourceCommit}
	if p.SourceRef != "" {
		args = append(args, "--source-ref", p.SourceRef)
	}
	args = append(args, "--dockerfile", a.Recipe.Dockerfile)
	for _, kv := range wire.Pairs(a.Recipe.BuildArgs) {
		args = append(args, "--build-arg", kv)
	}
	bases := slices.Clone(p.BaseImages[a.Name])
	sort.Strings(bases)
	for _, b := range bases {
		args = append(args, "--base-image", b)
	}
	for _, k := range GitHubVariables() {
		if v := p.GitHub[k]; v != "" {
			args = append(args, githubFlags[k], v)
		}
	}
	for k := range p.GitHub {
		if _, known := githubFlags[k]; !known {
			return nil, fmt.Errorf("image %s: GitHub variable %s is not one of %s", a.Name, k, strings.Join(GitHubVariables(), ", "))
		}
	}
	if err := p.CheckBuilder(); err != nil {
		return nil, InputErrorf("image %s: %w", a.Name, err)
	}
	if p.BuilderID != "" {
		args = append(args, "--builder-id", p.BuilderID)
	}
	if p.BuildType != "" {
		args = append(args, "--build-type", p.BuildType)
	}
	if p.InvocationID != "" {
		args = append(args, "--invocation-id", p.InvocationID)
	}
	return args, nil
}

// BaseImages lists the base images of a Dockerfile that are pinned by digest
// (FROM name[:tag]@sha256:…), which the provenance records as resolved dependencies. Stages
// named by AS, unpinned images and images built from ARG values are left out: their digest
// is not known from the file.
func BaseImages(dockerfile string) []string {
	var out []string
	for _, line := range strings.Split(dockerfile, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || !strings.EqualFold(fields[0], "FROM") {
			continue
		}
		ref := ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "--") {
				ref = f
				break
			}
		}
		_, digest, pinned := strings.Cut(ref, "@")
		if !pinned || !digestRE.MatchString(digest) || strings.Contains(ref, "$") || slices.Contains(out, ref) {
			continue
		}
		out = append(out, ref)
	}
	return out
}

// ReadBaseImages reads each image's Dockerfile from the source and returns its pinned base
// images by image name, for Provenance.BaseImages.
func ReadBaseImages(ctx context.Context, src *dagger.Directory, images []Artifact) (map[string][]string, error) {
	out := make(map[string][]string, len(images))
	for _, a := range images {
		content, err := src.File(a.Recipe.Dockerfile).Contents(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %w", a.Name, a.Recipe.Dockerfile, err)
		}
		if bases := BaseImages(content); len(bases) > 0 {
			out[a.Name] = bases
		}
	}
	return out, nil
}

// SourceRepository is the repository (owner/name) a build's provenance names as its
// source: in GitHub Actions the run's own, GITHUB_REPOSITORY of githubEnv, so a fork's
// workflow never attests a build as upstream's. repo (--repo) must then name the same
// repository: the registry, the releases and the provenance would otherwise disagree about
// where the image comes from. Outside Actions, repo.
func SourceRepository(repo string, githubEnv map[string]string) (string, error) {
	run, ok := githubEnv["GITHUB_REPOSITORY"]
	if !ok {
		return repo, nil
	}
	if run == "" {
		return "", InputErrorf("%s: GITHUB_REPOSITORY is empty: give the run's, GITHUB_REPOSITORY=$GITHUB_REPOSITORY", InputGitHubEnv)
	}
	if !strings.EqualFold(run, repo) {
		return "", InputErrorf("%s %s is not the repository this run builds (GITHUB_REPOSITORY=%s): the provenance would name the wrong source; pass %s \"$GITHUB_REPOSITORY\"", InputRepository, repo, run, InputRepository)
	}
	return run, nil
}

// SourceCommit is the commit checked out in src, read from its Git history: what names
// the source of a platform job's images.
func SourceCommit(ctx context.Context, src *dagger.Directory) (string, error) {
	sha, err := src.AsGit().Head().Commit(ctx)
	if err != nil {
		return "", fmt.Errorf("reading the source's commit: %w (the platform jobs name the commit they built: give a source with its Git history, e.g. a checkout with fetch-depth: 0)", err)
	}
	if !commitRE.MatchString(sha) {
		return "", fmt.Errorf("the source's commit %q is not a full commit SHA", sha)
	}
	return sha, nil
}
