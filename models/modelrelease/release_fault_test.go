package modelrelease

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/models/modeltest"
)

// TestModelReleaseFaultsNameDeclaredSteps: a fault at each step the model release declares
// fails that step, named once by the runner (runIn requires it of every run) with its
// advice; a fault before push writes nothing.
func TestModelReleaseFaultsNameDeclaredSteps(t *testing.T) {
	refuse := githubsim.Fault{Kind: githubsim.FaultStatus, Status: http.StatusUnprocessableEntity}
	tests := []struct {
		step, message string
		// arrange injects the fault; build is served unless it says otherwise.
		arrange func(w *world, e *engine.Engine, o *ReleaseOptions) (serveBuild bool)
	}{
		{"select upstream", "is not one of the release lines", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			o.Upstream = "1.18.0"
			return true
		}},
		{"check token", "not write it", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			w.sim.AddToken(worldToken, githubsim.Token{})
			return true
		}},
		{"read main", "has no branch trunk", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			o.MainBranch = "trunk"
			return true
		}},
		{"generate and check", "nothing was pushed or released", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			e.OnExec(engine.ExecRule{ArgsContain: "cloudcoil-model-codegen", ExitCode: 1, Stderr: "error: cannot fetch schema"})
			return true
		}},
		{"fingerprint", "hold files; keep the package in one place", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			w.setCheckout(map[string]string{"src/" + pkg + "/v1.py": "X = 1\n"})
			return true
		}},
		{"plan", "releases of " + owner + "/" + repoName, func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			w.sim.InjectFault(http.MethodGet, "/repos/*/*/releases", refuse)
			return true
		}},
		{"build", "want one wheel and one sdist", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			return false
		}},
		{"push", "create tree", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			w.sim.InjectFault(http.MethodPost, "/repos/*/*/git/trees", refuse)
			return true
		}},
		{"draft", "create release 1.17.1.0", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			w.sim.InjectFault(http.MethodPost, "/repos/*/*/releases", refuse)
			return true
		}},
		{"publish", "edit release", func(w *world, e *engine.Engine, o *ReleaseOptions) bool {
			o.Publish = true
			w.sim.InjectFault(http.MethodPatch, "/repos/*/*/releases/*", refuse)
			return true
		}},
	}
	declared := flow.Names(slices.Concat(prepareSteps(), releaseSteps()))
	var faulted []string
	for _, tc := range tests {
		faulted = append(faulted, tc.step)
	}
	if !slices.Equal(faulted, declared) {
		t.Errorf("faults at %v, want one at each declared step %v", faulted, declared)
	}
	for _, tc := range tests {
		t.Run(tc.step, func(t *testing.T) {
			w := newWorld(t)
			env, e := modeltest.NewEnv(t)
			var o ReleaseOptions
			if tc.arrange(w, e, &o) {
				w.serve(e, "1.17.1.0", nil)
			}
			res, _, err := w.runIn(env, e, o, nil)
			var fe *flow.Error
			if !errors.As(err, &fe) || fe.Step != tc.step || fe.Next == "" || !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("err = %v, want step %q saying %q with its advice\n%s", err, tc.step, tc.message, res.Text())
			}
			if slices.Index(declared, tc.step) < slices.Index(declared, "push") {
				w.noWrites()
			}
			for _, r := range w.repo.Releases() {
				if !r.Draft {
					t.Errorf("a failed release published %s", r.TagName)
				}
			}
		})
	}
}
