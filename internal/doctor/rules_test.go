package doctor

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/github"
)

const pin = "github.com/elixir-cloud-aai/shipyard@4a07d756010dcad18103e57c9a44ebe03e5b28a3"

const goodCI = `name: CI
on: [push]
env:
  SHIPYARD: ` + pin + `
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: dagger/dagger-for-github@27b130bf0f79a7f6fbbbe0fbca6760dc9bb40a77
        with:
          version: "0.21.8"
      - run: dagger call -m "$SHIPYARD" --source=. lint
`

const goodDependabot = `version: 2
updates:
  - package-ecosystem: uv
    directory: /
    target-branch: dev
    schedule: {interval: monthly}
  - package-ecosystem: github-actions
    directory: /
    target-branch: dev
    schedule: {interval: monthly}
  - package-ecosystem: docker
    directory: /containers
    target-branch: dev
    schedule: {interval: monthly}
`

var (
	admin = github.BypassActor{Type: "RepositoryRole", ID: 5, Mode: "always"}
	write = github.BypassActor{Type: "RepositoryRole", ID: 4, Mode: "always"}
)

// goodTesk passes every tesk-core check.
func goodTesk() TeskFacts {
	return TeskFacts{
		Repo: "elixir-cloud-aai/tesk-core",
		TagRulesets: []github.Ruleset{
			{ID: 1, Name: "create", Target: "tag", Enforcement: "active", Include: []string{"refs/tags/v*"}, Rules: []string{"creation"}, BypassKnown: true, Bypass: []github.BypassActor{admin}},
			{ID: 2, Name: "immutable", Target: "tag", Enforcement: "active", Include: []string{"refs/tags/v*"}, Rules: []string{"update", "deletion"}, BypassKnown: true},
		},
		EnvironmentsRead: true,
		Environments: map[string]EnvFacts{
			ReleaseEnv: {Found: true, Env: github.Environment{Name: ReleaseEnv, RequiredReviewers: 2, Policy: github.PolicyCustom},
				Policies: []github.DeploymentPolicy{{Name: "v*", Type: "tag"}}, SecretNames: DockerHubSecrets()},
			DevImagesEnv: {Found: true, Env: github.Environment{Name: DevImagesEnv, Policy: github.PolicyCustom},
				Policies: []github.DeploymentPolicy{{Name: "dev", Type: "branch"}}, SecretNames: []string{"DOCKERHUB_LOGIN", "DOCKERHUB_TOKEN", "CODECOV_TOKEN"}},
		},
		Checks: map[string]BranchChecks{
			"dev":  {Rulesets: []string{RequiredCheck}},
			"main": {Protection: []string{"lint", RequiredCheck}},
		},
		Dependabot: File{Path: ".github/dependabot.yml", Found: true, Content: goodDependabot},
		Codeowners: File{Path: ".github/CODEOWNERS", Found: true, Content: "# owners\n* @elixir-cloud-aai/tesk\n"},
		Workflows:  []File{{Path: ".github/workflows/ci.yml", Found: true, Content: goodCI}},
	}
}

func statuses(r Report) map[string]Status {
	out := map[string]Status{}
	for _, f := range r.Findings {
		out[f.Check] = f.Status
	}
	return out
}

