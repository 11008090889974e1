package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
)

// execution is one query being answered. It carries no request context on purpose:
// evaluations are shared between queries, like the engine's, and outlive any one of them.
type execution struct {
	e    *Engine
	vars map[string]any
}

// selectObject answers a selection set on one object. Any error nulls the whole response:
// every field the SDK selects is non-null, so that is what the engine's null propagation
// yields too.
func (x *execution) selectObject(obj *chain, set ast.SelectionSet, path []any) (map[string]any, error) {
	out := map[string]any{}
	for _, f := range x.collect(obj.Type, set) {
		p := append(append([]any(nil), path...), f.Alias)
		v, err := x.resolve(obj, f, p)
		if err != nil {
			var fe *fieldError
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, &fieldError{path: p, err: err}
		}
		out[f.Alias] = v
	}
	return out, nil
}

// fieldError keeps the response path of a failure for the error message.
type fieldError struct {
	path []any
	err  error
}

func (f *fieldError) Error() string { return f.err.Error() }
func (f *fieldError) Unwrap() error { return f.err }

// collect flattens fragments whose type condition the object satisfies.
func (x *execution) collect(typ string, set ast.SelectionSet) []*ast.Field {
	var out []*ast.Field
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			out = append(out, s)
		case *ast.InlineFragment:
			if x.satisfies(typ, s.TypeCondition) {
				out = append(out, x.collect(typ, s.SelectionSet)...)
			}
		case *ast.FragmentSpread:
			if s.Definition != nil && x.satisfies(typ, s.Definition.TypeCondition) {
				out = append(out, x.collect(typ, s.Definition.SelectionSet)...)
			}
		}
	}
	return out
}

func (x *execution) satisfies(typ, cond string) bool {
	if cond == "" || cond == typ {
		return true
	}
	def := x.e.schema.Types[typ]
	if def == nil {
		return false
	}
	for _, iface := range x.e.schema.GetImplements(def) {
		if iface.Name == cond {
			return true
		}
	}
	return false
}

