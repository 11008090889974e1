package genrepo_test

import (
	"context"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/genrepo"
	"dagger/shipyard/models/modeltest"
)

// engineDirRule makes output/ hold the one rendered project folder.
func engineDirRule(project string) engine.DirRule {
	return engine.DirRule{Path: genrepo.RenderDir, ChainContains: "gen-repo-", Entries: []string{project + "/"}}
}

// validate-models --name <integration> on the real repository and on the patched one, on
// the double: make gen-repo-<name> renders (what the test kit's renderer gives, with a
// module in the generator's shape), then the generated repository's lint, test and
// artifact checks pass.
func TestValidateModelsRealIntegrations(t *testing.T) {
	for _, tc := range []struct{ template, root string }{
		{"real", modeltest.CloudcoilTree(t)},
		{"patched", modeltest.PatchedCloudcoil(t)},
	} {
		for _, name := range modeltest.RealIntegrations(t, tc.root) {
			t.Run(tc.template+"/"+name, func(t *testing.T) {
				project, rendered, err := cookiecutter.Integration(tc.root, name)
				if err != nil {
					t.Fatal(err)
				}
				files := modeltest.PatchedCheckout(rendered, name)
				env, e := modeltest.NewEnv(t)
				e.OnEntries(engineDirRule(project))
				modeltest.ServeRendered(e, project, files)
				modeltest.ServeDistributions(e, "", fixtures.BuildDistributions(t, files, nil))
				v, err := genrepo.ValidateModels(context.Background(), env, env.Client.Host().Directory(tc.root), genrepo.ValidateOptions{Name: name})
				if err != nil {
					t.Fatalf("validate-models --name %s: %v", name, err)
				}
				table := v.Summary.Table()
				for _, row := range []string{name + ": generate | passed", name + ": lint | passed", name + ": test | passed", name + ": artifacts | passed"} {
					if !strings.Contains(table, row) {
						t.Errorf("lacks %q:\n%s", row, table)
					}
				}
				if !modeltest.HasExec(e, "make gen-repo-"+name) {
					t.Errorf("no make gen-repo-%s", name)
				}
			})
		}
	}
}