func TestEvaluateTesk(t *testing.T) {
	tests := []struct {
		name   string
		change func(*TeskFacts)
		check  string // the one finding that is not a pass
		want   Status
		says   string // part of its summary
	}{
		{"no tag ruleset", func(f *TeskFacts) { f.TagRulesets = f.TagRulesets[1:] }, "tag-create", Fail, "no active tag ruleset"},
		{"creation only evaluated", func(f *TeskFacts) { f.TagRulesets[0].Enforcement = "evaluate" }, "tag-create", Fail, "no active"},
		{"ruleset over other tags", func(f *TeskFacts) { f.TagRulesets[0].Include = []string{"refs/tags/release-*"} }, "tag-create", Fail, "no active"},
		{"v tags excluded", func(f *TeskFacts) { f.TagRulesets[0].Exclude = []string{"refs/tags/v0.*"} }, "tag-create", Fail, "no active"},
		{"writers bypass", func(f *TeskFacts) { f.TagRulesets[0].Bypass = append(f.TagRulesets[0].Bypass, write) }, "tag-create", Fail, "the write role"},
		{"nobody bypasses", func(f *TeskFacts) { f.TagRulesets[0].Bypass = nil }, "tag-create", Fail, "not even admins"},
		{"bypass hidden", func(f *TeskFacts) { f.TagRulesets[0].BypassKnown, f.TagRulesets[0].Bypass = false, nil }, "tag-create", CannotCheck, "bypass"},
		{"rulesets denied", func(f *TeskFacts) { f.TagRulesets, f.TagRulesetsDenied = nil, true }, "", CannotCheck, "tag rulesets"},
		{"admins may move tags", func(f *TeskFacts) { f.TagRulesets[1].Bypass = []github.BypassActor{admin} }, "tag-immutable", Fail, "move or delete"},
		{"deletion not restricted", func(f *TeskFacts) { f.TagRulesets[1].Rules = []string{"update"} }, "tag-immutable", Fail, "delete"},
		{"dev-images open to all", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.Env.Policy, e.Policies = github.PolicyAll, nil
			f.Environments[DevImagesEnv] = e
		}, "dev-images-branches", Fail, "every branch and tag"},
		{"dev-images on protected branches", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.Env.Policy, e.Policies = github.PolicyProtected, nil
			f.Environments[DevImagesEnv] = e
		}, "dev-images-branches", Fail, "not dev alone"},
		{"dev-images also on main", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.Policies = append(e.Policies, github.DeploymentPolicy{Name: "main", Type: "branch"})
			f.Environments[DevImagesEnv] = e
		}, "dev-images-branches", Fail, `branch "main"`},
		{"dev-images without a policy", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.Policies = nil
			f.Environments[DevImagesEnv] = e
		}, "dev-images-branches", Fail, "no deployment policy"},
		{"dev-images policies denied", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.Policies, e.PoliciesDenied = nil, true
			f.Environments[DevImagesEnv] = e
		}, "dev-images-branches", CannotCheck, "deployment policies of dev-images"},
		{"release open to all", func(f *TeskFacts) {
			e := f.Environments[ReleaseEnv]
			e.Env.Policy, e.Policies = github.PolicyAll, nil
			f.Environments[ReleaseEnv] = e
		}, "release-tags-only", Fail, "every branch and tag"},
		{"release also takes a branch", func(f *TeskFacts) {
			e := f.Environments[ReleaseEnv]
			e.Policies = append(e.Policies, github.DeploymentPolicy{Name: "main", Type: "branch"})
			f.Environments[ReleaseEnv] = e
		}, "release-tags-only", Fail, `branch "main"`},
		{"release policies denied", func(f *TeskFacts) {
			e := f.Environments[ReleaseEnv]
			e.Policies, e.PoliciesDenied = nil, true
			f.Environments[ReleaseEnv] = e
		}, "release-tags-only", CannotCheck, "deployment policies"},
		{"no reviewers", func(f *TeskFacts) {
			e := f.Environments[ReleaseEnv]
			e.Env.RequiredReviewers = 0
			f.Environments[ReleaseEnv] = e
		}, "release-reviewers", Fail, "no required reviewers"},
		{"dev-images missing", func(f *TeskFacts) { delete(f.Environments, DevImagesEnv) }, "", Fail, "does not exist"},
		{"dev-images lacks the token", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.SecretNames = []string{"DOCKERHUB_LOGIN"}
			f.Environments[DevImagesEnv] = e
		}, "environment-secrets:dev-images", Fail, "DOCKERHUB_TOKEN"},
		{"Docker Hub login as a repository secret", func(f *TeskFacts) { f.RepoSecrets = []string{"DOCKERHUB_LOGIN", "OTHER"} },
			"dockerhub-secrets-in-environments", Fail, "DOCKERHUB_LOGIN"},
		{"Docker Hub token as an organisation secret", func(f *TeskFacts) { f.OrgSecrets = []string{"DOCKERHUB_TOKEN"} },
			"dockerhub-secrets-in-environments", Fail, "DOCKERHUB_TOKEN"},
		{"repository secrets hidden", func(f *TeskFacts) { f.RepoSecrets, f.RepoSecretsDenied = nil, true },
			"dockerhub-secrets-in-environments", CannotCheck, "repository"},
		{"dev-images secrets denied", func(f *TeskFacts) {
			e := f.Environments[DevImagesEnv]
			e.SecretNames, e.SecretNamesDenied = nil, true
			f.Environments[DevImagesEnv] = e
		}, "environment-secrets:dev-images", CannotCheck, "secret names"},
		{"dev not protected", func(f *TeskFacts) { f.Checks["dev"] = BranchChecks{NotProtected: true} }, "required-check:dev", Fail, "neither"},
		{"main requires other checks", func(f *TeskFacts) { f.Checks["main"] = BranchChecks{Protection: []string{"lint"}} }, "required-check:main", Fail, "other checks (lint)"},
		{"main's protection denied", func(f *TeskFacts) { f.Checks["main"] = BranchChecks{ProtectionDenied: true} }, "required-check:main", CannotCheck, "branch protection"},
		{"no dependabot", func(f *TeskFacts) { f.Dependabot.Found, f.Dependabot.Content = false, "" }, "dependabot", Fail, "no .github/dependabot.yml"},
		{"dependabot to main", func(f *TeskFacts) {
			f.Dependabot.Content = strings.Replace(goodDependabot, "    target-branch: dev\n", "", 1)
		}, "dependabot", Fail, "uv updates go to the default branch"},
		{"dependabot without docker", func(f *TeskFacts) {
			f.Dependabot.Content = strings.Replace(goodDependabot, "docker", "npm", 1)
		}, "dependabot", Fail, "no docker updates"},
		{"dependabot not YAML", func(f *TeskFacts) { f.Dependabot.Content = "version: [" }, "dependabot", Fail, "does not parse"},
		{"no codeowners", func(f *TeskFacts) { f.Codeowners.Found = false }, "codeowners", Fail, "no CODEOWNERS"},
		{"codeowners only comments", func(f *TeskFacts) { f.Codeowners.Content = "# none yet\n" }, "codeowners", Fail, "no rule"},
		{"contents denied", func(f *TeskFacts) { f.Codeowners = File{Path: ".github/CODEOWNERS", Denied: true} }, "codeowners", CannotCheck, "CODEOWNERS"},
		{"pinned to a branch", func(f *TeskFacts) {
			f.Workflows[0].Content = strings.Replace(goodCI, pin, "github.com/elixir-cloud-aai/shipyard@main", 1)
		}, "shipyard-pinned", Fail, "ci.yml:12: job lint: github.com/elixir-cloud-aai/shipyard@main is not pinned"},
		{"module from a variable", func(f *TeskFacts) {
			f.Workflows[0].Content = strings.Replace(goodCI, pin, "${{ vars.SHIPYARD }}", 1)
		}, "shipyard-pinned", Fail, "not written in the workflow"},
		{"module by tag in with", func(f *TeskFacts) {
			f.Workflows = append(f.Workflows, File{Path: ".github/workflows/x.yml", Found: true, Content: "jobs:\n  a:\n    steps:\n      - uses: dagger/dagger-for-github@v8\n        with:\n          module: github.com/o/shipyard@v1.0.0\n          call: lint\n"})
		}, "shipyard-pinned", Fail, "x.yml:2: job a: github.com/o/shipyard@v1.0.0"},
		{"no dagger call", func(f *TeskFacts) { f.Workflows = nil }, "shipyard-pinned", Fail, "no workflow"},
		{"workflows denied", func(f *TeskFacts) { f.Workflows, f.WorkflowsDenied = nil, true }, "shipyard-pinned", CannotCheck, "workflows"},
		{"environments denied", func(f *TeskFacts) { f.EnvironmentsRead, f.Environments = false, nil }, "", CannotCheck, "environments"},
	}
	base := EvaluateTesk(goodTesk())
	for _, f := range base.Findings {
		if f.Status != Pass {
			t.Fatalf("the good repository: %+v", f)
		}
	}
	if len(base.Findings) != 13 || !base.OK(true) {
		t.Fatalf("%d findings, OK %v", len(base.Findings), base.OK(true))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := goodTesk()
			tt.change(&facts)
			r := EvaluateTesk(facts)
			if len(r.Findings) != len(base.Findings) {
				t.Fatalf("%d findings, want the same checks as always (%d)", len(r.Findings), len(base.Findings))
			}
			matched := 0
			for _, f := range r.Findings {
				hit := f.Check == tt.check || (tt.check == "" && f.Status != Pass)
				if !hit {
					if f.Status != Pass {
						t.Errorf("%s also %s: %s", f.Check, f.Status, f.Summary)
					}
					continue
				}
				matched++
				if f.Status != tt.want || !strings.Contains(f.Summary, tt.says) {
					t.Errorf("%s = %s %q, want %s with %q", f.Check, f.Status, f.Summary, tt.want, tt.says)
				}
				if f.Why == "" || f.Fix == "" {
					t.Errorf("%s: a finding without why or fix: %+v", f.Check, f)
				}
				if f.Status == CannotCheck && f.Permission == "" {
					t.Errorf("%s: cannot check without the permission needed", f.Check)
				}
			}
			if matched == 0 {
				t.Errorf("no finding %q", tt.check)
			}
			if tt.want == Fail && r.OK(false) || tt.want == CannotCheck && (!r.OK(false) || r.OK(true)) {
				t.Errorf("OK(false)=%v OK(true)=%v for a %s", r.OK(false), r.OK(true), tt.want)
			}
		})
	}
}

