package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"dagger/shipyard/internal/wire"

	"dagger.io/dagger"
)

// Target is where images are published and with which login.
type Target struct {
	// Registry is the registry host, e.g. docker.io.
	Registry string
	// Org is the organisation, e.g. elixircloud; a fork sets its own.
	Org string
	// Username and Password log in to the registry; Password is mounted as a secret file
	// into the containers that talk to it (the registry command, and signing, which writes
	// referrers). Without them every read is anonymous.
	Username string
	Password *dagger.Secret
	// RegistryTool is the container of the registry command, which does
	// every read and write of the registry.
	RegistryTool *dagger.Container
	// Tags names the system's latest, branch and commit tags; a target that only reads
	// needs none.
	Tags TagPolicy
}

// TagPolicy is how the publishing system names the tags that are not release versions: the
// tag that follows its highest release, the tag that follows the newest commit of a branch,
// and the prefix of a commit's own tag (supplychain/wire). The system gives it in its
// Target; the registry command classifies and rechecks tags by it, so no name of any one
// system is written here.
type TagPolicy = wire.TagPolicy

// Repository is where a is published: <registry>/<org>/<repository>.
func (t Target) Repository(a Artifact) string {
	return t.repository(a.Repository)
}

func (t Target) repository(name string) string {
	return strings.TrimSuffix(t.Registry, "/") + "/" + t.Org + "/" + name
}

// check refuses a target that would publish somewhere unintended.
func (t Target) check() error {
	switch {
	case strings.TrimSpace(t.Registry) == "":
		return InputErrorf("no registry given: give %s (e.g. docker.io)", InputRegistry)
	case strings.TrimSpace(t.Org) == "" || strings.Contains(t.Org, "/"):
		return InputErrorf("%s %q: give one name, e.g. elixircloud (a fork sets its own, like DOCKERHUB_ORG)", InputOrg, t.Org)
	case t.Password != nil && t.Username == "":
		return InputErrorf("a registry password was given without a user name: pass %s", InputRegistryUsername)
	}
	if err := t.Tags.Check(); err != nil {
		return fmt.Errorf("the tag policy: %w", err)
	}
	return nil
}

// Pushed is an image pushed by digest.
type Pushed struct {
	Name       string `json:"name"`
	Repository string `json:"repository"`
	Digest     string `json:"digest"`
	// Platforms are the images an index lists, when Digest is an image index (a
	// multi-platform image); none for a single image.
	Platforms []PlatformDigest `json:"platforms,omitempty"`
}

// PlatformDigest is the digest of one platform's image in an index (supplychain/wire).
type PlatformDigest = wire.PlatformDigest

// Ref is the reference by digest, <repository>@sha256:….
func (p Pushed) Ref() string { return p.Repository + "@" + p.Digest }

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// Check refuses anything but a repository and a sha256 digest: a tag here would act on
// whatever the tag points at by then, not on what was pushed and scanned.
func (p Pushed) Check() error {
	if p.Name == "" || p.Repository == "" {
		return fmt.Errorf("pushed image %+v has no name or repository", p)
	}
	if strings.ContainsAny(p.Repository, "@ ") || strings.Contains(path.Base(p.Repository), ":") {
		return fmt.Errorf("image %s: repository %q must have no tag or digest", p.Name, p.Repository)
	}
	if !digestRE.MatchString(p.Digest) {
		return fmt.Errorf("image %s: digest %q is not sha256:<64 lowercase hex>", p.Name, p.Digest)
	}
	seen := map[string]bool{}
	for _, pd := range p.Platforms {
		switch {
		case pd.Platform == "" || seen[pd.Platform]:
			return fmt.Errorf("image %s: platform %q is empty or listed twice", p.Name, pd.Platform)
		case !digestRE.MatchString(pd.Digest):
			return fmt.Errorf("image %s (%s): digest %q is not sha256:<64 lowercase hex>", p.Name, pd.Platform, pd.Digest)
		}
		seen[pd.Platform] = true
	}
	return nil
}

