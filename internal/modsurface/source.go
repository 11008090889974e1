// Package modsurface describes the module's callable API — its functions, their arguments
// with types, optionality and defaults, and the +check and +cache pragmas — in one form that
// can be read two ways: from the Go source, as Dagger's code generator reads it, and from
// what a real engine registered (the currentTypeDefs query). Tests compare the two, and
// compare both with what the README documents and the GitHub Actions wrappers call.
package modsurface

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Surface is the module's API as the Dagger CLI shows it; names are the CLI's (kebab-case).
type Surface struct {
	Constructor Function
	Functions   map[string]Function
}

// Function is one callable function (or the constructor).
type Function struct {
	Args    map[string]Arg
	Returns string
	// Check is the +check pragma: `dagger check` runs the function.
	Check bool
	// Cache is the +cache pragma's value ("never", "session", a duration), empty when the
	// engine's default (results cached) applies.
	Cache string
	// Pragmas are all of its doc comment's pragmas, Dagger's and the module's own (which
	// Dagger ignores): name → value, unquoted, "" for one without a value.
	Pragmas map[string]string
	// Uses are the fields and the unexported methods of the main type the function
	// reaches, directly or through the methods it calls (e.g. "target", the registry
	// login; "Source", the caller's tree), sorted: what it needs that its arguments do
	// not show. Read from the source only.
	Uses []string
	// File is the source file that declares the function.
	File string
	// Method is its Go name (Dagger derives the CLI name from it).
	Method string
}

// Arg is one argument (flag) of a function.
type Arg struct {
	// Type is the Dagger type: String, Boolean, Integer, Directory, Secret, [String] …
	Type     string
	Optional bool
	// Default is the default value as JSON ("\"text\"", "true"), empty when none.
	Default     string
	DefaultPath string
	// RequiredUnless names the flag without which this optional one is required, as its
	// documentation says ("required unless --dry-run"); the engine knows nothing of it.
	RequiredUnless string
}

// Required reports whether the CLI demands the flag.
func (a Arg) Required() bool { return !a.Optional && a.Default == "" }

// Names returns the function names in order.
func (s Surface) Names() []string {
	names := make([]string, 0, len(s.Functions))
	for n := range s.Functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// FromSource reads the module's root package: New's parameters are the constructor's
// arguments, and each exported method of the module's main type is a function whose
// parameters (but ctx) are its arguments.
func FromSource(root, mainType string) (Surface, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return Surface{}, fmt.Errorf("reading the module's source: %w", err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !isSourceFile(name) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return Surface{}, fmt.Errorf("reading the module's source: %w", err)
		}
		files[name] = b
	}
	s, err := FromFiles(files, mainType)
	if err != nil {
		return Surface{}, fmt.Errorf("%s: %w", root, err)
	}
	return s, nil
}

