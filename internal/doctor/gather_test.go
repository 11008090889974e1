package doctor

import (
	"dagger/shipyard/internal/githubclient"
	"slices"

	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/demoworld/pypisim"
)

const simToken = "ghp_doctor_test_token"

// SeedGoodTesk seeds a tesk-core repository whose settings pass every check.
func seedGoodTesk(sim *githubsim.Server) *githubsim.Repo {
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	files := map[string]string{
		".github/dependabot.yml":      goodDependabot,
		".github/CODEOWNERS":          "* @elixir-cloud-aai/tesk\n",
		".github/workflows/ci.yml":    goodCI,
		".github/workflows/x.json":    "{}",
		"containers/filer.Dockerfile": "FROM scratch\n",
	}
	repo.CommitOnBranch("main", "init", files)
	repo.SetBranch("dev", repo.Branch("main"))
	repo.AddRuleset(githubsim.Ruleset{Name: "create v tags", Target: "tag", Include: []string{"refs/tags/v*"},
		Rules: []string{"creation"}, Bypass: []githubsim.BypassActor{{ActorType: "RepositoryRole", ActorID: 5}}})
	repo.AddRuleset(githubsim.Ruleset{Name: "v tags are immutable", Target: "tag", Include: []string{"refs/tags/v*"},
		Rules: []string{"update", "deletion"}})
	repo.AddRuleset(githubsim.Ruleset{Name: "dev", Target: "branch", Include: []string{"refs/heads/dev"},
		Rules: []string{"deletion"}, StatusChecks: []string{RequiredCheck}})
	repo.ProtectBranch("main", RequiredCheck)
	repo.AddEnvironment(githubsim.Environment{Name: ReleaseEnv, Reviewers: []string{"maintainer"}, Policy: "custom",
		Policies: []githubsim.DeploymentPolicy{{Name: "v*", Type: "tag"}}, Secrets: DockerHubSecrets()})
	repo.AddEnvironment(githubsim.Environment{Name: DevImagesEnv, Policy: "custom",
		Policies: []githubsim.DeploymentPolicy{{Name: "dev", Type: "branch"}}, Secrets: append([]string{"CODECOV_TOKEN"}, DockerHubSecrets()...)})
	return repo
}

