package engine

import (
	"dagger/shipyard/internal/demoworld/corpus"

	"os"
	"strings"
	"testing"
)

func TestSchemaChecksumIsEnforced(t *testing.T) {
	src, err := locateSchema()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		input   []byte
		wantErr bool
	}{
		{"pinned schema", src, false},
		{"one byte changed", append([]byte("#"), src[1:]...), true},
		{"empty", nil, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := checkSchema("schema.graphqls", tc.input)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), schemaSHA256) {
				t.Errorf("error %q should name the pinned checksum", err)
			}
		})
	}
}

func TestSchemaHasLegacyLoaders(t *testing.T) {
	schema, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := loadSchema()
	if again != schema {
		t.Errorf("the schema must be parsed once per process")
	}
	query := schema.Types["Query"]
	cases := []struct {
		field, argType, result string
	}{
		{"loadContainerFromID", "ContainerID!", "Container!"},
		{"loadDirectoryFromID", "DirectoryID!", "Directory!"},
		{"loadSecretFromID", "SecretID!", "Secret!"},
		{"loadExportableFromID", "ExportableID!", "Exportable!"},
		{"loadSyncerFromID", "SyncerID!", "Syncer!"},
	}
	for _, tc := range cases {
		t.Run(tc.field, func(t *testing.T) {
			f := query.Fields.ForName(tc.field)
			if f == nil {
				t.Fatalf("Query.%s missing", tc.field)
			}
			id := f.Arguments.ForName("id")
			if id == nil || id.Type.String() != tc.argType || f.Type.String() != tc.result {
				t.Errorf("Query.%s = (id: %v): %v, want (id: %s): %s", tc.field, id.Type, f.Type, tc.argType, tc.result)
			}
			if schema.Types[strings.TrimSuffix(tc.argType, "!")] == nil {
				t.Errorf("scalar %s missing", tc.argType)
			}
		})
	}
	if query.Fields.ForName("loadNodeFromID") != nil {
		t.Errorf("Node is loaded with node(id:), not a legacy loader")
	}
}

func TestRepoRootHoldsManifest(t *testing.T) {
	root, err := corpus.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root + "/dagger.json"); err != nil {
		t.Errorf("dagger.json not at %s: %v", root, err)
	}
}

// The core types a dagger call chains on, as the CLI names them: Directory's export takes
// a required --path and an optional --wipe, and returns a String, so nothing follows it.
func TestCoreTypes(t *testing.T) {
	types, err := CoreTypes()
	if err != nil {
		t.Fatal(err)
	}
	export, ok := types["Directory"]["export"]
	if !ok {
		t.Fatalf("Directory has no export: %d types", len(types))
	}
	if !export.Args["path"].Required() || export.Args["wipe"].Required() || export.Returns != "String" {
		t.Errorf("Directory.export = %+v", export)
	}
	if _, ok := types["Container"]["with-exec"]; !ok {
		t.Error("Container.withExec is not with-exec")
	}
	if _, ok := types["String"]; ok {
		t.Error("a scalar is listed as a type with functions")
	}
}
