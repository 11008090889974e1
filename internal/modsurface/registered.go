package modsurface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// TypeDefsQuery asks an engine that serves the module for what it registered
// (`dagger query -m <module>` answers it as JSON). The engine has no field for a function's
// cache policy or check flag, so those are compared elsewhere: the check flag by
// `dagger check -l`, the cache policy by calls that watch outside state change.
const TypeDefsQuery = `{
  currentTypeDefs {
    kind
    asObject {
      name
      constructor { ...Fn }
      functions { ...Fn }
    }
  }
}
fragment Fn on Function {
  name
  returnType { ...T }
  args { name defaultValue defaultPath typeDef { ...T } }
}
fragment T on TypeDef {
  kind
  optional
  asObject { name }
  asScalar { name }
  asList { elementTypeDef { kind asObject { name } asScalar { name } } }
}
`

type typeDefJSON struct {
	Kind     string `json:"kind"`
	Optional bool   `json:"optional"`
	AsObject *struct {
		Name string `json:"name"`
	} `json:"asObject"`
	AsScalar *struct {
		Name string `json:"name"`
	} `json:"asScalar"`
	AsList *struct {
		ElementTypeDef *typeDefJSON `json:"elementTypeDef"`
	} `json:"asList"`
}

type functionJSON struct {
	Name       string      `json:"name"`
	ReturnType typeDefJSON `json:"returnType"`
	Args       []struct {
		Name         string          `json:"name"`
		DefaultValue json.RawMessage `json:"defaultValue"`
		DefaultPath  string          `json:"defaultPath"`
		TypeDef      typeDefJSON     `json:"typeDef"`
	} `json:"args"`
}

// FromTypeDefs reads the answer to TypeDefsQuery for the module's main object.
func FromTypeDefs(answer []byte, mainType string) (Surface, error) {
	var doc struct {
		CurrentTypeDefs []struct {
			Kind     string `json:"kind"`
			AsObject *struct {
				Name        string         `json:"name"`
				Constructor *functionJSON  `json:"constructor"`
				Functions   []functionJSON `json:"functions"`
			} `json:"asObject"`
		} `json:"currentTypeDefs"`
	}
	if err := json.Unmarshal(answer, &doc); err != nil {
		return Surface{}, fmt.Errorf("reading the engine's type definitions: %w", err)
	}
	for _, td := range doc.CurrentTypeDefs {
		if td.AsObject == nil || td.AsObject.Name != mainType {
			continue
		}
		s := Surface{Functions: map[string]Function{}}
		if td.AsObject.Constructor != nil {
			s.Constructor = registered(*td.AsObject.Constructor)
		}
		for _, fn := range td.AsObject.Functions {
			s.Functions[Kebab(fn.Name)] = registered(fn)
		}
		return s, nil
	}
	return Surface{}, fmt.Errorf("the engine registered no object %s", mainType)
}

func registered(fn functionJSON) Function {
	out := Function{Args: map[string]Arg{}, Returns: fn.ReturnType.name()}
	for _, a := range fn.Args {
		out.Args[Kebab(a.Name)] = Arg{
			Type:        a.TypeDef.name(),
			Optional:    a.TypeDef.Optional || a.DefaultPath != "",
			Default:     defaultJSON(a.DefaultValue),
			DefaultPath: a.DefaultPath,
		}
	}
	return out
}

// defaultJSON unwraps a default value: the JSON scalar arrives as a string holding JSON.
func defaultJSON(raw json.RawMessage) string {
	d := bytes.TrimSpace(raw)
	var inner string
	if err := json.Unmarshal(d, &inner); err == nil {
		d = []byte(inner)
	}
	if len(d) == 0 || string(d) == "null" {
		return ""
	}
	return compactJSON(string(d))
}

func (t typeDefJSON) name() string {
	switch t.Kind {
	case "STRING_KIND":
		return "String"
	case "BOOLEAN_KIND":
		return "Boolean"
	case "INTEGER_KIND":
		return "Integer"
	case "FLOAT_KIND":
		return "Float"
	case "VOID_KIND":
		return "Void"
	case "OBJECT_KIND":
		if t.AsObject != nil {
			return t.AsObject.Name
		}
	case "SCALAR_KIND":
		if t.AsScalar != nil {
			return t.AsScalar.Name
		}
	case "LIST_KIND":
		if t.AsList != nil && t.AsList.ElementTypeDef != nil {
			return "[" + t.AsList.ElementTypeDef.name() + "]"
		}
	}
	return t.Kind
}

func compactJSON(s string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return s
	}
	return b.String()
}

// Diff lists every difference in names, arguments, types, optionality and defaults
// between what the source declares and what was registered. Check and cache pragmas are
// not part of the registered form and are not compared.
func Diff(declared, registered Surface) []string {
	var out []string
	out = append(out, diffFunction("constructor", declared.Constructor, registered.Constructor)...)
	for _, name := range union(declared.Functions, registered.Functions) {
		d, inSource := declared.Functions[name]
		r, inEngine := registered.Functions[name]
		switch {
		case !inEngine:
			out = append(out, fmt.Sprintf("%s: declared in the source, not registered by the engine", name))
		case !inSource:
			out = append(out, fmt.Sprintf("%s: registered by the engine, not declared in the source", name))
		default:
			out = append(out, diffFunction(name, d, r)...)
		}
	}
	return out
}

func diffFunction(name string, d, r Function) []string {
	var out []string
	if d.Returns != r.Returns {
		out = append(out, fmt.Sprintf("%s: returns %s in the source, %s registered", name, d.Returns, r.Returns))
	}
	for _, arg := range union(d.Args, r.Args) {
		da, inSource := d.Args[arg]
		ra, inEngine := r.Args[arg]
		where := fmt.Sprintf("%s --%s", name, arg)
		switch {
		case !inEngine:
			out = append(out, where+": declared, not registered")
		case !inSource:
			out = append(out, where+": registered, not declared")
		default:
			if da.Type != ra.Type {
				out = append(out, fmt.Sprintf("%s: type %s declared, %s registered", where, da.Type, ra.Type))
			}
			if da.Required() != ra.Required() {
				out = append(out, fmt.Sprintf("%s: required=%t declared, %t registered", where, da.Required(), ra.Required()))
			}
			if compactJSON(da.Default) != ra.Default {
				out = append(out, fmt.Sprintf("%s: default %s declared, %s registered", where, da.Default, ra.Default))
			}
			if da.DefaultPath != ra.DefaultPath {
				out = append(out, fmt.Sprintf("%s: defaultPath %q declared, %q registered", where, da.DefaultPath, ra.DefaultPath))
			}
		}
	}
	return out
}

func union[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ReadmeFunctions returns the function names of the README's function table: the first
// cell of each row whose name is in backquotes, e.g. "| `release-plan` | … |". A row may
// name several functions separated by commas.
func ReadmeFunctions(readme string) []string {
	var names []string
	for _, line := range strings.Split(readme, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(strings.TrimPrefix(line, "|"), "|", 2)[0]
		for _, part := range strings.Split(cell, ",") {
			part = strings.TrimSpace(part)
			if strings.HasPrefix(part, "`") && strings.HasSuffix(part, "`") {
				names = append(names, strings.Trim(part, "`"))
			}
		}
	}
	sort.Strings(names)
	return names
}
