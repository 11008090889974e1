package updaterepos

import (
	"dagger/shipyard/internal/githubclient"
	"dagger/shipyard/models/modeltest"

	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
)

// TestUpdateRepoFaultsNameDeclaredSteps: a fault at each step of one integration's update
// fails that step, which the update declares, with its advice; nothing is pushed.
func TestUpdateRepoFaultsNameDeclaredSteps(t *testing.T) {
	const weak = "ghp_push_but_no_administration"
	tests := []struct {
		name, step, message string
		// integration is updated; "istio" has no repository yet.
		integration string
		inject      func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client
	}{
		{
			name: "the generation fails", step: "generate", message: "cloudcoil-model-codegen", integration: "keda",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: schema 404"})
				return updateClient(t, sim, nil)
			},
		},
		{
			name: "the repository has no branch to update", step: "read main", message: "has no branch main", integration: "velero",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				sim.AddRepo(DefaultModelOwner, "models-velero") // exists, empty
				return updateClient(t, sim, nil)
			},
		},
		{
			name: "an older source than the repository's", step: "check source", message: "no commit among the last 50", integration: "keda",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				sim.Repo(sourceRepo).CommitOnBranch("main", "newer", map[string]string{"README.md": "newer\n"})
				return updateClient(t, sim, nil)
			},
		},
		{
			name: "the token may not create a missing repository", step: "create repository", message: "may not create it", integration: "istio",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				sim.AddToken(weak, githubsim.Token{PushAccess: true, Lacks: []string{"administration"}})
				gh, err := githubclient.NewClient(sim.URL, weak, githubclient.WithSleep(func(ctx context.Context, _ time.Duration) error { return ctx.Err() }))
				if err != nil {
					t.Fatal(err)
				}
				return gh
			},
		},
		{
			name: "GitHub refuses the tree", step: "write tree", message: "create tree", integration: "keda",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				sim.InjectFault(http.MethodPost, "/repos/*/*/git/trees", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusUnprocessableEntity})
				return updateClient(t, sim, nil)
			},
		},
		{
			name: "GitHub refuses the branch update", step: "push", message: "refs/heads/main", integration: "keda",
			inject: func(t *testing.T, sim *githubsim.Server, e *engine.Engine, o *UpdateOptions) *githubclient.Client {
				sim.InjectFault(http.MethodPatch, "/repos/*/*/git/refs/heads/main", githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusForbidden})
				return updateClient(t, sim, nil)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sim, repos := modelRepos(t, "keda")
			env, e := modeltest.NewEnv(t)
			modeltest.RenderAnything(e)
			modeltest.ServeGenerated(t, e, "", fixtures.ModelRepoFiles(t, nil), nil)
			o := fromHead(repos, tc.integration)
			o.Branch = "main"
			gh := tc.inject(t, sim, e, &o)
			before := sim.Writes()
			up, err := Update(context.Background(), env, gh, modeltest.GeneratorRepo(t, env, nil), o)
			if err == nil || len(up) != 1 {
				t.Fatalf("the update survived the fault: %+v, %v", up, err)
			}
			declared := flow.Names(updateSteps(env, gh, nil, o.Names[0], o))
			var fe *flow.Error
			if !errors.As(up[0].Err, &fe) || !slices.Contains(declared, fe.Step) {
				t.Fatalf("the failure names no step the update declares (%v): %v", declared, up[0].Err)
			}
			requireNamed(t, up[0].Err, declared)
			if fe.Step != tc.step || !strings.Contains(err.Error(), tc.message) || fe.Next == "" {
				t.Errorf("failed at %q (next %q), want %q saying %q: %v", fe.Step, fe.Next, tc.step, tc.message, err)
			}
			for _, w := range sim.Writes()[len(before):] {
				if strings.Contains(w.Path, "/git/refs") && w.Status < 300 {
					t.Errorf("a failed update moved a branch: %s %s", w.Method, w.Path)
				}
			}
		})
	}
}
