package doctor

import (
	"testing"

	"dagger/shipyard/internal/github"
)

// The deployment-policy findings of each environment that hands out publishing
// credentials, in every case, to the letter: both checks share one rule (acceptsOnly), and
// their wording is doctor's output, which stays as it was when the rule was two.
var envPolicyCases = []struct {
	name   string
	change func(*EnvFacts)
}{
	{"as wanted", func(*EnvFacts) {}},
	{"open to all", func(e *EnvFacts) { e.Env.Policy, e.Policies = github.PolicyAll, nil }},
	{"protected branches", func(e *EnvFacts) { e.Env.Policy, e.Policies = github.PolicyProtected, nil }},
	{"policies denied", func(e *EnvFacts) { e.Policies, e.PoliciesDenied = nil, true }},
	{"another policy too", func(e *EnvFacts) {
		e.Policies = append(e.Policies, github.DeploymentPolicy{Name: "main", Type: "branch"}, github.DeploymentPolicy{Name: "x*", Type: "tag"})
	}},
	{"no policy", func(e *EnvFacts) { e.Policies = nil }},
}

func TestDeploymentPolicyFindings(t *testing.T) {
	want := map[[2]string]Finding{}
	for _, w := range []struct {
		env, name string
		finding   Finding
	}{
		{"release", "as wanted", Finding{Check: "release-tags-only", Status: "pass", Summary: "the environment release accepts only v* tags", Why: "", Fix: ""}},
		{"release", "open to all", Finding{Check: "release-tags-only", Status: "fail", Summary: "the environment release accepts every branch and tag", Why: "the release jobs get the Docker Hub credentials from this environment: a run from any other branch or tag could publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/release → Deployment branches and tags: Selected branches and tags, with only the tag rule v*; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/release -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/release/deployment-branch-policies -f name='v*' -f type=tag` (and delete any other policy)"}},
		{"release", "protected branches", Finding{Check: "release-tags-only", Status: "fail", Summary: "the environment release accepts protected branches, not v* tags", Why: "the release jobs get the Docker Hub credentials from this environment: a run from any other branch or tag could publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/release → Deployment branches and tags: Selected branches and tags, with only the tag rule v*; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/release -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/release/deployment-branch-policies -f name='v*' -f type=tag` (and delete any other policy)"}},
		{"release", "policies denied", Finding{Check: "release-tags-only", Status: "cannot-check", Summary: "the token may not read the deployment policies of release: not a pass", Why: "the release jobs get the Docker Hub credentials from this environment: a run from any other branch or tag could publish", Fix: "run doctor again with a token that has what \"needs\" names", Permission: "Actions: read (environments and their deployment policies)"}},
		{"release", "another policy too", Finding{Check: "release-tags-only", Status: "fail", Summary: "the environment release also accepts branch \"main\", tag \"x*\"", Why: "the release jobs get the Docker Hub credentials from this environment: a run from any other branch or tag could publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/release → Deployment branches and tags: Selected branches and tags, with only the tag rule v*; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/release -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/release/deployment-branch-policies -f name='v*' -f type=tag` (and delete any other policy)"}},
		{"release", "no policy", Finding{Check: "release-tags-only", Status: "fail", Summary: "the environment release accepts no tag (no deployment policy)", Why: "the release jobs cannot run", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/release → Deployment branches and tags: Selected branches and tags, with only the tag rule v*; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/release -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/release/deployment-branch-policies -f name='v*' -f type=tag` (and delete any other policy)"}},
		{"dev-images", "as wanted", Finding{Check: "dev-images-branches", Status: "pass", Summary: "the environment dev-images accepts only the branch dev", Why: "", Fix: ""}},
		{"dev-images", "open to all", Finding{Check: "dev-images-branches", Status: "fail", Summary: "the environment dev-images accepts every branch and tag", Why: "the dev jobs get the Docker Hub credentials from this environment: a job of any other branch that names it, a pull request's branch included, could read them and publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/dev-images → Deployment branches and tags: Selected branches and tags, with only the branch rule dev; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/dev-images -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/dev-images/deployment-branch-policies -f name=dev -f type=branch` (and delete any other policy)"}},
		{"dev-images", "protected branches", Finding{Check: "dev-images-branches", Status: "fail", Summary: "the environment dev-images accepts every protected branch, not dev alone", Why: "the dev jobs get the Docker Hub credentials from this environment: a job of any other branch that names it, a pull request's branch included, could read them and publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/dev-images → Deployment branches and tags: Selected branches and tags, with only the branch rule dev; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/dev-images -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/dev-images/deployment-branch-policies -f name=dev -f type=branch` (and delete any other policy)"}},
		{"dev-images", "policies denied", Finding{Check: "dev-images-branches", Status: "cannot-check", Summary: "the token may not read the deployment policies of dev-images: not a pass", Why: "the dev jobs get the Docker Hub credentials from this environment: a job of any other branch that names it, a pull request's branch included, could read them and publish", Fix: "run doctor again with a token that has what \"needs\" names", Permission: "Actions: read (environments and their deployment policies)"}},
		{"dev-images", "another policy too", Finding{Check: "dev-images-branches", Status: "fail", Summary: "the environment dev-images also accepts branch \"main\", tag \"x*\"", Why: "the dev jobs get the Docker Hub credentials from this environment: a job of any other branch that names it, a pull request's branch included, could read them and publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/dev-images → Deployment branches and tags: Selected branches and tags, with only the branch rule dev; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/dev-images -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/dev-images/deployment-branch-policies -f name=dev -f type=branch` (and delete any other policy)"}},
		{"dev-images", "no policy", Finding{Check: "dev-images-branches", Status: "fail", Summary: "the environment dev-images accepts no branch (no deployment policy)", Why: "the dev jobs cannot publish", Fix: "https://github.com/elixir-cloud-aai/tesk-core/settings/environments/dev-images → Deployment branches and tags: Selected branches and tags, with only the branch rule dev; or `gh api -X PUT repos/elixir-cloud-aai/tesk-core/environments/dev-images -F deployment_branch_policy[protected_branches]=false -F deployment_branch_policy[custom_branch_policies]=true` then `gh api -X POST repos/elixir-cloud-aai/tesk-core/environments/dev-images/deployment-branch-policies -f name=dev -f type=branch` (and delete any other policy)"}},
	} {
		want[[2]string{w.env, w.name}] = w.finding
	}
	for _, env := range []string{ReleaseEnv, DevImagesEnv} {
		for _, c := range envPolicyCases {
			t.Run(env+"/"+c.name, func(t *testing.T) {
				f := goodTesk()
				e := f.Environments[env]
				c.change(&e)
				f.Environments[env] = e
				got := devImagesDevOnly(f)
				if env == ReleaseEnv {
					got = releaseTagsOnly(f)
				}
				if w := want[[2]string{env, c.name}]; got != w {
					t.Errorf("got  %+v\nwant %+v", got, w)
				}
			})
		}
	}
}
