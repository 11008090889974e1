package publish

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"regexp"
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
	// RegistryTool is the container of the registry command (RegistryTool), which does
	// every read and write of the registry.
	RegistryTool *dagger.Container
}

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
		return errors.New("no registry given (e.g. docker.io)")
	case strings.TrimSpace(t.Org) == "" || strings.Contains(t.Org, "/"):
		return fmt.Errorf("registry organisation %q: give one name, e.g. elixircloud (a fork sets its own, like DOCKERHUB_ORG)", t.Org)
	case t.Password != nil && t.Username == "":
		return errors.New("a registry password was given without a user name: pass --registry-username")
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

// Digests is the JSON that push-by-digest prints and the later steps read: image name →
// digest, e.g. {"filer": "sha256:…", "taskmaster": "sha256:…"}.
func Digests(pushed []Pushed) map[string]string {
	out := make(map[string]string, len(pushed))
	for _, p := range pushed {
		out[p.Name] = p.Digest
	}
	return out
}

// ParseDigests reads the JSON push-by-digest printed, image name → digest; each digest is
// checked when it is tied to its image (FromDigests).
func ParseDigests(data string) (map[string]string, error) {
	var byName map[string]string
	if err := json.Unmarshal([]byte(data), &byName); err != nil {
		return nil, fmt.Errorf(`want the JSON push-by-digest printed, e.g. {"filer": "sha256:…"}: %w`, err)
	}
	return byName, nil
}

// FromDigests turns that JSON's map back into pushed images of t, in the order of images,
// and refuses digests of images that do not exist or images without a digest.
func FromDigests(digests map[string]string, images []Artifact, t Target) ([]Pushed, error) {
	return fromDigests(digests, images, t, true)
}

// FromSomeDigests is FromDigests for a job that handles some of the images, e.g. one per
// image: the images the map names, at least one, in the order of images. Naming fewer
// images is the caller's explicit choice (push-by-digest --image prints one), so only an
// empty map or an unknown image is refused.
func FromSomeDigests(digests map[string]string, images []Artifact, t Target) ([]Pushed, error) {
	if len(digests) == 0 {
		return nil, fmt.Errorf("no digest given: give the JSON push-by-digest printed, e.g. {\"filer\": \"sha256:…\"}")
	}
	return fromDigests(digests, images, t, false)
}

func fromDigests(digests map[string]string, images []Artifact, t Target, every bool) ([]Pushed, error) {
	var out []Pushed
	known := map[string]bool{}
	for _, a := range images {
		known[a.Name] = true
		d, ok := digests[a.Name]
		if !ok && every {
			return nil, fmt.Errorf("no digest for image %s: give every image's digest, as push-by-digest printed them", a.Name)
		}
		if !ok {
			continue
		}
		p := Pushed{Name: a.Name, Repository: t.Repository(a), Digest: d}
		if err := p.Check(); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	for name := range digests {
		if !known[name] {
			return nil, fmt.Errorf("digest given for %s, which is not an image of this source (containers/<name>.Dockerfile)", name)
		}
	}
	return out, nil
}