func (x *execution) resolve(obj *chain, f *ast.Field, path []any) (any, error) {
	switch f.Name {
	case "__typename":
		return obj.Type, nil
	case "__schema", "__type":
		return nil, fmt.Errorf("engine double: introspection is not served")
	}
	def := f.Definition
	if def == nil {
		return nil, fmt.Errorf("engine double: field %s.%s has no definition", obj.Type, f.Name)
	}
	args, err := x.args(obj, f)
	if err != nil {
		return nil, err
	}
	resType := x.e.schema.Types[def.Type.Name()]
	if resType == nil || !resType.IsCompositeType() {
		return x.e.leaf(obj, f, call{On: obj.Type, Field: f.Name, Args: args})
	}
	k := call{On: obj.Type, Field: f.Name, Args: args}
	if obj.Type == "Query" {
		if loaded, ok := x.load(k); ok {
			if loaded == nil {
				return nil, nil
			}
			return x.selectObject(loaded, f.SelectionSet, path)
		}
		switch f.Name {
		case "setSecret":
			k = x.e.setSecret(k)
		case "secret":
			x.e.mu.Lock()
			x.e.rec.secrets[Secret{Name: k.str("uri"), URI: k.str("uri")}] = true
			x.e.mu.Unlock()
		}
	}
	if def.Type.Elem != nil {
		items, err := x.e.listItems(obj, k, resType.Name)
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(items))
		for i, item := range items {
			v, err := x.selectObject(item, f.SelectionSet, append(append([]any(nil), path...), i))
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	if resType.IsAbstractType() {
		return nil, fmt.Errorf("engine double: %s.%s returns the interface %s, which only node(id:) serves", obj.Type, f.Name, resType.Name)
	}
	return x.selectObject(obj.extend(resType.Name, k), f.SelectionSet, path)
}

// load answers node(id:) and loadXFromID(id:): the object is the chain the ID encodes, so
// a loaded object continues exactly where the one that gave the ID left off.
func (x *execution) load(k call) (*chain, bool) {
	if k.Field != "node" && !(strings.HasPrefix(k.Field, "load") && strings.HasSuffix(k.Field, "FromID")) {
		return nil, false
	}
	c := k.object("id")
	return c, true
}

// args normalises a field's arguments: values as Go data, ID arguments decoded to the
// objects they name and checked against @expectedType, defaults dropped, names sorted.
func (x *execution) args(obj *chain, f *ast.Field) ([]arg, error) {
	var out []arg
	for _, a := range f.Arguments {
		adef := f.Definition.Arguments.ForName(a.Name)
		if adef == nil {
			continue
		}
		v, err := a.Value.Value(x.vars)
		if err != nil {
			return nil, fmt.Errorf("argument %s.%s(%s): %w", obj.Type, f.Name, a.Name, err)
		}
		if x.isIDType(adef.Type) {
			v, err = x.decodeIDs(v, expectedType(adef.Directives), fmt.Sprintf("%s.%s(%s:)", obj.Type, f.Name, a.Name))
			if err != nil {
				x.e.recordError(err)
				return nil, err
			}
		}
		if adef.DefaultValue != nil {
			if dv, err := adef.DefaultValue.Value(nil); err == nil && sameValue(dv, v) {
				continue
			}
		}
		if v == nil && !adef.Type.NonNull {
			continue
		}
		out = append(out, arg{Name: a.Name, Value: v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// isIDType reports ID arguments: the engine's ID scalar and the legacy XID scalars.
func (x *execution) isIDType(t *ast.Type) bool {
	for t.Elem != nil {
		t = t.Elem
	}
	if t.NamedType == "ID" {
		return true
	}
	name, ok := strings.CutSuffix(t.NamedType, "ID")
	def := x.e.schema.Types[name]
	return ok && def != nil && (def.Kind == ast.Object || def.Kind == ast.Interface)
}

func expectedType(dirs ast.DirectiveList) string {
	d := dirs.ForName("expectedType")
	if d == nil {
		return ""
	}
	if a := d.Arguments.ForName("name"); a != nil && a.Value != nil {
		return a.Value.Raw
	}
	return ""
}

func (x *execution) decodeIDs(v any, want, where string) (any, error) {
	switch id := v.(type) {
	case nil:
		return nil, nil
	case string:
		c, err := decodeID(id)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if want != "" && !x.satisfies(c.Type, want) {
			return nil, fmt.Errorf("%s: expected an ID of type %s, got one of type %s", where, want, c.Type)
		}
		return c, nil
	case []any:
		out := make([]any, len(id))
		for i, e := range id {
			d, err := x.decodeIDs(e, want, where)
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: an ID must be a string, got %T", where, v)
}

func sameValue(a, b any) bool {
	ja, err1 := json.Marshal(normalize(a))
	jb, err2 := json.Marshal(normalize(b))
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// setSecret keeps the plaintext out of the chain: the secret is known by name only, and
// its value sits in the engine for Secret.plaintext alone.
func (e *Engine) setSecret(k call) call {
	name, plaintext := k.str("name"), k.str("plaintext")
	e.mu.Lock()
	e.plaintext[name] = plaintext
	e.rec.secrets[Secret{Name: name}] = true
	e.mu.Unlock()
	out := call{On: k.On, Field: k.Field}
	for _, a := range k.Args {
		if a.Name != "plaintext" {
			out.Args = append(out.Args, a)
		}
	}
	return out
}

// listItems gives the elements of a list-of-objects field. Only the lists whose length the
// double knows are filled; the others are empty.
func (e *Engine) listItems(obj *chain, k call, elem string) ([]*chain, error) {
	n := 0
	if obj.Type == "Container" && k.Field == "envVariables" {
		st, err := e.fold(obj)
		if err != nil {
			return nil, err
		}
		if s, ok := st.(*ctrState); ok {
			n = len(s.env)
		}
	}
	out := make([]*chain, n)
	for i := range out {
		item := k
		item.Nth = i + 1
		out[i] = obj.extend(elem, item)
	}
	return out, nil
}
