package modelrelease

import (
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
	"dagger/shipyard/models/modeltest"
)

// model-release --dry-run of every real integration, generated from the real template and
// from the patched one: the newest release line of the rendered workflow (the real
// update_releases.yml, or the patched shipyard_release.yml) plans its first release,
// <upstream>.0, passing the dependency check with the real template's unbounded
// cloudcoil>=0.4.0 and with the patched range alike, and writes nothing.
func TestModelReleaseDryRunRealIntegrations(t *testing.T) {
	for _, tc := range []struct{ template, root, workflow string }{
		{"real", modeltest.CloudcoilTree(t), modelenv.UpdateReleasesWorkflow},
		{"patched", modeltest.PatchedCloudcoil(t), modelenv.ShipyardReleaseWorkflow},
	} {
		for _, name := range modeltest.RealIntegrations(t, tc.root) {
			t.Run(tc.template+"/"+name, func(t *testing.T) {
				_, rendered, err := cookiecutter.Integration(tc.root, name)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(rendered[modelenv.PyprojectPath], `"cloudcoil>=0.4.0`) {
					t.Fatalf("rendered %s does not require cloudcoil>=0.4.0:\n%s", modelenv.PyprojectPath, rendered[modelenv.PyprojectPath])
				}
				cfg, err := modelenv.ParseLineConfig(tc.workflow, []byte(rendered[tc.workflow]))
				if err != nil {
					t.Fatal(err)
				}
				lines, err := modelenv.ReleaseLines(cfg)
				if err != nil {
					t.Fatal(err)
				}
				newest := lines[len(lines)-1].Upstream
				w := newWorld(t)
				files := modeltest.PatchedCheckout(rendered, name)
				// The hook's uv add cloudcoil -U locks the newest Cloudcoil the requirement
				// allows within its minor: a 0.4 release under either template.
				fixture := fixtures.ModelRepoFiles(t, nil)
				files["uv.lock"] = strings.ReplaceAll(fixture["uv.lock"], "0.5.3", "0.4.5")
				// The checkout is the rendered repository alone: none of the fixture's own
				// package, workflow or release record.
				for p := range fixture {
					if _, ok := files[p]; !ok {
						files[p] = ""
					}
				}
				w.setCheckout(files)
				res, _, err := w.run(ReleaseOptions{Upstream: newest, DryRun: true}, nil, newest+".0")
				if err != nil || res.Plan.Version != newest+".0" {
					t.Fatalf("dry run of %s: %v\n%s", newest, err, res.Text())
				}
				w.noWrites()
			})
		}
	}
}