func client(t *testing.T, sim *githubsim.Server, token string) *githubclient.Client {
	t.Helper()
	c, err := githubclient.NewClient(sim.URL, token, githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func notPassed(r Report) map[string]Status {
	out := map[string]Status{}
	for _, f := range r.Findings {
		if f.Status != Pass {
			out[f.Check] = f.Status
		}
	}
	return out
}

func TestTeskThroughTheSimulator(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		lacks []string
		seed  func(*githubsim.Repo)
		want  map[string]Status
	}{
		{"every setting right", nil, func(*githubsim.Repo) {}, map[string]Status{}},
		{"write role bypasses tag creation", nil, func(r *githubsim.Repo) {
			r.AddRuleset(githubsim.Ruleset{Name: "all tags", Target: "tag", Include: []string{"~ALL"}, Rules: []string{"creation"},
				Bypass: []githubsim.BypassActor{{ActorType: "RepositoryRole", ActorID: 5}, {ActorType: "RepositoryRole", ActorID: 4}}})
		}, map[string]Status{}},
		{"main unprotected, release open", nil, func(r *githubsim.Repo) {
			r.ProtectBranch("main")
			r.AddEnvironment(githubsim.Environment{Name: "other"})
		}, map[string]Status{"required-check:main": Fail}},
		{"a reader's token", []string{"administration", "actions", "environments"}, func(*githubsim.Repo) {}, map[string]Status{
			"tag-create": CannotCheck, "tag-immutable": CannotCheck, "required-check:main": CannotCheck,
			"release-tags-only": CannotCheck, "release-reviewers": CannotCheck, "dev-images-branches": CannotCheck,
			"environment-secrets:release": CannotCheck, "environment-secrets:dev-images": CannotCheck,
		}},
		{"Docker Hub token as a repository secret", nil, func(r *githubsim.Repo) { r.AddSecret("DOCKERHUB_TOKEN") },
			map[string]Status{"dockerhub-secrets-in-environments": Fail}},
		{"a token without environment secrets", []string{"environments"}, func(*githubsim.Repo) {}, map[string]Status{
			"environment-secrets:release": CannotCheck, "environment-secrets:dev-images": CannotCheck,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubsim.New(t)
			sim.AddToken(simToken, githubsim.Token{Lacks: tt.lacks})
			tt.seed(seedGoodTesk(sim))
			f, err := GatherTesk(ctx, client(t, sim, simToken), "elixir-cloud-aai/tesk-core")
			if err != nil {
				t.Fatal(err)
			}
			r := EvaluateTesk(f)
			got := notPassed(r)
			if len(got) != len(tt.want) {
				t.Errorf("not passed %v, want %v\n%s", got, tt.want, r.Text())
			}
			for c, s := range tt.want {
				if got[c] != s {
					t.Errorf("%s = %s, want %s\n%s", c, got[c], s, r.Text())
				}
			}
		})
	}
}

// A repository that fails each check at once, read through the API.
func TestTeskFailingEverythingThroughTheSimulator(t *testing.T) {
	sim := githubsim.New(t)
	sim.AddToken(simToken, githubsim.Token{})
	repo := sim.AddRepo("elixir-cloud-aai", "tesk-core")
	repo.CommitOnBranch("main", "init", map[string]string{
		".github/workflows/ci.yml": strings.Replace(goodCI, pin, "github.com/elixir-cloud-aai/shipyard@main", 1),
	})
	repo.SetBranch("dev", repo.Branch("main"))
	repo.AddRuleset(githubsim.Ruleset{Name: "loose", Target: "tag", Include: []string{"refs/tags/v*"}, Rules: []string{"creation", "update", "deletion"},
		Bypass: []githubsim.BypassActor{{ActorType: "Integration", ActorID: 99}}})
	repo.ProtectBranch("dev", "lint")
	repo.AddEnvironment(githubsim.Environment{Name: ReleaseEnv, Policy: "protected"})
	repo.AddSecret("DOCKERHUB_TOKEN")
	f, err := GatherTesk(context.Background(), client(t, sim, simToken), "elixir-cloud-aai/tesk-core")
	if err != nil {
		t.Fatal(err)
	}
	r := EvaluateTesk(f)
	if r.Count(Fail) != len(r.Findings) || r.OK(false) {
		t.Errorf("%d of %d failed:\n%s", r.Count(Fail), len(r.Findings), r.Text())
	}
	if strings.Contains(r.Text(), simToken) {
		t.Error("the token reached the report")
	}
}

// GitHub's 5xx, after the client's retries, ends the run instead of deciding on no data.
func TestGatherFailsOnServerErrors(t *testing.T) {
	sim := githubsim.New(t)
	sim.AddToken(simToken, githubsim.Token{})
	seedGoodTesk(sim)
	sim.InjectFault("GET", "/repos/*/*/environments", githubsim.BadGateway(0))
	if _, err := GatherTesk(context.Background(), client(t, sim, simToken), "elixir-cloud-aai/tesk-core"); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("err %v", err)
	}
}

func seedGoodModel(sim *githubsim.Server) *githubsim.Repo {
	repo := sim.AddRepo("cloudcoil", "models-keda")
	repo.CommitOnBranch("main", "init", map[string]string{
		PublishWorkflow:  goodPublish,
		"pyproject.toml": "[project]\nname = \"cloudcoil-models-keda\"\nversion = \"2.17.0.1\"\n",
	})
	repo.AddEnvironment(githubsim.Environment{Name: "automation", Policy: "custom",
		Policies: []githubsim.DeploymentPolicy{{Name: "main", Type: "branch"}}, Secrets: []string{CITokenSecret}})
	repo.AddEnvironment(githubsim.Environment{Name: "pypi"})
	return repo
}

func TestModelThroughTheSimulator(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		lacks []string
		seed  func(*githubsim.Server)
		want  map[string]Status
	}{
		{"every setting right", nil, func(s *githubsim.Server) { seedGoodModel(s).SetVariable(AutoPublishVar, "true") }, map[string]Status{}},
		{"token shared by the organisation", nil, func(s *githubsim.Server) {
			r := seedGoodModel(s)
			r.AddOrgSecret(CITokenSecret)
		}, map[string]Status{"ci-github-token": Fail}},
		{"misconfigured", nil, func(s *githubsim.Server) {
			r := s.AddRepo("cloudcoil", "models-keda")
			r.CommitOnBranch("main", "init", map[string]string{
				PublishWorkflow: strings.Replace(goodPublish, "permissions: {}", "permissions: write-all", 1),
			})
			r.SetVariable(AutoPublishVar, "on")
			r.AddSecret("OTHER")
		}, map[string]Status{"auto-publish-variable": Fail, "ci-github-token": Fail, "pypi-publish-workflow": Fail}},
		{"no upload workflow", nil, func(s *githubsim.Server) {
			r := s.AddRepo("cloudcoil", "models-keda")
			r.CommitOnBranch("main", "init", map[string]string{"README.md": "x"})
			r.AddSecret(CITokenSecret)
		}, map[string]Status{"pypi-publish-workflow": Fail, "ci-github-token": Fail}},
		{"a reader's token", []string{"variables", "secrets", "environments"}, func(s *githubsim.Server) { seedGoodModel(s) },
			map[string]Status{"auto-publish-variable": CannotCheck, "ci-github-token": CannotCheck}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubsim.New(t)
			sim.AddToken(simToken, githubsim.Token{Lacks: tt.lacks})
			tt.seed(sim)
			// PyPI knows no such project: the publisher check stays a manual one.
			pypi := pypisim.New(t)
			f, err := GatherModel(ctx, client(t, sim, simToken), "cloudcoil/models-keda", PyPISource{URL: pypi.URL(), Client: pypi.Client()})
			if err != nil {
				t.Fatal(err)
			}
			r := EvaluateModel(f)
			got := notPassed(r)
			if got["trusted-publisher"] != Manual {
				t.Errorf("trusted publisher %s", got["trusted-publisher"])
			}
			delete(got, "trusted-publisher")
			if len(got) != len(tt.want) {
				t.Errorf("not passed %v, want %v\n%s", got, tt.want, r.Text())
			}
			for c, s := range tt.want {
				if got[c] != s {
					t.Errorf("%s = %s, want %s\n%s", c, got[c], s, r.Text())
				}
			}
		})
	}
}