const goodPublish = `name: Publish to PyPI
on:
  release:
    types: [published]
permissions: {}
jobs:
  build:
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      - run: dagger call publish-check
  pypi-publish:
    needs: build
    runs-on: ubuntu-latest
    environment: pypi
    permissions:
      id-token: write
    steps:
      - uses: actions/download-artifact@d3f86a106a0bac45b974a628896c90dbdf5c8093
      - uses: pypa/gh-action-pypi-publish@dc37677b2e1c63e2034f94d8a5b11f265b73ba33
`

func goodModel() ModelFacts {
	return ModelFacts{
		Repo:          "cloudcoil/models-keda",
		Variables:     map[string]string{"OTHER": "x"},
		SecretSources: map[string]bool{"the repository": false, "the organisation": false, "the environment automation": true},
		Publish:       File{Path: PublishWorkflow, Found: true, Content: goodPublish},
		Distribution:  "cloudcoil-models-keda",
		PyPI: PyPIUpload{Read: true, Exists: true, Version: "2.16.1.0", Files: []PyPIFile{
			{Name: "cloudcoil_models_keda-2.16.1.0-py3-none-any.whl", Publishers: []Publisher{goodPublisher}},
			{Name: "cloudcoil_models_keda-2.16.1.0.tar.gz", Publishers: []Publisher{goodPublisher}},
		}},
	}
}

