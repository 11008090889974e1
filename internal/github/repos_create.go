package github

import (
	"errors"
)

// ErrNotAllowed is wrapped by errors for a write GitHub refused to this token (403, or a
// 404 for an organisation the token cannot see).
var ErrNotAllowed = errors.New("not allowed to this token")

// NewRepository is an organisation's repository to create.
type NewRepository struct {
	Name, Description string
	// Public makes it public; otherwise it is private.
	Public bool
	// WithReadme makes a first commit on the default branch with a README, as
	// gh repo create --add-readme does, so the repository starts with a branch.
	WithReadme bool
}
