package github

// TagKind tells annotated tags (a tag object) from lightweight ones (a bare ref).
type TagKind string

// Verification is GitHub's check of a tag object's signature.
type Verification struct {
	Verified bool
	// Reason is GitHub's reason, e.g. "valid", "unsigned", "unknown_key".
	Reason string
}

// Tag is what a tag ref resolves to.
type Tag struct {
	Name string
	Kind TagKind
	// ObjectSHA is the tag object's SHA (annotated tags only).
	ObjectSHA string
	// TargetType is the type of the object finally tagged: "commit" normally, "tree" or
	// "blob" for unusual tags.
	TargetType string
	// CommitSHA is the tagged commit, empty when TargetType is not "commit".
	CommitSHA string
	// Verification is the signature check of the tag object (annotated tags only).
	Verification Verification
}

// Tag kinds.
const (
	TagLightweight TagKind = "lightweight"
	TagAnnotated   TagKind = "annotated"
)
