package modelenv

import "errors"

// ErrNoAccess marks a token that lacks what a model flow needs of a repository: a release
// run of its model repository, update-repos of the Cloudcoil source.
var ErrNoAccess = errors.New("missing repository access")
