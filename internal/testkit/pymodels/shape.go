// Package pymodels reads the shape of a generated Cloudcoil model package: its modules, the
// classes each defines with their bases, the fields of each class with their types,
// aliases and defaults, and the Resource subclasses with their apiVersion and kind. Two
// generations with the same shape give users the same models, whatever ruff's formatting
// or the order of imports; a change to generation, to the template or to the toolchain
// image that alters what a user can import, construct or send shows as a different shape.
//
// It reads the code as cloudcoil-model-codegen writes it (datamodel-code-generator's
// pydantic v2 output, formatted by ruff): top-level classes, and in their bodies the
// annotated assignments at the first indentation level; methods, nested builder classes
// and docstrings are not part of the shape.
package pymodels

import (
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Shape is a generated package's shape.
type Shape struct {
	Modules []Module
}

// Module is one .py file of the package, by its path inside the package.
type Module struct {
	Path    string
	Classes []Class
}

// Class is a top-level class.
type Class struct {
	Name   string
	Bases  []string
	Fields []Field
}

// Field is an annotated class attribute. Type and Default are the source text with every
// space outside string literals and every trailing comma before a closing bracket removed;
// Alias is Field(alias=...)'s value; Required is true when there is no default.
type Field struct {
	Name, Type, Alias, Default string
	Required                   bool
}

// Resource is a Resource subclass with the literals its api_version and kind fields hold.
type Resource struct {
	Module, Class, APIVersion, Kind string
}

// Read reads the shape of the package at the root of fsys.
func Read(fsys fs.FS) (Shape, error) {
	var s Shape
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".py" {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		m, err := ParseModule(p, string(b))
		if err != nil {
			return err
		}
		s.Modules = append(s.Modules, m)
		return nil
	})
	if err != nil {
		return Shape{}, fmt.Errorf("read the generated package: %w", err)
	}
	slices.SortFunc(s.Modules, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	return s, nil
}

var (
	classLine = regexp.MustCompile(`^class\s+(\w+)\s*(?:\((.*)\))?\s*:$`)
	fieldLine = regexp.MustCompile(`^(\w+)\s*:(.*)$`)
	aliasArg  = regexp.MustCompile(`(?:^|[(,])alias=("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')`)
)

// ParseModule reads one module's classes; name is its path, for errors.
func ParseModule(name, src string) (Module, error) {
	m := Module{Path: name}
	stmts, err := statements(src)
	if err != nil {
		return Module{}, fmt.Errorf("%s: %w", name, err)
	}
	var current *Class
	for _, st := range stmts {
		switch {
		case st.indent == 0:
			current = nil
			if c := classLine.FindStringSubmatch(st.text); c != nil {
				m.Classes = append(m.Classes, Class{Name: c[1], Bases: splitTop(compact(c[2]))})
				current = &m.Classes[len(m.Classes)-1]
			}
		case current != nil && st.indent == 4:
			f, ok := parseField(st.text)
			if ok {
				current.Fields = append(current.Fields, f)
			}
		}
	}
	return m, nil
}

// parseField reads `name: annotation [= default]`; a statement of another kind (a method,
// a nested class, a docstring, a decorator) is not a field.
func parseField(text string) (Field, bool) {
	m := fieldLine.FindStringSubmatch(text)
	if m == nil || m[1] == "class" || m[1] == "def" {
		return Field{}, false
	}
	annotation, def, hasDefault := cutTop(m[2], '=')
	f := Field{Name: m[1], Type: compact(annotation), Required: !hasDefault}
	if hasDefault {
		f.Default = unwrap(compact(def))
	}
	if inner, ok := strings.CutPrefix(f.Type, "Annotated["); ok && strings.HasSuffix(inner, "]") {
		args := splitTop(strings.TrimSuffix(inner, "]"))
		if len(args) == 0 {
			return f, true // Annotated[] is no annotation Python accepts: keep the text
		}
		f.Type = args[0]
		for _, a := range args[1:] {
			if am := aliasArg.FindStringSubmatch(a); am != nil && strings.HasPrefix(a, "Field(") {
				f.Alias = strings.Trim(am[1], `"'`)
			}
		}
	}
	return f, true
}

// Resources are the package's Resource subclasses.
func (s Shape) Resources() []Resource {
	var out []Resource
	for _, m := range s.Modules {
		for _, c := range m.Classes {
			if r, ok := c.Resource(); ok {
				r.Module = m.Path
				out = append(out, r)
			}
		}
	}
	return out
}

// Resource is the class as a Resource subclass (Module left empty); ok is false when it is
// none.
func (c Class) Resource() (r Resource, ok bool) {
	if !slices.Contains(c.Bases, "Resource") {
		return Resource{}, false
	}
	r.Class = c.Name
	for _, f := range c.Fields {
		switch f.Name {
		case "api_version":
			r.APIVersion = literal(f.Type)
		case "kind":
			r.Kind = literal(f.Type)
		}
	}
	return r, true
}

var literalType = regexp.MustCompile(`Literal\[("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')\]`)

// literal is the string of the Literal[...] in a type, or "".
func literal(typ string) string {
	if m := literalType.FindStringSubmatch(typ); m != nil {
		return m[1][1 : len(m[1])-1]
	}
	return ""
}

// unwrap drops the parentheses ruff puts around a long default.
func unwrap(s string) string {
	for strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
		inner := s[1 : len(s)-1]
		if parts := splitTop(inner); len(parts) != 1 || parts[0] != inner {
			break // a tuple, or a call's own parentheses
		}
		if closes, ok := matchingClose(s); !ok || closes != len(s)-1 {
			break
		}
		s = inner
	}
	return s
}