// The number of requests docs/doctor.md states.
func TestGatherRequestCounts(t *testing.T) {
	ctx := context.Background()
	sim := githubsim.New(t)
	sim.AddToken(simToken, githubsim.Token{})
	seedGoodTesk(sim)
	c := client(t, sim, simToken)
	if _, err := GatherTesk(ctx, c, "elixir-cloud-aai/tesk-core"); err != nil {
		t.Fatal(err)
	}
	// 3 rulesets (list + 2 tag rulesets), environments + the policies of release and
	// dev-images + 2 secret lists, repository and organisation secrets, 2 × (branch rules
	// + protection), dependabot, CODEOWNERS, the workflows' directory and 1 workflow.
	if n := c.Requests(); n != 3+5+2+4+2+2 {
		t.Errorf("tesk-core took %d requests", n)
	}
	model := githubsim.New(t)
	model.AddToken(simToken, githubsim.Token{})
	seedGoodModel(model)
	c = client(t, model, simToken)
	if _, err := GatherModel(ctx, c, "cloudcoil/models-keda", PyPISource{URL: pypisim.New(t).URL()}); err != nil {
		t.Fatal(err)
	}
	// variables, repository and organisation secrets, environments + 2 secret lists,
	// pypi_publish.yml and pyproject.toml.
	if n := c.Requests(); n != 1+2+3+2 {
		t.Errorf("the model repository took %d requests", n)
	}
}

// Cloudcoil's generator repository: CI_GITHUB_TOKEN in the environment automation only.
func TestGeneratorThroughTheSimulator(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		seed func(*githubsim.Repo)
		want Status
		says string
	}{
		{"in automation", func(r *githubsim.Repo) {
			r.AddEnvironment(githubsim.Environment{Name: AutomationEnv, Secrets: []string{CITokenSecret}})
		}, Pass, "environment automation only"},
		{"a repository secret", func(r *githubsim.Repo) { r.AddSecret(CITokenSecret) }, Fail, "a secret of the repository"},
		{"no automation environment", func(r *githubsim.Repo) {
			r.AddEnvironment(githubsim.Environment{Name: "pypi", Secrets: []string{CITokenSecret}})
		}, Fail, "not a secret of the environment automation"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubsim.New(t)
			sim.AddToken(simToken, githubsim.Token{})
			r := sim.AddRepo("cloudcoil", "cloudcoil")
			tt.seed(r)
			c := client(t, sim, simToken)
			f, err := GatherGenerator(ctx, c, "cloudcoil/cloudcoil")
			if err != nil {
				t.Fatal(err)
			}
			rep := EvaluateGenerator(f)
			if len(rep.Findings) != 1 || rep.Findings[0].Status != tt.want || !strings.Contains(rep.Findings[0].Summary, tt.says) || rep.System != CloudcoilGenerator {
				t.Errorf("report:\n%s", rep.Text())
			}
			// repository and organisation secrets, environments and their secret lists.
			if n := c.Requests(); n > 2+1+1 {
				t.Errorf("%d requests", n)
			}
		})
	}
}

