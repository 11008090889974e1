package github

import (
	"errors"
)

// ErrNotFastForward is wrapped by UpdateBranch's error when GitHub refused to move a
// branch without force because the new commit does not descend from its head.
var ErrNotFastForward = errors.New("not a fast forward")

// GitCommit is a commit object: its message, tree and parents.
type GitCommit struct {
	SHA, Message, Tree string
	Parents            []string
}

// TreeChange is one path of a new tree: a regular file (mode 100644) with Content, or,
// with Delete, the path removed.
type TreeChange struct {
	Path    string
	Content []byte
	Delete  bool
}

// Comparison is what a three-dot compare says about head relative to base.
type Comparison struct {
	// Status is identical, ahead, behind or diverged.
	Status   string
	AheadBy  int
	BehindBy int
	// Files are the paths that differ between the merge base and head (GitHub lists up to
	// 300), with the blob SHA of each at head.
	Files []ChangedFile
}

// ChangedFile is one path of a comparison.
type ChangedFile struct {
	Path string
	// Status is added, removed, modified, renamed, copied, changed or unchanged.
	Status string
	// SHA is the blob SHA of the file at head, comparable with a locally computed Git blob
	// SHA of the content wanted there.
	SHA string
}