func checkPushed(pushed []Pushed) error {
	if len(pushed) == 0 {
		return errors.New("no pushed images given")
	}
	seen := map[string]bool{}
	for _, p := range pushed {
		if err := p.Check(); err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("image %s is given twice", p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// ParseRef reads <registry>/<org>/<prefix><name>@sha256:… into a Pushed named <name> (the
// last path element without the images' prefix, e.g. tesk-core-), for steps that run
// alone from a digest reference.
func ParseRef(ref, prefix string) (Pushed, error) {
	repo, digest, ok := strings.Cut(ref, "@")
	if !ok {
		return Pushed{}, fmt.Errorf("reference %q is not by digest: want <registry>/<org>/<name>@sha256:…", ref)
	}
	p := Pushed{Name: strings.TrimPrefix(path.Base(repo), prefix), Repository: repo, Digest: digest}
	if strings.Count(repo, "/") < 2 {
		return Pushed{}, fmt.Errorf("reference %q: want <registry>/<org>/<name>@sha256:… with the registry spelled out", ref)
	}
	if err := p.Check(); err != nil {
		return Pushed{}, err
	}
	return p, nil
}

// Digests are the pushed images' digests by name, as a result reports them.
func Digests(pushed []Pushed) map[string]string {
	out := make(map[string]string, len(pushed))
	for _, p := range pushed {
		out[p.Name] = p.Digest
	}
	return out
}

// Refs is the handoff a push prints and the later steps read: image name → its
// full reference by digest, e.g. {"filer": "docker.io/elixircloud/tesk-core-filer@sha256:…"},
// so that a later step names each image without building anything.
func Refs(pushed []Pushed) map[string]string {
	out := make(map[string]string, len(pushed))
	for _, p := range pushed {
		out[p.Name] = p.Ref()
	}
	return out
}

// refsExample is the handoff's form, for errors.
const refsExample = `{"filer": "<registry>/<org>/<repository>@sha256:…"}`

// ParseRefs reads the handoff of a push (Refs) into the pushed images it names, in the
// order of their names, each in t's registry and organisation: a step handles exactly the
// images named, at least one (a job per image passes only its own). A bare digest, a
// reference elsewhere, or one whose repository does not end in its image's name is refused.
// The errors' advice names the step that prints the handoff (StepPush).
func ParseRefs(data string, t Target) ([]Pushed, error) {
	var byName map[string]string
	if err := json.Unmarshal([]byte(data), &byName); err != nil {
		return nil, fmt.Errorf("want the JSON %s printed, e.g. %s: %w", StepPush, refsExample, err)
	}
	if len(byName) == 0 {
		return nil, fmt.Errorf("no image given: give the JSON %s printed, e.g. %s", StepPush, refsExample)
	}
	owner := t.repository("")
	var out []Pushed
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		ref := byName[name]
		repo, digest, ok := strings.Cut(ref, "@")
		switch {
		case !ok && digestRE.MatchString(ref):
			return nil, fmt.Errorf("%s: %q is a bare digest; give the full reference %s prints, <registry>/<org>/<repository>@sha256:… (pass its output on unchanged)", name, ref, StepPush)
		case !ok:
			return nil, fmt.Errorf("%s: %q is not a reference by digest: want <registry>/<org>/<repository>@sha256:…", name, ref)
		case !strings.HasPrefix(repo, owner) || strings.Contains(repo[len(owner):], "/"):
			return nil, InputErrorf("%s: %s is not in %s, where this call publishes (check %s and %s)", name, ref, strings.TrimSuffix(owner, "/"), InputRegistry, InputOrg)
		case !strings.HasSuffix(repo, name):
			return nil, fmt.Errorf("%s: repository %s is not image %s's: its name must end in the image's", name, repo, name)
		}
		p := Pushed{Name: name, Repository: repo, Digest: digest}
		if err := p.Check(); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// splitRef splits <repo>:<tag> or <repo>@<digest> into the repository and the tag (empty
// for a digest reference).
func splitRef(ref string) (repo, tag string, err error) {
	if r, _, ok := strings.Cut(ref, "@"); ok {
		return r, "", nil
	}
	slash := strings.LastIndex(ref, "/")
	colon := strings.LastIndex(ref, ":")
	if colon <= slash {
		return "", "", fmt.Errorf("reference %q has no tag: want <registry>/<org>/<name>:<tag> (e.g. :latest)", ref)
	}
	return ref[:colon], ref[colon+1:], nil
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
