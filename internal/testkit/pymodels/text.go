package pymodels

import (
	"fmt"
	"strings"
)

// Text is the shape as lines a fixture holds and a reviewer reads: each module, its
// classes with their bases, their fields ("name: Type alias=x = default", without " = "
// when required), and the package's resources with their apiVersion and kind.
func (s Shape) Text() string {
	var b strings.Builder
	for _, m := range s.Modules {
		fmt.Fprintf(&b, "module %s\n", m.Path)
		for _, c := range m.Classes {
			fmt.Fprintf(&b, "class %s(%s)\n", c.Name, strings.Join(c.Bases, ", "))
			for _, f := range c.Fields {
				fmt.Fprintf(&b, "  %s: %s", f.Name, f.Type)
				if f.Alias != "" {
					fmt.Fprintf(&b, " alias=%s", f.Alias)
				}
				if !f.Required {
					fmt.Fprintf(&b, " = %s", f.Default)
				}
				b.WriteByte('\n')
			}
		}
	}
	for _, r := range s.Resources() {
		fmt.Fprintf(&b, "resource %s %s %s %s\n", r.Module, r.Class, r.APIVersion, r.Kind)
	}
	return b.String()
}

// Diff lists, at most max of them, the lines of want that got lacks and of got that want
// lacks, in order: what a change to generation altered.
func Diff(want, got string, max int) []string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	count := func(lines []string) map[string]int {
		m := map[string]int{}
		for _, l := range lines {
			m[l]++
		}
		return m
	}
	wc, gc := count(wl), count(gl)
	var out []string
	for _, l := range wl {
		if gc[l] > 0 {
			gc[l]--
			continue
		}
		out = append(out, "- "+l)
	}
	gc = count(gl)
	for _, l := range gl {
		if wc[l] > 0 {
			wc[l]--
			continue
		}
		out = append(out, "+ "+l)
	}
	if len(out) > max {
		out = append(out[:max], fmt.Sprintf("… and %d more", len(out)-max))
	}
	return out
}
