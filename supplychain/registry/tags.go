package registry

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"dagger/shipyard/supplychain/wire"
)

// The tag classes and actions are the wire's: what plan-tags prints and apply-tags reads.
type (
	TagClass  = wire.TagClass
	Action    = wire.Action
	TagAction = wire.TagAction
	Tagging   = wire.Tagging
)

const (
	ClassVersion = wire.ClassVersion
	ClassCommit  = wire.ClassCommit
	ClassMoving  = wire.ClassMoving
	ActionCreate = wire.ActionCreate
	ActionKeep   = wire.ActionKeep
	ActionMove   = wire.ActionMove
)

var (
	// Release versions as the seed publishes them: X.Y.Z or X.Y.Z{a,b,rc}N,
	// without leading zeros so that each version has one spelling.
	versionTagRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)((a|b|rc)(0|[1-9][0-9]*))?$`)
	// The OCI distribution spec's tag grammar.
	tagSyntaxRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$`)
	digestRE    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
)

// ClassifyTag returns the class of a tag the policy publishes. Any other tag is refused:
// publishing a tag whose rules are unknown would be a guess.
func ClassifyTag(p TagPolicy, tag string) (TagClass, error) {
	_, isCommit := p.CommitOf(tag)
	switch {
	case tag != "" && (tag == p.Latest || tag == p.BranchTag):
		return ClassMoving, nil
	case versionTagRE.MatchString(tag):
		return ClassVersion, nil
	case isCommit:
		return ClassCommit, nil
	default:
		return "", fmt.Errorf("tag %q is not one this system publishes (%s)", tag, publishedForms(p))
	}
}

// publishedForms lists the tags p publishes, for an error that refuses another.
func publishedForms(p TagPolicy) string {
	forms := []string{"X.Y.Z", "X.Y.Z{a,b,rc}N"}
	if p.CommitPrefix != "" {
		forms = append(forms, p.CommitTag("<commit>"))
	}
	for _, t := range []string{p.Latest, p.BranchTag} {
		if t != "" {
			forms = append(forms, t)
		}
	}
	return strings.Join(forms, ", ")
}

func checkDigest(d string) error {
	if !digestRE.MatchString(d) {
		return fmt.Errorf("digest %q is not of the form sha256:<64 lowercase hex>", d)
	}
	return nil
}

func checkTagSyntax(tag string) error {
	if !tagSyntaxRE.MatchString(tag) {
		return fmt.Errorf("tag %q is not a valid OCI tag", tag)
	}
	return nil
}

// ImmutableTagError refuses to move a version or commit tag.
type ImmutableTagError struct {
	Image     string
	Tag       string
	Class     TagClass
	Published string // the digest the tag is on
	Wanted    string // the digest it was asked to point at
}

func (e *ImmutableTagError) Error() string {
	fix := "a published version never moves to another digest: release a higher version"
	if e.Class == ClassCommit {
		fix = "a commit tag never moves to another digest: the image published for this commit stays; publish a new commit"
	}
	return fmt.Sprintf("tag %s of %s is published on %s and cannot point at %s: %s",
		e.Tag, e.Image, e.Published, e.Wanted, fix)
}

// PlanTags decides, for each wanted tag, whether pointing it at digest creates
// it, keeps it or moves it, given the tags that exist (tag → digest; only the
// wanted ones matter). It is all or nothing: if any tag is refused the plan
// has no actions and the error names every refused tag.
func PlanTags(p TagPolicy, image, digest string, want []string, existing map[string]string) (Tagging, error) {
	if strings.TrimSpace(image) == "" {
		return Tagging{}, errors.New("plan tags: image repository is empty")
	}
	if err := checkDigest(digest); err != nil {
		return Tagging{}, fmt.Errorf("plan tags for %s: %w", image, err)
	}
	var immutable, moving, latest []TagAction
	var refused []error
	seen := make(map[string]bool, len(want))
	for _, tag := range want {
		if seen[tag] {
			continue
		}
		seen[tag] = true
		class, err := ClassifyTag(p, tag)
		if err != nil {
			refused = append(refused, err)
			continue
		}
		current, exists := existing[tag]
		if exists {
			if err := checkDigest(current); err != nil {
				refused = append(refused, fmt.Errorf("existing tag %s: %w", tag, err))
				continue
			}
		}
		a := TagAction{Tag: tag, Class: class}
		switch {
		case !exists:
			a.Action = ActionCreate
		case current == digest:
			a.Action = ActionKeep
		case class.Immutable():
			refused = append(refused, &ImmutableTagError{Image: image, Tag: tag, Class: class, Published: current, Wanted: digest})
			continue
		default:
			a.Action, a.From = ActionMove, current
		}
		switch {
		case class.Immutable():
			immutable = append(immutable, a)
		case tag == p.Latest:
			// latest goes last: its recheck should happen as late as possible.
			latest = append(latest, a)
		default:
			moving = append(moving, a)
		}
	}
	if len(refused) > 0 {
		return Tagging{}, fmt.Errorf("plan tags for %s@%s: %w", image, digest, errors.Join(refused...))
	}
	return Tagging{Image: image, Digest: digest, Actions: append(append(immutable, moving...), latest...)}, nil
}
