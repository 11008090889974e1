package githubcmd

// Each method of github.Calls, asked of the GitHub command: the arguments after the
// context go to `github call` in order, and its answer's results come back in order.

import (
	"context"

	"dagger/shipyard/internal/github"
)

func (c *Client) LatestWorkflowRun(ctx context.Context, owner string, repo string, workflowFile string, event string, branch string, headSHA string) (github.WorkflowRun, bool, error) {
	var r0 github.WorkflowRun
	var r1 bool
	err := c.call(ctx, "LatestWorkflowRun", []any{owner, repo, workflowFile, event, branch, headSHA}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) WorkflowRunJobs(ctx context.Context, owner string, repo string, runID int64) ([]github.WorkflowJob, error) {
	var r0 []github.WorkflowJob
	err := c.call(ctx, "WorkflowRunJobs", []any{owner, repo, runID}, &r0)
	return r0, err
}

func (c *Client) IsAncestor(ctx context.Context, owner string, repo string, sha string, branch string) (bool, error) {
	var r0 bool
	err := c.call(ctx, "IsAncestor", []any{owner, repo, sha, branch}, &r0)
	return r0, err
}

func (c *Client) FileAt(ctx context.Context, owner string, repo string, path string, ref string) ([]byte, bool, error) {
	var r0 []byte
	var r1 bool
	err := c.call(ctx, "FileAt", []any{owner, repo, path, ref}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) DirAt(ctx context.Context, owner string, repo string, path string, ref string) ([]string, bool, error) {
	var r0 []string
	var r1 bool
	err := c.call(ctx, "DirAt", []any{owner, repo, path, ref}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) CommitsAfter(ctx context.Context, owner string, repo string, sha string, branch string) (bool, []string, bool, error) {
	var r0 bool
	var r1 []string
	var r2 bool
	err := c.call(ctx, "CommitsAfter", []any{owner, repo, sha, branch}, &r0, &r1, &r2)
	return r0, r1, r2, err
}

func (c *Client) BranchHead(ctx context.Context, owner string, repo string, branch string) (string, bool, error) {
	var r0 string
	var r1 bool
	err := c.call(ctx, "BranchHead", []any{owner, repo, branch}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) CommitTree(ctx context.Context, owner string, repo string, sha string) (string, error) {
	var r0 string
	err := c.call(ctx, "CommitTree", []any{owner, repo, sha}, &r0)
	return r0, err
}

func (c *Client) Commit(ctx context.Context, owner string, repo string, sha string) (github.GitCommit, error) {
	var r0 github.GitCommit
	err := c.call(ctx, "Commit", []any{owner, repo, sha}, &r0)
	return r0, err
}

func (c *Client) CreateTree(ctx context.Context, owner string, repo string, baseTree string, changes []github.TreeChange) (string, error) {
	var r0 string
	err := c.call(ctx, "CreateTree", []any{owner, repo, baseTree, changes}, &r0)
	return r0, err
}

func (c *Client) CreateCommit(ctx context.Context, owner string, repo string, message string, tree string, parents []string) (string, error) {
	var r0 string
	err := c.call(ctx, "CreateCommit", []any{owner, repo, message, tree, parents}, &r0)
	return r0, err
}

func (c *Client) CreateBranch(ctx context.Context, owner string, repo string, branch string, sha string) error {
	return c.call(ctx, "CreateBranch", []any{owner, repo, branch, sha})
}

func (c *Client) UpdateBranch(ctx context.Context, owner string, repo string, branch string, sha string, force bool) error {
	return c.call(ctx, "UpdateBranch", []any{owner, repo, branch, sha, force})
}

func (c *Client) CompareFiles(ctx context.Context, owner string, repo string, base string, head string) (github.Comparison, bool, error) {
	var r0 github.Comparison
	var r1 bool
	err := c.call(ctx, "CompareFiles", []any{owner, repo, base, head}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) Tree(ctx context.Context, owner string, repo string, sha string) ([]github.TreeEntry, bool, error) {
	var r0 []github.TreeEntry
	var r1 bool
	err := c.call(ctx, "Tree", []any{owner, repo, sha}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) WriteTree(ctx context.Context, owner string, repo string, base string, current []github.TreeEntry, files []github.TreeFile, lim github.TreeBatches) (string, error) {
	var r0 string
	err := c.call(ctx, "WriteTree", []any{owner, repo, base, current, files, lim}, &r0)
	return r0, err
}

func (c *Client) TagRef(ctx context.Context, owner string, repo string, tag string) (github.Tag, bool, error) {
	var r0 github.Tag
	var r1 bool
	err := c.call(ctx, "TagRef", []any{owner, repo, tag}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) TagNames(ctx context.Context, owner string, repo string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "TagNames", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) GenerateNotes(ctx context.Context, owner string, repo string, in github.NotesRequest) (github.GeneratedNotes, error) {
	var r0 github.GeneratedNotes
	err := c.call(ctx, "GenerateNotes", []any{owner, repo, in}, &r0)
	return r0, err
}

func (c *Client) OpenPullRequest(ctx context.Context, owner string, repo string, head string, base string) (github.PullRequest, bool, error) {
	var r0 github.PullRequest
	var r1 bool
	err := c.call(ctx, "OpenPullRequest", []any{owner, repo, head, base}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) CreatePullRequest(ctx context.Context, owner string, repo string, np github.NewPullRequest) (github.PullRequest, error) {
	var r0 github.PullRequest
	err := c.call(ctx, "CreatePullRequest", []any{owner, repo, np}, &r0)
	return r0, err
}

func (c *Client) EditPullRequest(ctx context.Context, owner string, repo string, number int, e github.PullRequestEdit) (github.PullRequest, error) {
	var r0 github.PullRequest
	err := c.call(ctx, "EditPullRequest", []any{owner, repo, number, e}, &r0)
	return r0, err
}

func (c *Client) Releases(ctx context.Context, owner string, repo string) ([]github.Release, error) {
	var r0 []github.Release
	err := c.call(ctx, "Releases", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) ReleasePage(ctx context.Context, owner string, repo string, perPage int, page int) ([]github.Release, int, error) {
	var r0 []github.Release
	var r1 int
	err := c.call(ctx, "ReleasePage", []any{owner, repo, perPage, page}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) ReleaseByTag(ctx context.Context, owner string, repo string, tag string) (github.Release, bool, error) {
	var r0 github.Release
	var r1 bool
	err := c.call(ctx, "ReleaseByTag", []any{owner, repo, tag}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) CreateRelease(ctx context.Context, owner string, repo string, nr github.NewRelease) (github.Release, error) {
	var r0 github.Release
	err := c.call(ctx, "CreateRelease", []any{owner, repo, nr}, &r0)
	return r0, err
}

func (c *Client) PinnedReleases(ctx context.Context, owner string, repo string) ([]github.PinnedRelease, error) {
	var r0 []github.PinnedRelease
	err := c.call(ctx, "PinnedReleases", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) ReleaseByID(ctx context.Context, owner string, repo string, id int64) (github.PinnedRelease, bool, error) {
	var r0 github.PinnedRelease
	var r1 bool
	err := c.call(ctx, "ReleaseByID", []any{owner, repo, id}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) EditRelease(ctx context.Context, owner string, repo string, id int64, e github.ReleaseEdit) (github.PinnedRelease, error) {
	var r0 github.PinnedRelease
	err := c.call(ctx, "EditRelease", []any{owner, repo, id, e}, &r0)
	return r0, err
}

func (c *Client) DeleteRelease(ctx context.Context, owner string, repo string, id int64) error {
	return c.call(ctx, "DeleteRelease", []any{owner, repo, id})
}

func (c *Client) RepoPermissions(ctx context.Context, owner string, repo string) (github.Permissions, bool, error) {
	var r0 github.Permissions
	var r1 bool
	err := c.call(ctx, "RepoPermissions", []any{owner, repo}, &r0, &r1)
	return r0, r1, err
}

func (c *Client) CreateOrgRepo(ctx context.Context, org string, r github.NewRepository) error {
	return c.call(ctx, "CreateOrgRepo", []any{org, r})
}

func (c *Client) ReplaceTopics(ctx context.Context, owner string, repo string, topics []string) error {
	return c.call(ctx, "ReplaceTopics", []any{owner, repo, topics})
}

func (c *Client) Rulesets(ctx context.Context, owner string, repo string, target string) ([]github.Ruleset, error) {
	var r0 []github.Ruleset
	err := c.call(ctx, "Rulesets", []any{owner, repo, target}, &r0)
	return r0, err
}

func (c *Client) BranchStatusChecks(ctx context.Context, owner string, repo string, branch string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "BranchStatusChecks", []any{owner, repo, branch}, &r0)
	return r0, err
}

func (c *Client) ProtectionStatusChecks(ctx context.Context, owner string, repo string, branch string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "ProtectionStatusChecks", []any{owner, repo, branch}, &r0)
	return r0, err
}

func (c *Client) Environments(ctx context.Context, owner string, repo string) ([]github.Environment, error) {
	var r0 []github.Environment
	err := c.call(ctx, "Environments", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) DeploymentPolicies(ctx context.Context, owner string, repo string, env string) ([]github.DeploymentPolicy, error) {
	var r0 []github.DeploymentPolicy
	err := c.call(ctx, "DeploymentPolicies", []any{owner, repo, env}, &r0)
	return r0, err
}

func (c *Client) SecretNames(ctx context.Context, owner string, repo string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "SecretNames", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) OrgSecretNames(ctx context.Context, owner string, repo string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "OrgSecretNames", []any{owner, repo}, &r0)
	return r0, err
}

func (c *Client) EnvironmentSecretNames(ctx context.Context, owner string, repo string, env string) ([]string, error) {
	var r0 []string
	err := c.call(ctx, "EnvironmentSecretNames", []any{owner, repo, env}, &r0)
	return r0, err
}

func (c *Client) Variables(ctx context.Context, owner string, repo string) (map[string]string, error) {
	var r0 map[string]string
	err := c.call(ctx, "Variables", []any{owner, repo}, &r0)
	return r0, err
}