// goodPublisher is the trusted publisher of a model repository, as its provenance shows it.
var goodPublisher = Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml", Environment: "pypi"}

// wheelPublisher is the publisher of the wheel's first bundle, to change.
func wheelPublisher(f *ModelFacts) *Publisher { return &f.PyPI.Files[0].Publishers[0] }

// The trusted publisher, read from the identity PyPI recorded for the newest upload: the
// same repository, workflow file and environment as the upload job pass; another
// repository, workflow or environment fails (PyPI would refuse the upload); what cannot be
// read is a manual check that names the settings page.
func TestTrustedPublisher(t *testing.T) {
	tests := []struct {
		name   string
		change func(*ModelFacts)
		want   Status
		says   string
	}{
		{"the same identity", func(*ModelFacts) {}, Pass, "as the upload job runs"},
		{"no environment recorded: the publisher accepts any run of the workflow", func(f *ModelFacts) { wheelPublisher(f).Environment = "" }, Fail, "names no environment"},
		{"no environment recorded, none on the upload job", func(f *ModelFacts) {
			wheelPublisher(f).Environment = ""
			f.Publish.Content = strings.Replace(goodPublish, "    environment: pypi\n", "", 1)
		}, Fail, "names no environment"},
		{"repository names differ only in case", func(f *ModelFacts) { wheelPublisher(f).Repository = "Cloudcoil/Models-Keda" }, Pass, ""},
		{"another repository", func(f *ModelFacts) { wheelPublisher(f).Repository = "someone/fork" }, Fail, "not by cloudcoil/models-keda"},
		{"another kind of publisher", func(f *ModelFacts) { wheelPublisher(f).Kind = "GitLab" }, Fail, "uploaded by GitLab"},
		{"another workflow file", func(f *ModelFacts) { wheelPublisher(f).Workflow = "release.yml" }, Fail, "workflow release.yml"},
		{"another environment", func(f *ModelFacts) { wheelPublisher(f).Environment = "release" }, Fail, "runs in environment pypi"},
		{"an environment, and none on the upload job", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "    environment: pypi\n", "", 1)
		}, Fail, "runs in environment (none)"},
		{"the upload job's environment as a mapping", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "environment: pypi", "environment:\n      name: pypi\n      url: https://pypi.org/p/x", 1)
		}, Pass, ""},
		{"no provenance", func(f *ModelFacts) { f.PyPI.Files[0].Publishers = nil }, Manual, "cloudcoil_models_keda-2.16.1.0-py3-none-any.whl of 2.16.1.0 has no provenance"},
		// Every file and every bundle: the worst of them decides.
		{"the sdist from another repository", func(f *ModelFacts) { f.PyPI.Files[1].Publishers[0].Repository = "someone/fork" }, Fail, "cloudcoil_models_keda-2.16.1.0.tar.gz of 2.16.1.0 was uploaded by GitHub someone/fork"},
		{"a second bundle in no environment", func(f *ModelFacts) {
			loose := goodPublisher
			loose.Environment = ""
			f.PyPI.Files[1].Publishers = append(f.PyPI.Files[1].Publishers, loose)
		}, Fail, "names no environment"},
		{"a fail outweighs a file without provenance", func(f *ModelFacts) {
			f.PyPI.Files[0].Publishers = nil
			f.PyPI.Files[1].Publishers[0].Workflow = "release.yml"
		}, Fail, "workflow release.yml"},
		{"one file without provenance among good ones", func(f *ModelFacts) { f.PyPI.Files[1].Publishers = nil }, Manual, "tar.gz of 2.16.1.0 has no provenance"},
		{"a version whose files were all deleted", func(f *ModelFacts) { f.PyPI.Files = nil }, Manual, "has no files on PyPI"},
		{"files past the bound", func(f *ModelFacts) { f.PyPI.Unread = 3 }, Manual, "3 more files of 2.16.1.0 were not read"},
		{"two files, one publisher", func(*ModelFacts) {}, Pass, "the 2 files of 2.16.1.0 (cloudcoil_models_keda-2.16.1.0-py3-none-any.whl, cloudcoil_models_keda-2.16.1.0.tar.gz) were uploaded by GitHub cloudcoil/models-keda"},
		{"what PyPI cannot show", func(*ModelFacts) {}, Pass, "a publisher that uploaded no file of 2.16.1.0 does not show through PyPI's API"},
		{"no upload job to compare with", func(f *ModelFacts) { f.Publish = File{Path: PublishWorkflow} }, Manual, "has no upload job"},
		{"not on PyPI yet", func(f *ModelFacts) { f.PyPI = PyPIUpload{Read: true} }, Manual, "not on PyPI yet"},
		{"PyPI unreadable", func(f *ModelFacts) { f.PyPI = PyPIUpload{Read: true, Error: "pypi: 503"} }, Manual, "pypi: 503"},
		{"no distribution name", func(f *ModelFacts) { f.Distribution, f.PyPI = "", PyPIUpload{} }, Manual, "without the distribution's name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := goodModel()
			tt.change(&f)
			got := trustedPublisher(f)
			if got.Status != tt.want || !strings.Contains(got.Summary, tt.says) || got.Check != "trusted-publisher" {
				t.Fatalf("%s: %q, want %s with %q", got.Status, got.Summary, tt.want, tt.says)
			}
			if got.Status != Pass && (got.Why == "" || !strings.Contains(got.Fix, "settings/publishing/") || !strings.Contains(got.Fix, "workflow pypi_publish.yml")) {
				t.Errorf("no why or fix naming the settings page and the workflow: %+v", got)
			}
			if strings.Contains(got.Summary, "names no environment") && (!strings.Contains(got.Fix, "environment pypi") || !strings.Contains(got.Why, "required reviewers")) {
				t.Errorf("a publisher without an environment: why %q, fix %q; want the reviewers it skips and environment pypi set", got.Why, got.Fix)
			}
		})
	}
}

