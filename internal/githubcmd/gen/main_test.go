package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// calls.go is what github.Calls declares today: a call added, changed or removed without go
// generate fails here, and so does a hand edit of the generated file.
func TestCallsAreCurrent(t *testing.T) {
	want, err := generate("../../github/api.go")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../calls.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/githubcmd/calls.go is not what github.Calls declares: run go generate ./internal/githubcmd")
	}
	if n := bytes.Count(want, []byte("func (c *Client) ")); n < 40 {
		t.Errorf("generated %d methods; Calls has more", n)
	}
}

func TestClientMethod(t *testing.T) {
	for _, c := range []struct {
		name, method string
		want         string // the method, or a part of the error
		wantErr      bool
	}{
		{"results and grouped arguments", "F(ctx context.Context, owner, repo string, n int64) (x []T, ok bool, err error)",
			"func (c *Client) F(ctx context.Context, owner string, repo string, n int64) ([]github.T, bool, error) {\n\tvar r0 []github.T\n\tvar r1 bool\n\terr := c.call(ctx, \"F\", []any{owner, repo, n}, &r0, &r1)\n\treturn r0, r1, err\n}\n", false},
		{"an error alone", "F(ctx context.Context, m map[string]*T) error",
			"func (c *Client) F(ctx context.Context, m map[string]*github.T) error {\n\treturn c.call(ctx, \"F\", []any{m})\n}\n", false},
		{"no context first", "F(owner string) error", "not one context.Context", true},
		{"no error last", "F(ctx context.Context) bool", "not an error", true},
		{"unnamed arguments", "F(context.Context, string) error", "not one context.Context", true},
		{"an array", "F(ctx context.Context, a [2]string) error", "use a slice", true},
		{"a function argument", "F(ctx context.Context, f func()) error", "do not use", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "", "package p\ntype I interface{ "+c.method+" }", 0)
			if err != nil {
				t.Fatal(err)
			}
			m := f.Decls[0].(*ast.GenDecl).Specs[0].(*ast.TypeSpec).Type.(*ast.InterfaceType).Methods.List[0]
			got, err := clientMethod(m.Names[0].Name, m.Type.(*ast.FuncType))
			switch {
			case c.wantErr && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err = %v, want %q", err, c.want)
			case !c.wantErr && (err != nil || got != c.want):
				t.Errorf("got %q, %v\nwant %q", got, err, c.want)
			}
		})
	}
}
