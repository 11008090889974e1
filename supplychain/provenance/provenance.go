// Package provenance builds SLSA v1 build-provenance statements (in-toto
// Statement v1) for container images. It is pure: the caller gathers the
// facts (source, build parameters, builder) and this package only shapes them,
// deterministically, so that the same build always yields the same bytes.
package provenance

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Media and type identifiers of the formats produced here.
const (
	// StatementType is the in-toto Statement v1 type.
	StatementType = "https://in-toto.io/Statement/v1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
	// SLSAPredicateType is the SLSA build provenance v1 predicate type.
	SLSAPredicateType = "https://slsa.dev/provenance/v1"
	// GitHubWorkflowBuildType is GitHub's documented buildType for a GitHub
	// Actions workflow run, the one actions/attest-build-provenance emits.
	GitHubWorkflowBuildType = "https://actions.github.io/buildtypes/workflow/v1"
)

// Statement is an in-toto Statement v1. Field order and tags follow the spec;
// encoding/json sorts map keys, which keeps the output deterministic.
type Statement struct {
	Type          string               `json:"_type"`
	Subject       []ResourceDescriptor `json:"subject"`
	PredicateType string               `json:"predicateType"`
	Predicate     any                  `json:"predicate,omitempty"`
}

// ResourceDescriptor is an in-toto ResourceDescriptor (the subset we use).
type ResourceDescriptor struct {
	Name   string            `json:"name,omitempty"`
	URI    string            `json:"uri,omitempty"`
	Digest map[string]string `json:"digest,omitempty"`
}

// Predicate is the SLSA v1 provenance predicate.
type Predicate struct {
	BuildDefinition BuildDefinition `json:"buildDefinition"`
	RunDetails      RunDetails      `json:"runDetails"`
}

// BuildDefinition says what was built and from which inputs.
type BuildDefinition struct {
	BuildType            string               `json:"buildType"`
	ExternalParameters   map[string]any       `json:"externalParameters"`
	InternalParameters   map[string]any       `json:"internalParameters,omitempty"`
	ResolvedDependencies []ResourceDescriptor `json:"resolvedDependencies,omitempty"`
}

// RunDetails says who built it and in which run.
type RunDetails struct {
	Builder  Builder   `json:"builder"`
	Metadata *Metadata `json:"metadata,omitempty"`
}

// Builder identifies the trusted build platform.
type Builder struct {
	ID string `json:"id"`
}

// Metadata describes the run.
type Metadata struct {
	InvocationID string `json:"invocationId,omitempty"`
	StartedOn    string `json:"startedOn,omitempty"`
	FinishedOn   string `json:"finishedOn,omitempty"`
}

// GitHub holds the GitHub Actions facts of a run, as the GITHUB_* variables
// of the job give them. The zero value means "not run in GitHub Actions".
type GitHub struct {
	ServerURL         string // GITHUB_SERVER_URL, e.g. https://github.com
	Repository        string // GITHUB_REPOSITORY, owner/name
	RepositoryID      string // GITHUB_REPOSITORY_ID
	RepositoryOwnerID string // GITHUB_REPOSITORY_OWNER_ID
	WorkflowRef       string // GITHUB_WORKFLOW_REF, owner/name/.github/workflows/x.yml@refs/…
	EventName         string // GITHUB_EVENT_NAME
	RunID             string // GITHUB_RUN_ID
	RunAttempt        string // GITHUB_RUN_ATTEMPT
	RunnerEnvironment string // RUNNER_ENVIRONMENT: github-hosted or self-hosted
}

// InActions reports whether enough GitHub facts are set to describe a workflow run.
func (g GitHub) InActions() bool { return g.WorkflowRef != "" }

// BaseImage is a base image of the build whose digest is known.
type BaseImage struct {
	Name   string // e.g. docker.io/library/alpine:3.20
	Digest string // sha256:<hex>
}

// Input is everything a provenance statement is made from.
type Input struct {
	// ImageName is the image repository, e.g. index.docker.io/org/name.
	ImageName string
	// ImageDigest is the image manifest digest, sha256:<hex>.
	ImageDigest string
	// SourceRepository is the source repository URL, e.g. https://github.com/o/r.
	SourceRepository string
	// SourceRef is the git ref built, e.g. refs/tags/v1.0.0 (optional).
	SourceRef string
	// SourceCommit is the full git commit SHA.
	SourceCommit string
	// Dockerfile is the Dockerfile path within the source.
	Dockerfile string
	// BuildArgs are the build arguments given to the build.
	BuildArgs map[string]string
	// Platforms are what the build targeted, os/arch[/variant]: the one platform of a
	// platform image, or every platform an image index lists. None: the builder's own.
	Platforms []string
	// BaseImages are base images with known digests.
	BaseImages []BaseImage
	// GitHub describes the workflow run when built in GitHub Actions.
	GitHub GitHub
	// BuilderID identifies the builder outside GitHub Actions (required there).
	BuilderID string
	// BuildType is the buildType URI used outside GitHub Actions (required there).
	BuildType string
	// InvocationID identifies the run outside GitHub Actions (optional).
	InvocationID string
	// StartedOn and FinishedOn are included only when set, so that output
	// stays deterministic unless the caller asks for times.
	StartedOn, FinishedOn time.Time
}