func TestEvaluateModel(t *testing.T) {
	tests := []struct {
		name   string
		change func(*ModelFacts)
		check  string
		want   Status
		says   string
	}{
		{"auto publish on", func(f *ModelFacts) { f.Variables[AutoPublishVar] = "true" }, "", Pass, ""},
		{"auto publish off", func(f *ModelFacts) { f.Variables[AutoPublishVar] = "false" }, "", Pass, ""},
		{"auto publish yes", func(f *ModelFacts) { f.Variables[AutoPublishVar] = "yes" }, "auto-publish-variable", Fail, `"yes"`},
		{"variables denied", func(f *ModelFacts) { f.Variables, f.VariablesDenied = nil, true }, "auto-publish-variable", CannotCheck, "variables"},
		{"token nowhere", func(f *ModelFacts) { f.SecretSources["the environment automation"] = false }, "ci-github-token", Fail, "not a secret of the environment automation"},
		{"token as an organisation secret", func(f *ModelFacts) {
			f.SecretSources = map[string]bool{"the organisation": true, "the repository": false}
		}, "ci-github-token", Fail, "a secret of the organisation"},
		{"token as a repository secret", func(f *ModelFacts) {
			f.SecretSources = map[string]bool{"the repository": true, "the organisation": false}
		}, "ci-github-token", Fail, "a secret of the repository"},
		{"token in automation and the repository", func(f *ModelFacts) { f.SecretSources["the repository"] = true },
			"ci-github-token", Fail, "a secret of the repository"},
		{"token in another environment", func(f *ModelFacts) {
			f.SecretSources["the environment automation"] = false
			f.SecretSources["the environment pypi"] = true
		}, "ci-github-token", Fail, "not a secret of the environment automation"},
		{"token unknown", func(f *ModelFacts) {
			f.SecretSources = map[string]bool{"the repository": false}
			f.SecretsDenied = []string{"the environments", "the organisation"}
		}, "ci-github-token", CannotCheck, "the environments, the organisation"},
		{"token in automation, repository secrets hidden", func(f *ModelFacts) {
			delete(f.SecretSources, "the repository")
			f.SecretsDenied = []string{"the repository"}
		}, "ci-github-token", CannotCheck, "the repository"},
		{"no publish workflow", func(f *ModelFacts) { f.Publish = File{Path: PublishWorkflow} }, "pypi-publish-workflow", Fail, "does not exist"},
		{"id-token for every job", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "permissions: {}", "permissions:\n  id-token: write", 1)
		}, "pypi-publish-workflow", Fail, "every job"},
		{"write-all for every job", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "permissions: {}", "permissions: write-all", 1)
		}, "pypi-publish-workflow", Fail, "every job"},
		{"build job mints", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "contents: read", "contents: read\n      id-token: write", 1)
		}, "pypi-publish-workflow", Fail, "pypi_publish.yml:7: job build does not upload"},
		{"upload job cannot mint", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "id-token: write", "contents: read", 1)
		}, "pypi-publish-workflow", Fail, "upload job pypi-publish lacks"},
		{"no upload", func(f *ModelFacts) {
			f.Publish.Content = strings.Replace(goodPublish, "pypa/gh-action-pypi-publish", "someone/else", 1)
		}, "pypi-publish-workflow", Fail, "job pypi-publish does not upload"},
		{"publish workflow denied", func(f *ModelFacts) { f.Publish = File{Path: PublishWorkflow, Denied: true} }, "pypi-publish-workflow", CannotCheck, PublishWorkflow},
	}
	base := EvaluateModel(goodModel())
	got := statuses(base)
	if len(got) != 4 || base.Count(Pass) != 4 || !base.OK(true) {
		t.Fatalf("the good repository: %+v", base.Findings)
	}
	unread := goodModel()
	unread.PyPI.Files = []PyPIFile{{Name: "cloudcoil_models_keda-2.16.1.0.tar.gz"}}
	if tp := EvaluateModel(unread).Findings[3]; tp.Status != Manual || !strings.Contains(tp.Fix, "https://pypi.org/manage/project/cloudcoil-models-keda/settings/publishing/") || !strings.Contains(tp.Fix, "repository models-keda") {
		t.Errorf("trusted publisher: %+v", tp)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			facts := goodModel()
			tt.change(&facts)
			r := EvaluateModel(facts)
			for _, f := range r.Findings {
				want := Pass
				if _, known := uploadEnvironment(facts); f.Check == "trusted-publisher" && !known {
					want = Manual // no upload job to compare the publisher's environment with
				}
				if f.Check == tt.check {
					want = tt.want
					if !strings.Contains(f.Summary, tt.says) || f.Why == "" || f.Fix == "" {
						t.Errorf("%s: %+v, want %q", f.Check, f, tt.says)
					}
				}
				if f.Status != want {
					t.Errorf("%s = %s (%s), want %s", f.Check, f.Status, f.Summary, want)
				}
			}
		})
	}
}

