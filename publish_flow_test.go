package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"dagger/shipyard/internal/flow"
	"dagger/shipyard/internal/flow/flowtest"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// TestPublishingFunctionsRunTheirFlow: each function that publishes or verifies, failing
// in a step, fails as a flow of that function's name through the runner, which names the
// failed step once and no step the function does not run: there is no other way in.
func TestPublishingFunctionsRunTheirFlow(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := publishtest.NewWorld(t)
	m, _ := publishModule(t, w, true)
	digests, err := m.PushByDigest(ctx, "", "")
	if err != nil {
		t.Fatal(err)
	}
	var byName map[string]string
	if err := json.Unmarshal([]byte(digests), &byName); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		fn, step, want string
		call           func(m *Shipyard) error
	}{
		{"push-by-digest", publish.StepPush, "storage quota", func(m *Shipyard) error {
			w.Registry.FailNext(100, http.StatusInsufficientStorage, func(r *http.Request) bool {
				return r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/")
			})
			defer w.Registry.FailNext(0, 0, nil)
			w.Rebuild("filer")
			_, err := m.PushByDigest(ctx, "", "")
			return err
		}},
		{"attest", publish.StepAttest, "fulcio refuses", func(m *Shipyard) error {
			w.Sigstore.SetFaults(t, &publishtest.Fault{Status: http.StatusForbidden, Message: "fulcio refuses the request"}, nil)
			defer w.Sigstore.SetFaults(t, nil, nil)
			_, err := withSigstore(m, w, nil).Attest(ctx, digests, devSHA, "refs/heads/dev", "")
			return err
		}},
		{"sign", publish.StepSign, "rekor is read-only", func(m *Shipyard) error {
			w.Sigstore.SetFaults(t, nil, &publishtest.Fault{Status: http.StatusBadRequest, Message: "rekor is read-only"})
			defer w.Sigstore.SetFaults(t, nil, nil)
			_, err := withSigstore(m, w, nil).Sign(ctx, digests)
			return err
		}},
		{"sign", publish.StepInputs, "no OIDC token", func(m *Shipyard) error {
			_, err := m.Sign(ctx, digests)
			return err
		}},
		{"tag-images", publish.StepInputs, "release flow", func(m *Shipyard) error {
			_, err := m.TagImages(ctx, digests, []string{"latest"})
			return err
		}},
		{"verify", publish.StepVerify, "supplychain verify", func(m *Shipyard) error {
			// Pushed, never signed.
			root := m.engine().Host().File(w.Sigstore.TrustedRoot)
			_, err := m.Verify(ctx, byName["taskmaster"], publishtest.IdentityRegexp, publishtest.Issuer, root, 1, "text", false)
			return err
		}},
		{"verify", publish.StepInputs, "not anchored", func(m *Shipyard) error {
			_, err := m.Verify(ctx, repoOf(w, "filer")+":dev", "github", publishtest.Issuer, nil, 1, "text", false)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fn+" "+tt.step, func(t *testing.T) {
			m, _ := publishModule(t, w, true)
			err := tt.call(m)
			var fe *flow.Error
			if !errors.As(err, &fe) || fe.Flow != tt.fn || fe.Step != tt.step || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a failure of %s's step %s saying %q", err, tt.fn, tt.step, tt.want)
			}
			runs := map[string]string{"tag-images": publish.StepTag}[tt.fn]
			if runs == "" {
				runs = tt.fn // the other functions run the one step of their name
			}
			flowtest.RequireNamed(t, err, []string{publish.StepInputs, runs}, publish.StepNames())
			noSecret(t, w, err.Error())
		})
	}
}
