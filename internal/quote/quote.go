// Package quote writes a string as the double-quoted string of a file format Shipyard edits
// in place: TOML's basic strings (pyproject.toml) and YAML's double-quoted scalars
// (cookiecutter.yaml). Both escape `"` and `\` with a backslash and keep every other
// printable character as it is; they differ only in how a control character is written.
package quote

import (
	"fmt"
	"strings"
)

// TOML is s as a TOML basic string: a control character as \uXXXX, the one escape TOML 1.0
// has for any of them.
func TOML(s string) string { return double(s, `\u%04X`) }

// YAML is s as a YAML double-quoted scalar: a control character as \xXX.
func YAML(s string) string { return double(s, `\x%02x`) }

// double is s between double quotes, `"` and `\` escaped with a backslash and each control
// character (below U+0020, and U+007F) written with control, a format verb for the rune.
func double(s, control string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, control, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
