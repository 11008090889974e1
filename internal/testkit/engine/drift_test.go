package engine

import (
	"fmt"
	goast "go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
)

// selection is one q.Select / q.Arg / q.Root call of a generated SDK method.
type selection struct {
	pos  token.Pos
	kind string // Select, Arg or Root
	name string
}

// TestSDKSelectionsExistInSchema walks the pinned SDK's generated client: every field it
// selects and every argument it passes must exist in the schema the double validates
// against, or the SDK and the double (and the engine) have drifted apart.
func TestSDKSelectionsExistInSchema(t *testing.T) {
	schema, err := loadSchema()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "dagger.io/dagger").Output()
	if err != nil {
		t.Fatalf("locate the SDK module: %v", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "dagger.gen.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatalf("parse the SDK: %v", err)
	}

	var findings []string
	fields, args := 0, 0
	for _, decl := range f.Decls {
		fn, ok := decl.(*goast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		start, where := "Query", fn.Name.Name
		if fn.Recv != nil {
			recv := receiverType(fn)
			start, where = graphQLType(schema, recv), recv+"."+fn.Name.Name
			if start == "" {
				if sels := selections(fn.Body); len(sels) > 0 {
					findings = append(findings, fmt.Sprintf("%s: Go type %s has no GraphQL type", where, recv))
				}
				continue
			}
		}
		cur := schema.Types[start]
		var field *ast.FieldDefinition
		for _, s := range selections(fn.Body) {
			switch s.kind {
			case "Root":
				cur, field = schema.Types["Query"], nil
			case "Select":
				if s.name == "__typename" || cur == nil {
					continue
				}
				field = cur.Fields.ForName(s.name)
				if field == nil {
					findings = append(findings, fmt.Sprintf("%s: field %s.%s is not in the schema", where, cur.Name, s.name))
					cur = nil
					continue
				}
				fields++
				cur = schema.Types[field.Type.Name()]
			case "Arg":
				if field == nil {
					continue
				}
				args++
				if field.Arguments.ForName(s.name) == nil {
					findings = append(findings, fmt.Sprintf("%s: argument %s(%s:) is not in the schema", where, field.Name, s.name))
				}
			}
		}
	}
	sort.Strings(findings)
	t.Logf("checked %d field selections and %d arguments of %s: %d findings", fields, args, filepath.Base(file), len(findings))
	for _, finding := range findings {
		t.Error(finding)
	}
	if fields == 0 || args == 0 {
		t.Errorf("found no selections: the generated client's shape changed and this walker needs updating")
	}
}

func receiverType(fn *goast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if star, ok := t.(*goast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*goast.Ident); ok {
		return id.Name
	}
	return ""
}

// graphQLType maps a generated Go type to its GraphQL type: names are equal, except that
// interface clients carry a Client suffix (ExportableClient is Exportable).
func graphQLType(schema *ast.Schema, goType string) string {
	if schema.Types[goType] != nil {
		return goType
	}
	if name, ok := strings.CutSuffix(goType, "Client"); ok && schema.Types[name] != nil {
		return name
	}
	return ""
}

// selections lists the query-builder calls of a body in source order; for a chained
// x.Select("a").Arg("b") the position of each method name orders them correctly.
func selections(body *goast.BlockStmt) []selection {
	var out []selection
	goast.Inspect(body, func(n goast.Node) bool {
		call, ok := n.(*goast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*goast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "Root":
			if len(call.Args) == 0 {
				out = append(out, selection{pos: sel.Sel.Pos(), kind: "Root"})
			}
		case "Select", "Arg":
			if len(call.Args) == 0 {
				return true
			}
			lit, ok := call.Args[0].(*goast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			name, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			out = append(out, selection{pos: sel.Sel.Pos(), kind: sel.Sel.Name, name: name})
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}
