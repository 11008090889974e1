// Package citation checks the CITATION.cff of a release: before a tag is released, the
// file must name the release's version (the tag without v) and the date it was released.
//
// Problems are reported as notes.Problem rather than a type of this package, so the release
// checks collect the problems of the notes and of CITATION.cff into one list and print them
// alike.
package citation

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/notes"
)

// FileName is the file this package checks, at the repository root.
const FileName = "CITATION.cff"

var (
	yamlErrorLine = regexp.MustCompile(`line (\d+)`)
	isoDate       = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
)

// Check returns the problems of a CITATION.cff for the release of version, e.g. "0.11.0rc1"
// for the tag v0.11.0rc1; nil when the file is ready for the release. The file must be YAML
// with a top-level mapping holding version, equal to the given version as scalar text (YAML
// may write it as a number or a string), and date-released, an ISO date YYYY-MM-DD (a YAML
// date or a quoted string).
func Check(content []byte, version string) (problems []notes.Problem) {
	add := func(line int, format string, args ...any) {
		problems = append(problems, notes.Problem{Line: max(line, 1), Message: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(version) == "" {
		add(1, "no release version to compare %s with: pass the tag without v, e.g. 0.11.0rc1", FileName)
		return problems
	}

	root, err := parse(content)
	if err != nil {
		add(syntaxErrorLine(content, err), "%s is not valid YAML (%s): fix the syntax", FileName, syntaxMessage(err))
		return problems
	}
	if root == nil {
		add(1, "%s is empty: add at least version: %q and date-released: YYYY-MM-DD", FileName, version)
		return problems
	}
	if root.Kind != yaml.MappingNode {
		add(root.Line, "%s is not a YAML mapping of keys to values: write it as key: value lines, with version and date-released at the top level", FileName)
		return problems
	}

	fields := map[string]*yaml.Node{}
	keyLines := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], resolve(root.Content[i+1])
		if first, ok := keyLines[key.Value]; ok {
			add(key.Line, "key %q is defined again (first on line %d): keep one; CFF validators refuse duplicate keys", key.Value, first)
			continue
		}
		keyLines[key.Value] = key.Line
		fields[key.Value] = value
	}

	if v, ok := fields["version"]; !ok {
		add(root.Line, "no top-level version: add version: %q (the tag without v)", version)
	} else if msg := checkVersion(v, version); msg != "" {
		add(v.Line, "%s", msg)
	}
	if d, ok := fields["date-released"]; !ok {
		add(root.Line, "no top-level date-released: add the release date as date-released: YYYY-MM-DD")
	} else if msg := checkDate(d); msg != "" {
		add(d.Line, "%s", msg)
	}
	return problems
}

// Version returns the top-level version a CITATION.cff names, as scalar text: the release
// it is prepared for, or the latest one. An error says why there is none.
func Version(content []byte) (string, error) {
	root, err := parse(content)
	if err != nil {
		return "", fmt.Errorf("%s is not valid YAML (%s)", FileName, syntaxMessage(err))
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return "", fmt.Errorf("%s is not a YAML mapping with a top-level version", FileName)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value != "version" {
			continue
		}
		v := resolve(root.Content[i+1])
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
			return "", fmt.Errorf("%s:%d: version has no single value", FileName, v.Line)
		}
		return v.Value, nil
	}
	return "", fmt.Errorf("%s has no top-level version", FileName)
}

// parse returns the document's root node, nil for an empty document. It recovers from a
// panic of the YAML library: the file is user input, and a malformed one must fail the check,
// not crash the release.
func parse(content []byte) (root *yaml.Node, err error) {
	defer func() {
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("yaml: parser failed: %v", r)
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	return resolve(doc.Content[0]), nil
}

// resolve follows aliases (version: *release) to the node they stand for.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// Bounds of the prefix search of syntaxErrorLine, which parses each prefix: a real
// CITATION.cff is far smaller, and a huge one falls back to yaml.v3's line.
const (
	maxLinesToLocate = 2000
	maxBytesToLocate = 64 << 10
)

// syntaxErrorLine returns the 1-based line of a YAML syntax error: the first line whose
// prefix of the file no longer parses. yaml.v3's own line is 0-based for parser errors and
// 1-based for scanner errors, and absent on the first line, so it cannot be trusted as is;
// for an unclosed bracket or quote the prefix search points at the line that opened it.
func syntaxErrorLine(content []byte, err error) int {
	lines := strings.SplitAfter(string(content), "\n")
	if len(lines) <= maxLinesToLocate && len(content) <= maxBytesToLocate {
		end := 0
		for i, l := range lines {
			end += len(l)
			if _, perr := parse(content[:end]); perr != nil {
				return i + 1
			}
		}
	}
	if m := yamlErrorLine.FindStringSubmatch(err.Error()); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// syntaxMessage drops yaml.v3's "yaml: line N: " prefix, whose number may be off by one.
func syntaxMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if loc := yamlErrorLine.FindStringIndex(msg); loc != nil && loc[0] == 0 {
		msg = strings.TrimPrefix(msg[loc[1]:], ": ")
	}
	return msg
}

func checkVersion(n *yaml.Node, want string) string {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return fmt.Sprintf("version has no single value: set version: %q (the tag without v)", want)
	}
	got := n.Value
	if got == want {
		return ""
	}
	var hint string
	switch {
	case strings.TrimPrefix(got, "v") == want:
		hint = " (drop the v)"
	case strings.HasPrefix(want, got):
		hint = fmt.Sprintf(" (it lacks the pre-release suffix %q)", strings.TrimPrefix(want, got))
	case strings.HasPrefix(got, want):
		hint = fmt.Sprintf(" (it has the extra suffix %q)", strings.TrimPrefix(got, want))
	case strings.TrimSpace(got) == want:
		hint = " (remove the surrounding spaces)"
	}
	return fmt.Sprintf("version is %q but the release is %q%s: set version: %q, the tag without v", got, want, hint, want)
}

func checkDate(n *yaml.Node) string {
	const fix = "set date-released: YYYY-MM-DD, the date of the release"
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return "date-released has no single value: " + fix
	}
	if !isoDate.MatchString(n.Value) {
		return fmt.Sprintf("date-released %q is not an ISO date YYYY-MM-DD: %s", n.Value, fix)
	}
	if _, err := time.Parse(time.DateOnly, n.Value); err != nil {
		return fmt.Sprintf("date-released %q is not a calendar date (%v): %s", n.Value, err, fix)
	}
	return ""
}
