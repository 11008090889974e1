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

// Quoted is text set under a line of a text report: each line led by "    | ", with no
// trailing blanks, so a release's notes or body reads as one block below its heading.
func Quoted(text string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(strings.TrimRight("    | "+line, " ") + "\n")
	}
	return b.String()
}

// YesNo is a yes-or-no setting as a text report prints it.
func YesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// Render prints v as indented JSON, or as text.
func Render(format string, v any, text func() string) (string, error) {
	if format == Text {
		return text(), nil
	}
	return Marshal(v)
}

// Marshal is v as every function prints JSON: indented by two spaces, with a final newline.
func Marshal(v any) (string, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", fmt.Errorf("rendering the result: %w", err)
	}
	return string(b) + "\n", nil
}
