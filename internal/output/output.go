// Package output is how a function prints its result: the formats a caller may ask for,
// checked before any work is done, and the rendering in the chosen one.
package output

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// The formats functions offer.
const (
	Text = "text"
	JSON = "json"
	// File writes the result as a file rather than printing it.
	File = "file"
)

// Check refuses a --format value that is not one of allowed (Text and JSON when none are
// given), naming the ones that are.
func Check(format string, allowed ...string) error {
	if len(allowed) == 0 {
		allowed = []string{Text, JSON}
	}
	if !slices.Contains(allowed, format) {
		return fmt.Errorf("--format %q: want %s", format, strings.Join(allowed, " or "))
	}
	return nil
}

// Render prints v as indented JSON, or as text.
func Render(format string, v any, text func() string) (string, error) {
	if format == Text {
		return text(), nil
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("rendering the result: %w", err)
	}
	return string(b) + "\n", nil
}