func TestReportText(t *testing.T) {
	f := goodTesk()
	f.Checks["dev"] = BranchChecks{NotProtected: true}
	f.TagRulesets[0].BypassKnown = false
	r := EvaluateTesk(f)
	text := r.Text()
	for _, want := range []string{
		"doctor: elixir-cloud-aai/tesk-core (tesk-core): 11 passed, 1 failed, 1 cannot be checked, 0 to check by hand",
		"[fail] required-check:dev: \"CI passed\" is not required on dev",
		"    fix: https://github.com/elixir-cloud-aai/tesk-core/settings/rules → New branch ruleset",
		"[cannot-check] tag-create: the token may not read who may bypass",
		"    needs: a token that may edit rulesets",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	js, err := r.JSON()
	if err != nil || !strings.Contains(js, `"status": "cannot-check"`) || !strings.Contains(js, `"check": "required-check:dev"`) {
		t.Errorf("JSON %v:\n%s", err, js)
	}
}

func TestParseSystem(t *testing.T) {
	for _, s := range []string{"tesk-core", "cloudcoil-model", "cloudcoil-generator"} {
		if got, err := ParseSystem(s); err != nil || string(got) != s {
			t.Errorf("%s: %v %v", s, got, err)
		}
	}
	if _, err := ParseSystem("cloudcoil"); err == nil {
		t.Error("an unknown system accepted")
	}
}
