package modelci

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dagger/shipyard/internal/testkit/cookiecutter"
	"dagger/shipyard/internal/testkit/fixtures"
	"dagger/shipyard/models/modeltest"
)

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
		{"real", modeltest.CloudcoilTree(t)},
		{"patched", modeltest.PatchedCloudcoil(t)},
	} {
		for _, name := range modeltest.RealIntegrations(t, tc.root) {
			t.Run(tc.template+"/"+name, func(t *testing.T) {
				_, rendered, err := cookiecutter.Integration(tc.root, name)
				if err != nil {
					t.Fatal(err)
				}
				files := modeltest.PatchedCheckout(rendered, name)
				dist := fixtures.BuildDistributions(t, files, nil)

				env, e := modeltest.NewEnv(t)
				modeltest.ServeDistributions(e, "", dist)
				repo := env.Client.Host().Directory(writeTree(t, files))
				report, err := env.CheckArtifacts(context.Background(), repo)
				if err != nil || len(report.Problems) != 0 {
					t.Fatalf("check-artifacts: %v\n%s", err, report.Text())
				}
				ci, err := RepositoryCI(context.Background(), env, repo)
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