var (
	sha256Digest = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	gitCommit    = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)
	platformRE   = regexp.MustCompile(`^[a-z0-9]+/[a-z0-9_]+(/[a-z0-9]+)?$`)
)

// ErrInvalid is wrapped by every input validation error.
var ErrInvalid = errors.New("invalid provenance input")

// Build returns the SLSA v1 provenance statement for in.
func Build(in Input) (Statement, error) {
	if err := validate(in); err != nil {
		return Statement{}, err
	}
	repoURL := strings.TrimSuffix(in.SourceRepository, ".git")
	b := builderOf(in)
	b.external["build"] = buildParameters(in, repoURL)
	pred := Predicate{
		BuildDefinition: BuildDefinition{
			BuildType:            b.buildType,
			ExternalParameters:   b.external,
			ResolvedDependencies: dependencies(in, repoURL),
		},
		RunDetails: RunDetails{Builder: Builder{ID: b.id}},
	}
	if len(b.internal) > 0 {
		pred.BuildDefinition.InternalParameters = b.internal
	}
	if md := metadata(in, b.invocationID); md != (Metadata{}) {
		pred.RunDetails.Metadata = &md
	}
	return Statement{
		Type: StatementType,
		Subject: []ResourceDescriptor{{
			Name:   in.ImageName,
			Digest: map[string]string{"sha256": strings.TrimPrefix(in.ImageDigest, "sha256:")},
		}},
		PredicateType: SLSAPredicateType,
		Predicate:     pred,
	}, nil
}

// builder is who ran the build and how the provenance names it.
type builder struct {
	buildType, id, invocationID string
	external, internal          map[string]any
}

// builderOf is the GitHub workflow when the build ran in GitHub Actions (as GitHub's own
// provenance has it), else the builder the caller named.
func builderOf(in Input) builder {
	b := builder{external: map[string]any{}, internal: map[string]any{}}
	if !in.GitHub.InActions() {
		b.buildType, b.id, b.invocationID = in.BuildType, in.BuilderID, in.InvocationID
		return b
	}
	server := strings.TrimSuffix(firstNonEmpty(in.GitHub.ServerURL, "https://github.com"), "/")
	path, ref, _ := strings.Cut(in.GitHub.WorkflowRef, "@")
	repo := in.GitHub.Repository
	// GITHUB_WORKFLOW_REF is owner/name/<path>@<ref>; the buildType wants the path alone.
	path = strings.TrimPrefix(path, repo+"/")
	b.buildType = GitHubWorkflowBuildType
	b.external["workflow"] = map[string]any{
		"ref":        ref,
		"repository": server + "/" + repo,
		"path":       path,
	}
	gh := map[string]any{}
	for k, v := range map[string]string{
		"event_name":          in.GitHub.EventName,
		"repository_id":       in.GitHub.RepositoryID,
		"repository_owner_id": in.GitHub.RepositoryOwnerID,
		"runner_environment":  in.GitHub.RunnerEnvironment,
	} {
		if v != "" {
			gh[k] = v
		}
	}
	if len(gh) > 0 {
		b.internal["github"] = gh
	}
	// The builder is the workflow identity, as GitHub's own provenance has it.
	b.id = server + "/" + in.GitHub.WorkflowRef
	if in.GitHub.RunID != "" {
		b.invocationID = fmt.Sprintf("%s/%s/actions/runs/%s/attempts/%s", server, repo, in.GitHub.RunID, firstNonEmpty(in.GitHub.RunAttempt, "1"))
	}
	return b
}

// buildParameters are the image build itself: which source and how it was invoked.
func buildParameters(in Input, repoURL string) map[string]any {
	source := map[string]any{"repository": repoURL, "commit": in.SourceCommit}
	if in.SourceRef != "" {
		source["ref"] = in.SourceRef
	}
	build := map[string]any{"source": source, "dockerfile": in.Dockerfile}
	if len(in.BuildArgs) > 0 {
		build["buildArgs"] = in.BuildArgs
	}
	if len(in.Platforms) > 0 {
		build["platforms"] = in.Platforms
	}
	return build
}

