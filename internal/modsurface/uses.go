package modsurface

import (
	"go/ast"
	"sort"
)

// methodsUsed maps each exported method of mainType (by its CLI name) to the fields and
// unexported methods of mainType it reaches through its receiver, directly or through the
// methods it calls. A rule that follows from what a function does rather than from its
// arguments (it reads the caller's tree, it logs in to the registry) is read from these.
// levelOnly are the main type's methods that read the constructor's fields only to name a
// call's trust level (where its credentials act, the digest of its tree): every function
// calls them, so what they read says nothing of what a function works on, and the walk
// does not enter them.
var levelOnly = map[string]bool{"level": true}

func methodsUsed(files []*ast.File, mainType string) map[string][]string {
	calls := map[string]map[string]bool{} // method → what it selects on its receiver
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Body == nil || !receiverIs(fn, mainType) {
				continue
			}
			recv := receiverName(fn)
			called := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && recv != "" && id.Name == recv {
						called[sel.Sel.Name] = true
					}
				}
				return true
			})
			calls[fn.Name.Name] = called
		}
	}
	out := map[string][]string{}
	for name := range calls {
		if !ast.IsExported(name) {
			continue
		}
		seen := map[string]bool{}
		var walk func(string)
		walk = func(m string) {
			for c := range calls[m] {
				if seen[c] {
					continue
				}
				seen[c] = true
				if !levelOnly[c] {
					walk(c)
				}
			}
		}
		walk(name)
		var used []string
		for m := range seen {
			if _, isMethod := calls[m]; !isMethod || !ast.IsExported(m) {
				used = append(used, m) // a field, or an unexported method
			}
		}
		sort.Strings(used)
		out[Kebab(name)] = used
	}
	return out
}

func receiverName(fn *ast.FuncDecl) string {
	if len(fn.Recv.List) != 1 || len(fn.Recv.List[0].Names) != 1 {
		return ""
	}
	return fn.Recv.List[0].Names[0].Name
}

// Reaches reports whether fn reaches the main type's field or unexported method name.
func (f Function) Reaches(name string) bool {
	i := sort.SearchStrings(f.Uses, name)
	return i < len(f.Uses) && f.Uses[i] == name
}
