package releaserun

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/release"
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

// JSON renders the handoff on one line, as a job output.
func (h Handoff) JSON() (string, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return "", fmt.Errorf("rendering the handoff: %w", err)
	}
	return string(b) + "\n", nil
}

var (
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// ParseHandoff reads a handoff and checks its form: a commit, digests, one entry per image.
func ParseHandoff(data string) (Handoff, error) {
	var h Handoff
	dec := json.NewDecoder(strings.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return Handoff{}, fmt.Errorf("reading the handoff of the previous job: %w", err)
	}
	switch {
	case h.Tag == "" || h.Version == "" || h.Repo == "":
		return Handoff{}, errors.New("the handoff names no repository, tag or version")
	case !commitRE.MatchString(h.Commit):
		return Handoff{}, fmt.Errorf("the handoff's commit %q is not a full commit SHA", h.Commit)
	case len(h.Images) == 0:
		return Handoff{}, errors.New("the handoff lists no pushed image")
	}
	seen := map[string]bool{}
	for _, p := range h.Images {
		if !digestRE.MatchString(p.Digest) || p.Name == "" || p.Repository == "" || seen[p.Name] {
			return Handoff{}, fmt.Errorf("the handoff's image %+v is not one pushed image by digest", p)
		}
		seen[p.Name] = true
	}
	return h, nil
}

// matches checks a handoff against the plan of the job reading it: same repository, tag,
// version and commit, and images in the repositories the plan publishes to.
func (h Handoff) matches(cfg Config, plan release.Plan) error {
	var errs []error
	if h.Repo != plan.Repo || h.Tag != plan.Tag || h.Version != plan.Version || h.Commit != plan.Commit {
		errs = append(errs, fmt.Errorf("the handoff is for %s %s (%s, commit %s), the plan for %s %s (%s, commit %s)",
			h.Repo, h.Tag, h.Version, h.Commit, plan.Repo, plan.Tag, plan.Version, plan.Commit))
	}
	want := map[string]bool{}
	for _, img := range plan.Images {
		want[cfg.Images.Target.Registry+"/"+img.Repository] = true
	}
	for _, p := range h.Images {
		if !want[p.Repository] {
			errs = append(errs, fmt.Errorf("the handoff's image %s is not published by this release", p.Repository))
		}
	}
	if len(h.Images) != len(plan.Images) {
		errs = append(errs, fmt.Errorf("the handoff has %d image(s), the release publishes %d", len(h.Images), len(plan.Images)))
	}
	return errors.Join(errs...)
}

// scansPassed checks that every pushed digest was scanned and passed: the images are
// attested, signed and tagged only then.
func (h Handoff) scansPassed() error {
	var errs []error
	for _, p := range h.Images {
		ok := false
		for _, s := range h.Scans {
			if s.Name == p.Name && s.Digest == p.Digest {
				ok = s.Passed
			}
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s has no passing scan in the handoff: run the scan job first", p.Ref()))
		}
	}
	return errors.Join(errs...)
}
