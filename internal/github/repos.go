package github

// Permissions are what a token may do in a repository, as GitHub reports them to the
// token's holder.
type Permissions struct {
	// Known is false when GitHub sent no permissions (an unauthenticated read).
	Known bool
	Pull  bool
	Push  bool
	Admin bool
}