// The trusted publisher through GitHub's and PyPI's simulators: doctor reads the newest
// version's first file and its provenance (the Integrity API) and compares the identity
// with the upload job of pypi_publish.yml.
func TestTrustedPublisherThroughPyPI(t *testing.T) {
	ctx := context.Background()
	env := func(s string) *string { return &s }
	const project = "cloudcoil-models-keda"
	wheel := func(version string, p *pypisim.Publisher) pypisim.File {
		f := pypisim.File{Filename: "cloudcoil_models_keda-" + version + "-py3-none-any.whl", PackageType: pypisim.Wheel}
		if p != nil {
			f.Publishers = []pypisim.Publisher{*p}
		}
		return f
	}
	sdist := func(version string, p ...pypisim.Publisher) pypisim.File {
		return pypisim.File{Filename: "cloudcoil_models_keda-" + version + ".tar.gz", PackageType: pypisim.Sdist, Publishers: p}
	}
	good := &pypisim.Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml", Environment: env("pypi")}
	tests := []struct {
		name string
		seed func(*pypisim.Server)
		want Status
		says string
	}{
		{"the newest upload from the same job", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.0.0", wheel("2.16.0.0", &pypisim.Publisher{Kind: "GitHub", Repository: "someone/fork", Workflow: "x.yml"}))
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", good))
		}, Pass, "2.16.1.0"},
		{"the template's upload, in no environment", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", &pypisim.Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml"}))
		}, Fail, "names no environment"},
		{"another environment", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", &pypisim.Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml", Environment: env("release")}))
		}, Fail, "environment release"},
		{"uploaded with a token", func(p *pypisim.Server) { p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", nil)) }, Manual, "has no provenance"},
		// Every file of the newest version, and every bundle of each: a looser publisher
		// shows on any of them.
		{"the second file from another repository", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", good), sdist("2.16.1.0", pypisim.Publisher{Kind: "GitHub", Repository: "someone/fork", Workflow: "pypi_publish.yml", Environment: env("pypi")}))
		}, Fail, "cloudcoil_models_keda-2.16.1.0.tar.gz of 2.16.1.0 was uploaded by GitHub someone/fork"},
		{"the second file in no environment", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", good), sdist("2.16.1.0", pypisim.Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml"}))
		}, Fail, "names no environment"},
		{"a second bundle in no environment", func(p *pypisim.Server) {
			f := wheel("2.16.1.0", good)
			f.Publishers = append(f.Publishers, pypisim.Publisher{Kind: "GitHub", Repository: "cloudcoil/models-keda", Workflow: "pypi_publish.yml"})
			p.AddRelease(project, "2.16.1.0", f, sdist("2.16.1.0", *good))
		}, Fail, "names no environment"},
		{"the second file uploaded with a token", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", good), sdist("2.16.1.0"))
		}, Manual, "cloudcoil_models_keda-2.16.1.0.tar.gz of 2.16.1.0 has no provenance"},
		{"both files from the same job", func(p *pypisim.Server) {
			p.AddRelease(project, "2.16.1.0", wheel("2.16.1.0", good), sdist("2.16.1.0", *good))
		}, Pass, "2 files of 2.16.1.0"},
		{"not uploaded yet", func(*pypisim.Server) {}, Manual, "not on PyPI yet"},
		{"PyPI failing", func(p *pypisim.Server) { p.FailNext(http.StatusServiceUnavailable) }, Manual, "503"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := githubsim.New(t)
			sim.AddToken(simToken, githubsim.Token{})
			seedGoodModel(sim)
			pypi := pypisim.New(t)
			tt.seed(pypi)
			f, err := GatherModel(ctx, client(t, sim, simToken), "cloudcoil/models-keda", PyPISource{URL: pypi.URL(), Client: pypi.Client()})
			if err != nil {
				t.Fatal(err)
			}
			got := trustedPublisher(f)
			if got.Status != tt.want || !strings.Contains(got.Summary, tt.says) {
				t.Fatalf("%s: %s, want %s with %q", got.Status, got.Summary, tt.want, tt.says)
			}
			if tt.want == Pass {
				// The newest version's files, each file's provenance; and what PyPI cannot show.
				want := []string{"/pypi/" + project + "/json"}
				for _, r := range pypi.Requests() {
					if strings.HasPrefix(r.Path, "/integrity/") {
						want = append(want, r.Path)
					}
				}
				var paths []string
				for _, r := range pypi.Requests() {
					paths = append(paths, r.Path)
				}
				if len(paths) < 2 || !slices.Equal(paths, want) || !strings.Contains(paths[1], "/2.16.1.0/") {
					t.Errorf("PyPI requests %v, want the JSON API, then the provenance of each file of 2.16.1.0", paths)
				}
				if !strings.Contains(got.Summary, "a publisher that uploaded no file of 2.16.1.0 does not show") {
					t.Errorf("the summary %q does not say what PyPI cannot show", got.Summary)
				}
			}
		})
	}
}
