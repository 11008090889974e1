package cloudcoilinputs

import (
	"fmt"

	"dagger/shipyard/internal/testkit/pymodels"
)

// CheckResources compares the resource classes a generated package defines with those
// derived from the case's CRDs: the same apiVersion and kind pairs, each a Resource
// subclass, with the derived top-level fields (name, alias, required). It returns one line
// per difference.
func CheckResources(derived []Resource, shape pymodels.Shape) []string {
	classes := map[string]pymodels.Class{}
	where := map[string]string{}
	var problems []string
	for _, m := range shape.Modules {
		for _, c := range m.Classes {
			r, ok := c.Resource()
			switch {
			case !ok:
			case r.APIVersion == "" && r.Kind == "" && renamedResource(m, c.Name):
				// The generator's name clash: a nested type shares the kind's name, so
				// datamodel-code-generator names the resource <Kind>Model and the kind's
				// Resource base (extra template data keyed by name) falls on the nested
				// type (cert-manager's acme Challenge). The published package has it too.
			default:
				key := r.APIVersion + " " + r.Kind
				classes[key], where[key] = c, m.Path+" "+c.Name
			}
		}
	}
	for _, d := range derived {
		key := d.APIVersion + " " + d.Kind
		c, ok := classes[key]
		if !ok {
			problems = append(problems, fmt.Sprintf("no Resource class for %s %s", d.APIVersion, d.Kind))
			continue
		}
		delete(classes, key)
		got := map[string]pymodels.Field{}
		for _, f := range c.Fields {
			got[f.Name] = f
		}
		for _, want := range d.Fields {
			f, ok := got[want.Name]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("%s: no field %s (from the CRD's %s)", where[key], want.Name, aliasOr(want)))
			case f.Alias != want.Alias || f.Required != want.Required:
				problems = append(problems, fmt.Sprintf("%s.%s: alias %q, required %v; the CRD gives alias %q, required %v", where[key], f.Name, f.Alias, f.Required, want.Alias, want.Required))
			}
			delete(got, want.Name)
		}
		for name := range got {
			problems = append(problems, fmt.Sprintf("%s: field %s is in no property of the CRD", where[key], name))
		}
	}
	for key := range classes {
		problems = append(problems, fmt.Sprintf("%s: a Resource class for %s, which no served CRD version names", where[key], key))
	}
	return problems
}

func aliasOr(f ResourceField) string {
	if f.Alias != "" {
		return f.Alias
	}
	return f.Name
}

// renamedResource says whether module m holds the resource of kind name under the class
// name datamodel-code-generator gives it when another class takes the name: <name>Model.
func renamedResource(m pymodels.Module, name string) bool {
	for _, c := range m.Classes {
		if r, ok := c.Resource(); ok && c.Name == name+"Model" && r.Kind == name {
			return true
		}
	}
	return false
}