// isSourceFile is a Go file of the package that is not a test.
func isSourceFile(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// FromFiles reads the module's root package from its files' contents (name → content):
// the same reading as FromSource, for a tree that is not on disk, such as a commit.
func FromFiles(files map[string][]byte, mainType string) (Surface, error) {
	fset := token.NewFileSet()
	s := Surface{Functions: map[string]Function{}}
	var parsed []*ast.File
	for _, name := range sortedKeys(files) {
		f, err := parser.ParseFile(fset, name, files[name], parser.ParseComments)
		if err != nil {
			return Surface{}, fmt.Errorf("parsing %s: %w", name, err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || !fn.Name.IsExported() {
				continue
			}
			switch {
			case fn.Recv == nil && fn.Name.Name == "New":
				s.Constructor = function(f, fn)
			case fn.Recv != nil && receiverIs(fn, mainType):
				out := function(f, fn)
				out.File = name
				out.Method = fn.Name.Name
				s.Functions[Kebab(fn.Name.Name)] = out
			}
		}
	}
	if len(s.Functions) == 0 {
		return s, fmt.Errorf("no exported methods of *%s found", mainType)
	}
	uses := methodsUsed(parsed, mainType)
	for name, fn := range s.Functions {
		fn.Uses = uses[name]
		s.Functions[name] = fn
	}
	return s, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func receiverIs(fn *ast.FuncDecl, typ string) bool {
	if len(fn.Recv.List) != 1 {
		return false
	}
	star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	id, ok := star.X.(*ast.Ident)
	return ok && id.Name == typ
}

// function reads a declaration: its doc comment's pragmas, and each parameter with the
// pragmas of the comment above it. Go's parser keeps comments inside a parameter list only
// in the file's comment list, so they are found by position, as Dagger's codegen finds them.
func function(file *ast.File, fn *ast.FuncDecl) Function {
	out := Function{Args: map[string]Arg{}, Returns: returns(fn)}
	if fn.Doc != nil {
		doc := fn.Doc.Text()
		out.Check = hasPragma(doc, "+check")
		out.Cache = unquote(pragmaValue(doc, "+cache="))
		out.Pragmas = pragmas(doc)
	}
	prevEnd := fn.Type.Params.Opening
	for _, field := range fn.Type.Params.List {
		doc := commentBetween(file, prevEnd, field.Pos())
		prevEnd = field.End()
		if sel, ok := field.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Context" {
			continue
		}
		arg := Arg{
			Type:           typeName(field.Type),
			Optional:       hasPragma(doc, "+optional"),
			Default:        pragmaValue(doc, "+default="),
			DefaultPath:    unquote(pragmaValue(doc, "+defaultPath=")),
			RequiredUnless: requiredUnless(doc),
		}
		if arg.DefaultPath != "" {
			arg.Optional = true
		}
		for _, n := range field.Names {
			out.Args[Kebab(n.Name)] = arg
		}
	}
	return out
}

// returns names the type of the first result (an error alone is Void).
func returns(fn *ast.FuncDecl) string {
	if fn.Type.Results == nil {
		return "Void"
	}
	for _, r := range fn.Type.Results.List {
		if id, ok := r.Type.(*ast.Ident); ok && id.Name == "error" {
			continue
		}
		return typeName(r.Type)
	}
	return "Void"
}

// typeName maps a Go type of the module's API to the Dagger type the engine registers.
func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		switch t.Name {
		case "string":
			return "String"
		case "bool":
			return "Boolean"
		case "int", "int64":
			return "Integer"
		case "float64":
			return "Float"
		}
		return t.Name
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.ArrayType:
		return "[" + typeName(t.Elt) + "]"
	}
	return fmt.Sprintf("%T", e)
}

var requiredUnlessPattern = regexp.MustCompile(`(?i)\brequired\s+unless\s+--([a-z][a-z-]*)`)

// requiredUnless reads "required unless --flag" from an argument's documentation.
func requiredUnless(doc string) string {
	if m := requiredUnlessPattern.FindStringSubmatch(doc); m != nil {
		return m[1]
	}
	return ""
}

func commentBetween(file *ast.File, from, to token.Pos) string {
	var b strings.Builder
	for _, g := range file.Comments {
		if g.Pos() > from && g.End() < to {
			b.WriteString(g.Text())
		}
	}
	return b.String()
}

// hasPragma reports a pragma standing alone on a comment line.
func hasPragma(doc, pragma string) bool {
	for _, line := range strings.Split(doc, "\n") {
		if strings.TrimSpace(line) == pragma {
			return true
		}
	}
	return false
}

// pragmaValue returns the text after prefix on the comment line that starts with it.
func pragmaValue(doc, prefix string) string {
	for _, line := range strings.Split(doc, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func unquote(s string) string { return strings.Trim(s, `"`) }

// pragmas reads every line of doc that is a pragma, +name or +name=value, as Dagger's
// codegen does for one-line values: a quoted value is unquoted as Go (and JSON) would.
func pragmas(doc string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "+")
		if !ok || rest == "" {
			continue
		}
		name, value, _ := strings.Cut(rest, "=")
		value = strings.TrimSpace(value)
		if v, err := strconv.Unquote(value); err == nil {
			value = v
		}
		out[strings.TrimSpace(name)] = value
	}
	return out
}

// Kebab converts Go names to the CLI's: ReleasePlan → release-plan, githubApi → github-api.
func Kebab(s string) string {
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]) ||
				(i+1 < len(runes) && unicode.IsLower(runes[i+1]))) {
				b.WriteByte('-')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
