package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/internal/modsurface"
)

// The engine schema pinned by the SDK version the project uses. The file is read where it
// lies (beside the repository or in the Go module cache) and never copied into the project.
const (
	daggerModule   = "github.com/dagger/dagger"
	daggerVersion  = "v0.21.8"
	schemaInModule = "docs/docs-graphql/schema.graphqls"
	schemaSHA256   = "0761d3c0523c46e446d3bb7a959c08152caf3499219169efd6c7996212c632b0"
)

var (
	schemaOnce sync.Once
	schemaVal  *ast.Schema
	schemaErr  error
)

// loadSchema returns the engine schema extended with the legacy loadXFromID fields. It is
// parsed once per process because it is large and every engine shares it read-only.
func loadSchema() (*ast.Schema, error) {
	schemaOnce.Do(func() {
		src, err := locateSchema()
		if err != nil {
			schemaErr = err
			return
		}
		schemaVal, schemaErr = parseSchema(src)
	})
	return schemaVal, schemaErr
}

// parseSchema loads the schema text and adds what the SDK still selects but the docs schema
// omits: loadXFromID(id: XID!): X! on Query for every object type with an id field, and
// for the interfaces with one (Exportable, Syncer) except Node, which node(id:) serves.
func parseSchema(src []byte) (*ast.Schema, error) {
	base := &ast.Source{Name: "schema.graphqls", Input: string(src)}
	doc, err := parser.ParseSchema(base)
	if err != nil {
		return nil, fmt.Errorf("parse engine schema: %w", err)
	}
	declared := map[string]bool{}
	var objects []string
	for _, def := range doc.Definitions {
		declared[def.Name] = true
		loadable := def.Kind == ast.Object || (def.Kind == ast.Interface && def.Name != "Node")
		if loadable && def.Fields.ForName("id") != nil {
			objects = append(objects, def.Name)
		}
	}
	sort.Strings(objects)
	var ext strings.Builder
	ext.WriteString("extend type Query {\n")
	for _, name := range objects {
		fmt.Fprintf(&ext, "  load%sFromID(id: %sID! @expectedType(name: %q)): %s!\n", name, name, name, name)
	}
	ext.WriteString("}\n")
	for _, name := range objects {
		if !declared[name+"ID"] {
			fmt.Fprintf(&ext, "scalar %sID\n", name)
		}
	}
	schema, err := gqlparser.LoadSchema(base, &ast.Source{Name: "legacy.graphqls", Input: ext.String()})
	if err != nil {
		return nil, fmt.Errorf("load engine schema: %w", err)
	}
	return schema, nil
}

// locateSchema finds the pinned schema: the copy beside the repository when present (no Go
// command needed), else the Go module cache, downloading the module through the proxy if it
// is not cached yet. Whatever file is found must carry the pinned checksum.
func locateSchema() ([]byte, error) {
	var tried []string
	if root, err := corpus.FindRepoRoot(); err == nil {
		p := filepath.Join(root, "..", "shared", "dagger", "schema.graphqls")
		if b, err := os.ReadFile(p); err == nil {
			return checkSchema(p, b)
		}
		tried = append(tried, "../shared/dagger/schema.graphqls beside the repository")
	}
	if cache, err := goEnv("GOMODCACHE"); err == nil && cache != "" {
		p := filepath.Join(cache, filepath.FromSlash(daggerModule+"@"+daggerVersion), filepath.FromSlash(schemaInModule))
		if b, err := os.ReadFile(p); err == nil {
			return checkSchema(p, b)
		}
		tried = append(tried, "the Go module cache")
	}
	dir, err := downloadModule(daggerModule + "@" + daggerVersion)
	if err != nil {
		return nil, fmt.Errorf("engine schema not found (tried %s): %w", strings.Join(tried, ", "), err)
	}
	p := filepath.Join(dir, filepath.FromSlash(schemaInModule))
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("engine schema: %w", err)
	}
	return checkSchema(p, b)
}

func checkSchema(path string, b []byte) ([]byte, error) {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != schemaSHA256 {
		return nil, fmt.Errorf("engine schema %s has sha256 %s, want %s (the schema of %s@%s)",
			filepath.Base(path), got, schemaSHA256, daggerModule, daggerVersion)
	}
	return b, nil
}

func goEnv(name string) (string, error) {
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		return "", fmt.Errorf("go env %s: %w", name, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// downloadModule runs `go mod download -json` outside any module so the project's go.mod is
// never consulted or touched.
func downloadModule(modVersion string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", modVersion)
	cmd.Dir = os.TempDir()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr == nil && info.Error != "" {
		return "", fmt.Errorf("go mod download %s: %s", modVersion, info.Error)
	}
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w: %s", modVersion, err, strings.TrimSpace(stderr.String()))
	}
	if info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no directory reported", modVersion)
	}
	return info.Dir, nil
}

// CoreTypes are the engine schema's object types as a dagger call chains on them (a
// function returning a Directory goes on with export, entries …): each field by its CLI
// name, with its arguments, for modsurface.Read.
func CoreTypes() (modsurface.Types, error) {
	schema, err := loadSchema()
	if err != nil {
		return nil, err
	}
	out := modsurface.Types{}
	for name, def := range schema.Types {
		if def.Kind != ast.Object || strings.HasPrefix(name, "__") || name == "Query" {
			continue
		}
		fns := map[string]modsurface.Function{}
		for _, f := range def.Fields {
			fn := modsurface.Function{Args: map[string]modsurface.Arg{}, Returns: typeName(f.Type)}
			for _, a := range f.Arguments {
				arg := modsurface.Arg{Type: typeName(a.Type), Optional: !a.Type.NonNull}
				if a.DefaultValue != nil {
					arg.Default = a.DefaultValue.String()
				}
				fn.Args[modsurface.Kebab(a.Name)] = arg
			}
			fns[modsurface.Kebab(f.Name)] = fn
		}
		out[name] = fns
	}
	return out, nil
}

// typeName names a GraphQL type as modsurface does: [Elem] for a list, Integer for Int.
func typeName(t *ast.Type) string {
	if t.Elem != nil {
		return "[" + typeName(t.Elem) + "]"
	}
	if t.NamedType == "Int" {
		return "Integer"
	}
	return t.NamedType
}
