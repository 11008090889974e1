package modelrelease

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modelenv"
)

// engineDirRule makes output/ hold the one rendered project folder.
func engineDirRule(project string) engine.DirRule {
	return engine.DirRule{Path: RenderDir, ChainContains: "gen-repo-", Entries: []string{project + "/"}}
}

// writeTree writes files (path → contents) under a new temporary folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(target, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// Every real integration's repository, rendered from the real template and from the
// patched one and generated (patchedCheckout's module in the generator's shape), passes
// check-artifacts and model-ci on the double: the template's targets, its four Pythons,
// the artifact rules on archives built from the checkout.
func TestModelCIAndCheckArtifactsRealIntegrations(t *testing.T) {
	for _, tc := range []struct{ template, root string }{
		{"real", cloudcoilTree(t)},
		{"patched", patchedCloudcoil(t)},
	} {
		for _, name := range realIntegrations(t, tc.root) {
			t.Run(tc.template+"/"+name, func(t *testing.T) {
				_, rendered, err := cookiecutter.Integration(tc.root, name)
				if err != nil {
					t.Fatal(err)
				}
				files := patchedCheckout(rendered, name)
				dist := fixtures.BuildDistributions(t, files, nil)

				env, e := newEnv(t)
				serveDistributions(e, "", dist)
				repo := env.Client.Host().Directory(writeTree(t, files))
				report, err := env.CheckArtifacts(context.Background(), repo)
				if err != nil || len(report.Problems) != 0 {
					t.Fatalf("check-artifacts: %v\n%s", err, report.Text())
				}
				ci, err := ModelCI(context.Background(), env, repo)
				if err != nil {
					t.Fatalf("model-ci: %v", err)
				}
				table := ci.Summary.Table()
				for _, row := range []string{"| lint | passed", "| test (Python 3.10) | passed", "| test (Python 3.13) | passed", "| artifacts | passed"} {
					if !strings.Contains(table, row) {
						t.Errorf("model-ci lacks %q:\n%s", row, table)
					}
				}
			})
		}
	}
}

// validate-models --name <integration> on the real repository and on the patched one, on
// the double: make gen-repo-<name> renders (what the test kit's renderer gives, with a
// module in the generator's shape), then the generated repository's lint, test and
// artifact checks pass.
func TestValidateModelsRealIntegrations(t *testing.T) {
	for _, tc := range []struct{ template, root string }{
		{"real", cloudcoilTree(t)},
		{"patched", patchedCloudcoil(t)},
	} {
		for _, name := range realIntegrations(t, tc.root) {
			t.Run(tc.template+"/"+name, func(t *testing.T) {
				project, rendered, err := cookiecutter.Integration(tc.root, name)
				if err != nil {
					t.Fatal(err)
				}
				files := patchedCheckout(rendered, name)
				env, e := newEnv(t)
				e.OnEntries(engineDirRule(project))
				serveRendered(e, project, files)
				serveDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
				v, err := ValidateModels(context.Background(), env, env.Client.Host().Directory(tc.root), ValidateOptions{Name: name})
				if err != nil {
					t.Fatalf("validate-models --name %s: %v", name, err)
				}
				table := v.Summary.Table()
				for _, row := range []string{name + ": generate | passed", name + ": lint | passed", name + ": test | passed", name + ": artifacts | passed"} {
					if !strings.Contains(table, row) {
						t.Errorf("lacks %q:\n%s", row, table)
					}
				}
				if !hasExec(e, "make gen-repo-"+name) {
					t.Errorf("no make gen-repo-%s", name)
				}
			})
		}
	}
}

// model-release --dry-run of every real integration, generated from the real template and
// from the patched one: the newest release line of the rendered workflow (the real
// update_releases.yml, or the patched shipyard_release.yml) plans its first release,
// <upstream>.0, passing the dependency check with the real template's unbounded
// cloudcoil>=0.4.0 and with the patched range alike, and writes nothing.
func TestModelReleaseDryRunRealIntegrations(t *testing.T) {
	for _, tc := range []struct{ template, root, workflow string }{
		{"real", cloudcoilTree(t), modelenv.UpdateReleasesWorkflow},
		{"patched", patchedCloudcoil(t), modelenv.ShipyardReleaseWorkflow},
	} {
		for _, name := range realIntegrations(t, tc.root) {
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
				files := patchedCheckout(rendered, name)
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
