package publish

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"dagger/shipyard/internal/gobuild"
	"dagger/shipyard/internal/wire"

	"dagger.io/dagger"

	"dagger/shipyard/internal/plainhttp"
)

// The registry work (pushes, indexes, tags, latest) runs in the registry command of the
// supplychain module, so the module binary links no registry client. The
// types below are what the command prints, read back here.

// registryPassPath is where a container that logs in to the registry finds its password.
const registryPassPath = "/run/secrets/registry-password"

// What the registry command prints and reads, defined once for the command and the module
// (supplychain/wire): the plan of one image's tags (plan-tags, apply-tags), what tagging
// did, what moving the latest tag planned and did, and what the policy's branch says about a
// commit.
type (
	TagAction     = wire.TagAction
	Tagging       = wire.Tagging
	SkippedTag    = wire.SkippedTag
	ApplyReport   = wire.ApplyReport
	LatestMove    = wire.LatestMove
	LatestReport  = wire.LatestReport
	BranchHistory = wire.BranchHistory
)

// Tag actions.
const (
	ActionCreate = wire.ActionCreate
	ActionKeep   = wire.ActionKeep
	ActionMove   = wire.ActionMove
)

// RegistryError is a failed registry command: its message (the command's own, which never
// holds a credential), and whether a tag that never moves was found on another digest.
type RegistryError struct {
	Message string
	// Moved: a version or commit tag is on another digest, now or since the plan.
	Moved bool
}

func (e *RegistryError) Error() string { return e.Message }

// Where the registry command finds its inputs.
const (
	registryBinary = "/usr/local/bin/registry"
	imagesDir      = "/run/shipyard/images"
)

// registryCall is one run of the registry command for t: cmd with args, the image files to
// mount (path in the container → file), and the reference whose registry host decides
// whether plain HTTP may be used.
type registryCall struct {
	cmd   string
	args  []string
	files map[string]*dagger.File
	// about is a repository or reference the call reads or writes; every one of a call
	// is in the same registry.
	about string
}

// run runs the registry command with t's login as a secret file and returns its stdout,
// also when it fails (apply-tags and latest print what they did). Each run reads or writes
// the registry, whose state is outside the graph, so a random value in its environment
// keeps the engine from answering it from its cache; the build of the command itself is
// cached.
func (t Target) run(ctx context.Context, call registryCall) (string, error) {
	if t.RegistryTool == nil {
		return "", errors.New("no registry tool container")
	}
	ctr := t.RegistryTool
	args := append([]string{"registry", call.cmd}, call.args...)
	if t.Password != nil {
		ctr = ctr.WithMountedSecret(registryPassPath, t.Password)
		args = append(args, "--registry-username", t.Username, "--registry-password-file", registryPassPath)
	}
	if host := registryHostOf(call.about); host != "" && plainhttp.Allowed(host) {
		// The command runs in a container of its own: its loopback is its own, which
		// traffic cannot leave either; the engine's gateway is the same from every
		// container of the engine.
		args = append(args, "--plain-http", host)
	}
	for path, f := range call.files {
		ctr = ctr.WithMountedFile(path, f)
	}
	stdout, err := gobuild.Run(ctx, ctr, "SHIPYARD_REGISTRY_RUN", args)
	var xe *gobuild.ExitError
	if err == nil || !errors.As(err, &xe) {
		return stdout, err
	}
	return xe.Stdout, &RegistryError{Message: xe.Message, Moved: xe.Code == wire.ExitMoved}
}

// runJSON runs call and reads its JSON output into out.
func (t Target) runJSON(ctx context.Context, call registryCall, out any) error {
	stdout, err := t.run(ctx, call)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(stdout), out); err != nil {
		return fmt.Errorf("reading the output of registry %s: %w", call.cmd, err)
	}
	return nil
}

// registryHostOf is the host, without port, of the registry a repository or reference
// names.
func registryHostOf(ref string) string {
	host, _, _ := strings.Cut(ref, "/")
	u, err := url.Parse("//" + host)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// resolvedRef is what the registry command's digest and platforms print per reference.
type resolvedRef struct {
	Image     string           `json:"image"`
	Digest    string           `json:"digest"`
	Platforms []PlatformDigest `json:"platforms,omitempty"`
}

// ResolveTags reads which of tags exist in repo, with t's login: tag → digest, absent
// when missing.
func (t Target) ResolveTags(ctx context.Context, repo string, tags []string) (map[string]string, error) {
	args := []string{"--repository", repo}
	for _, tag := range tags {
		args = append(args, "--tag", tag)
	}
	found := map[string]string{}
	if err := t.runJSON(ctx, registryCall{cmd: "tags", args: args, about: repo}, &found); err != nil {
		return nil, err
	}
	return found, nil
}

// resolveRefs runs digest (or, with platforms, platforms) for refs, all in one registry.
func (t Target) resolveRefs(ctx context.Context, refs []string, platforms bool) ([]resolvedRef, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	cmd := "digest"
	if platforms {
		cmd = "platforms"
	}
	var args []string
	for _, r := range refs {
		args = append(args, "--image", r)
	}
	var out []resolvedRef
	if err := t.runJSON(ctx, registryCall{cmd: cmd, args: args, about: refs[0]}, &out); err != nil {
		return nil, err
	}
	if len(out) != len(refs) {
		return nil, fmt.Errorf("registry %s answered for %d of %d references", cmd, len(out), len(refs))
	}
	return out, nil
}

// planTags has the registry command plan pointing tags at each pushed digest; a tag that
// never moves found on another digest is refused for every image it concerns.
func (t Target) planTags(ctx context.Context, pushed []Pushed, tags []string) ([]Tagging, error) {
	var args []string
	for _, p := range pushed {
		args = append(args, "--image", p.Ref())
	}
	for _, tag := range tags {
		args = append(args, "--tag", tag)
	}
	var plans []Tagging
	args = append(args, "--tag-policy", t.Tags.Flag())
	if err := t.runJSON(ctx, registryCall{cmd: "plan-tags", args: args, about: pushed[0].Repository}, &plans); err != nil {
		return nil, err
	}
	if len(plans) != len(pushed) {
		return nil, fmt.Errorf("registry plan-tags planned %d of %d images", len(plans), len(pushed))
	}
	return plans, nil
}
