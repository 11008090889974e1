package genrepo

import (
	"context"
	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/engine"
	"dagger/shipyard/internal/testkit/fixtures"
	"strings"
	"testing"
)

// engineDirRule makes output/ hold the one rendered project folder.
func engineDirRule(project string) engine.DirRule {
	return engine.DirRule{Path: RenderDir, ChainContains: "gen-repo-", Entries: []string{project + "/"}}
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
