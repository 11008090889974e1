// Package cli is what the module's commands (registry and supplychain) share at the command
// line: a repeatable flag. Their results are written with wire.WriteJSON, so all print alike.
package cli

import (
	"strings"
)

// List is a flag that may be given several times; each value is kept, in order.
type List []string

// String is the values joined by commas, as flag's help prints a default.
func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *List) Set(v string) error { *l = append(*l, v); return nil }
