package release

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/releasegate"
)

// Handoff is the JSON one job of the release workflow prints and the next one reads: the
// release, the pushed digests and, once scanned, the scan verdicts. A job that reads it
// checks it against its own plan, since it travelled through the workflow.
type Handoff struct {
	Repo    string           `json:"repo"`
	Tag     string           `json:"tag"`
	Version string           `json:"version"`
	Commit  string           `json:"commit"`
	Images  []publish.Pushed `json:"images"`
	Scans   []ScanRecord     `json:"scans,omitempty"`
}

// plan is the part of a plan the handoff carries.
func (h Handoff) plan() releasegate.Plan {
	return releasegate.Plan{Repo: h.Repo, Tag: h.Tag, Version: h.Version, Commit: h.Commit}
}

// JSON renders the handoff on one line, as a job output.
func (h Handoff) JSON() (string, error) { return h.jsonOf(h) }

// jsonOf renders v, a handoff of h's release, on one line.
func (h Handoff) jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("rendering the handoff of %s: %w", h.Tag, err)
	}
	return string(b) + "\n", nil
}

var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ParseHandoff reads a handoff and checks its form: a commit, digests, one entry per image.
func ParseHandoff(data string) (Handoff, error) {
	var h Handoff
	if err := decodeHandoff(data, &h, "the previous job"); err != nil {
		return Handoff{}, err
	}
	if err := h.checkForm(); err != nil {
		return Handoff{}, err
	}
	return h, nil
}

// decodeHandoff reads what the job named by from printed into h, refusing a field h does
// not have: a handoff of another Shipyard version is refused rather than read in part.
func decodeHandoff(data string, h any, from string) error {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(h); err != nil {
		return fmt.Errorf("reading the handoff of %s: %w", from, err)
	}
	return nil
}

// checkForm checks what ParseHandoff checks of a decoded handoff.
func (h Handoff) checkForm() error {
	switch {
	case h.Tag == "" || h.Version == "" || h.Repo == "":
		return errors.New("the handoff names no repository, tag or version")
	case !commitRE.MatchString(h.Commit):
		return fmt.Errorf("the handoff's commit %q is not a full commit SHA", h.Commit)
	case len(h.Images) == 0:
		return errors.New("the handoff lists no pushed image")
	}
	names, repos := map[string]bool{}, map[string]bool{}
	for _, p := range h.Images {
		switch {
		case p.Check() != nil:
			return fmt.Errorf("the handoff's image %+v is not one pushed image by digest: %w", p, p.Check())
		case names[p.Name]:
			return fmt.Errorf("the handoff lists image %s twice", p.Name)
		case repos[p.Repository]:
			// Two names on one repository would publish one image's tags on the other's.
			return fmt.Errorf("the handoff lists repository %s twice", p.Repository)
		}
		names[p.Name], repos[p.Repository] = true, true
	}
	return nil
}

// tiedTo checks that each image of the handoff is one the tagged source builds, in that
// image's own repository: a handoff that pairs a name with another image's repository would
// attest one image's build for the other's digest.
func (h Handoff) tiedTo(t publish.Target, images []publish.Artifact) error {
	want := make(map[string]string, len(images))
	for _, a := range images {
		want[a.Name] = t.Repository(a)
	}
	var errs []error
	for _, p := range h.Images {
		repo, ok := want[p.Name]
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("the handoff's image %s is not built from %s", p.Name, h.Tag))
		case repo != p.Repository:
			errs = append(errs, fmt.Errorf("the handoff puts image %s in %s, but it is published to %s", p.Name, p.Repository, repo))
		}
	}
	return errors.Join(errs...)
}

// samePush checks that the handoff's release and digests are exactly what the push job
// printed: the scan job's output travelled through one more job, and only the push job
// knows what it pushed.
func (h Handoff) samePush(pushed Handoff) error {
	if h.Repo != pushed.Repo || h.Tag != pushed.Tag || h.Version != pushed.Version || h.Commit != pushed.Commit {
		return fmt.Errorf("the scan job's handoff is for %s %s (commit %s), the push job's for %s %s (commit %s)",
			h.Repo, h.Tag, h.Commit, pushed.Repo, pushed.Tag, pushed.Commit)
	}
	key := func(p publish.Pushed) string { return p.Name + " " + p.Repository + "@" + p.Digest }
	got, want := map[string]bool{}, map[string]bool{}
	for _, p := range h.Images {
		got[key(p)] = true
	}
	for _, p := range pushed.Images {
		want[key(p)] = true
	}
	var errs []error
	for _, p := range h.Images {
		if !want[key(p)] {
			errs = append(errs, fmt.Errorf("%s (%s) is not what the push job pushed", p.Ref(), p.Name))
		}
	}
	for _, p := range pushed.Images {
		if !got[key(p)] {
			errs = append(errs, fmt.Errorf("the push job pushed %s (%s), which the scan job's handoff lacks", p.Ref(), p.Name))
		}
	}
	return errors.Join(errs...)
}

// matches checks a handoff against the plan of the job reading it: same repository, tag,
// version and commit, and each image in the repository the plan publishes it to, so a job
// that builds nothing (release-assemble) refuses a swapped pair before it writes.
func (h Handoff) matches(cfg Config, plan releasegate.Plan) error {
	var errs []error
	if h.Repo != plan.Repo || h.Tag != plan.Tag || h.Version != plan.Version || h.Commit != plan.Commit {
		errs = append(errs, fmt.Errorf("the handoff is for %s %s (%s, commit %s), the plan for %s %s (%s, commit %s)",
			h.Repo, h.Tag, h.Version, h.Commit, plan.Repo, plan.Tag, plan.Version, plan.Commit))
	}
	// The plan names each image as its repository does, the image's name with the
	// pipeline's prefix (tesk-core-filer).
	prefix := cfg.pipeline(nil).ImagePrefix
	want, published := map[string]string{}, map[string]bool{}
	for _, img := range plan.Images {
		repo := cfg.Images.Target.Registry + "/" + img.Repository
		want[img.Name], published[repo] = repo, true
	}
	for _, p := range h.Images {
		switch repo, ok := want[prefix+p.Name]; {
		case !published[p.Repository]:
			errs = append(errs, fmt.Errorf("the handoff's image %s is not published by this release", p.Repository))
		case !ok:
			errs = append(errs, fmt.Errorf("the handoff's image %s is not one this release publishes", p.Name))
		case repo != p.Repository:
			errs = append(errs, fmt.Errorf("the handoff puts image %s in %s, but the release publishes it to %s", p.Name, p.Repository, repo))
		}
	}
	if len(h.Images) != len(plan.Images) {
		errs = append(errs, fmt.Errorf("the handoff has %d image(s), the release publishes %d", len(h.Images), len(plan.Images)))
	}
	return errors.Join(errs...)
}

// scansPassed checks that every pushed digest was scanned and passed (each platform image
// of a multi-platform image): the images are attested, signed and tagged only then.
func (h Handoff) scansPassed() error {
	var errs []error
	for _, p := range publish.Scanned(h.Images) {
		ok := false
		for _, s := range h.Scans {
			if s.Name == p.Name && s.Digest == p.Digest {
				ok = s.Passed
			}
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s (%s) has no passing scan in the handoff: run the scan job first", p.Ref(), p.Name))
		}
	}
	return errors.Join(errs...)
}
