package github

// PullRequest is a pull request between two branches of one repository.
type PullRequest struct {
	Number  int
	Title   string
	Body    string
	State   string // "open" or "closed"
	URL     string // the pull request's page on GitHub
	Head    string // head branch name
	HeadSHA string
	Base    string // base branch name
}

// NewPullRequest describes a pull request to open from a branch of the same repository.
type NewPullRequest struct {
	Title, Body string
	Head, Base  string // branch names
}

// PullRequestEdit holds the fields to change; nil leaves a field as it is.
type PullRequestEdit struct {
	Title *string
	Body  *string
	// State is "open" or "closed".
	State *string
}