// dependencies are the source commit and the base images, in a stable order.
func dependencies(in Input, repoURL string) []ResourceDescriptor {
	deps := []ResourceDescriptor{{
		URI:    sourceURI(repoURL, in.SourceRef),
		Digest: map[string]string{"gitCommit": in.SourceCommit},
	}}
	bases := append([]BaseImage(nil), in.BaseImages...)
	sort.Slice(bases, func(i, j int) bool {
		if bases[i].Name != bases[j].Name {
			return bases[i].Name < bases[j].Name
		}
		return bases[i].Digest < bases[j].Digest
	})
	for _, b := range bases {
		deps = append(deps, ResourceDescriptor{
			URI:    dockerPURL(b.Name),
			Digest: map[string]string{"sha256": strings.TrimPrefix(b.Digest, "sha256:")},
		})
	}
	return deps
}

func metadata(in Input, invocationID string) Metadata {
	md := Metadata{InvocationID: invocationID}
	if !in.StartedOn.IsZero() {
		md.StartedOn = in.StartedOn.UTC().Format(time.RFC3339)
	}
	if !in.FinishedOn.IsZero() {
		md.FinishedOn = in.FinishedOn.UTC().Format(time.RFC3339)
	}
	return md
}

// Marshal returns the canonical JSON bytes of a statement: encoding/json with
// sorted map keys and no insignificant whitespace.
func Marshal(s Statement) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encoding statement: %w", err)
	}
	return b, nil
}

// sourceURI is the SPDX-style download location GitHub uses for the source
// dependency: git+https://github.com/o/r@refs/tags/v1.
func sourceURI(repoURL, ref string) string {
	u := "git+" + repoURL
	if ref != "" {
		u += "@" + ref
	}
	return u
}

// dockerPURL writes a base image name the way BuildKit's provenance does:
// pkg:docker/docker.io/library/alpine@3.20 (the tag after "@").
func dockerPURL(ref string) string {
	slash := strings.LastIndex(ref, "/")
	if i := strings.LastIndex(ref, ":"); i > slash {
		ref = ref[:i] + "@" + ref[i+1:]
	}
	return "pkg:docker/" + ref
}

func validate(in Input) error {
	var errs []error
	if in.ImageName == "" || strings.ContainsAny(in.ImageName, "@") {
		errs = append(errs, errors.New("image name must be a repository without tag or digest"))
	}
	if !sha256Digest.MatchString(in.ImageDigest) {
		errs = append(errs, fmt.Errorf("image digest %q is not sha256:<64 hex>", in.ImageDigest))
	}
	if !strings.HasPrefix(in.SourceRepository, "https://") {
		errs = append(errs, fmt.Errorf("source repository %q must be an https URL", in.SourceRepository))
	}
	if !gitCommit.MatchString(in.SourceCommit) {
		errs = append(errs, fmt.Errorf("source commit %q is not a full git SHA", in.SourceCommit))
	}
	if in.Dockerfile == "" {
		errs = append(errs, errors.New("dockerfile path is required"))
	}
	for _, p := range in.Platforms {
		if !platformRE.MatchString(p) {
			errs = append(errs, fmt.Errorf("platform %q is not os/arch[/variant], e.g. linux/arm64", p))
		}
	}
	for _, b := range in.BaseImages {
		if b.Name == "" || !sha256Digest.MatchString(b.Digest) {
			errs = append(errs, fmt.Errorf("base image %q@%q needs a name and a sha256 digest", b.Name, b.Digest))
		}
	}
	if in.GitHub.InActions() {
		if in.GitHub.Repository == "" || !strings.HasPrefix(in.GitHub.WorkflowRef, in.GitHub.Repository+"/") || !strings.Contains(in.GitHub.WorkflowRef, "@") {
			errs = append(errs, fmt.Errorf("workflow ref %q must be <repository>/<path>@<ref> of repository %q", in.GitHub.WorkflowRef, in.GitHub.Repository))
		}
		if err := sameRepository(in); err != nil {
			errs = append(errs, err)
		}
	} else {
		// Outside Actions there is no platform identity to fall back on:
		// refuse rather than emit provenance that names no builder.
		if in.BuilderID == "" {
			errs = append(errs, errors.New("builder id is required outside GitHub Actions"))
		}
		if in.BuildType == "" {
			errs = append(errs, errors.New("build type is required outside GitHub Actions"))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return nil
}

// sameRepository checks that a workflow run's provenance names the run's own repository
// (GITHUB_REPOSITORY on GITHUB_SERVER_URL) as its source: a fork's workflow, or a caller
// of the command around the module, never attests a build as another repository's.
func sameRepository(in Input) error {
	server := strings.TrimSuffix(firstNonEmpty(in.GitHub.ServerURL, "https://github.com"), "/")
	want := server + "/" + in.GitHub.Repository
	got := strings.TrimSuffix(strings.TrimSuffix(in.SourceRepository, ".git"), "/")
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("source repository %q is not the repository of the workflow run, %s (GITHUB_REPOSITORY on GITHUB_SERVER_URL)", in.SourceRepository, want)
	}
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
