// Package cli is what the module's commands (registry and supplychain) share at the command
// line: a repeatable flag, and a result written as JSON on stdout, so both print alike.
package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteJSON writes v to w as indented JSON, one document ending in a newline: what a
// command prints for the Dagger module (or the next job) to read.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// List is a flag that may be given several times; each value is kept, in order.
type List []string

// String is the values joined by commas, as flag's help prints a default.
func (l *List) String() string { return strings.Join(*l, ",") }

// Set adds one value.
func (l *List) Set(v string) error { *l = append(*l, v); return nil }
