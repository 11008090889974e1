package github

// NotesRequest asks GitHub's generator for the notes of a release.
type NotesRequest struct {
	// TagName is the release's tag; it need not exist when TargetCommitish names the commit.
	TagName string
	// PreviousTagName starts the range of changes; empty lets GitHub pick the previous
	// release itself (with none, the notes cover the whole history).
	PreviousTagName string
	// TargetCommitish is where a tag that does not exist yet would point; ignored by
	// GitHub for an existing tag.
	TargetCommitish string
}

// GeneratedNotes is what the generator answers: a suggested name and the Markdown body.
type GeneratedNotes struct {
	Name string
	Body string
}
