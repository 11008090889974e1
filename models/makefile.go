package models

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Makefile is what Shipyard reads from a repository's Makefile: the targets it defines, so
// that the repository's own commands (`make lint test check-artifacts`) are run, and a
// missing one is named before anything runs.
type Makefile struct {
	// Targets are the explicit targets, in order of first definition, without special
	// targets (.PHONY, .DEFAULT, …) and names built from variables.
	Targets []string
	// Patterns are the pattern rules' targets (e.g. gen-repo-%), which make any matching
	// name a target.
	Patterns []string
	// Includes are the files an include directive names; targets defined there are not
	// read, so a missing target's error mentions them.
	Includes []string
}

// ParseMakefile reads the targets of a Makefile's text. It follows GNU make's syntax as
// far as targets go: recipe lines (a tab first) and comments are skipped, backslash
// continuations joined, define…endef blocks skipped, variable assignments (=, :=, ::=,
// :::=, ?=, +=, !=) told apart from rules (a single or double colon), and several targets
// of one rule split. Conditionals are read through: a target defined in either branch
// counts. It never fails: a line it cannot read defines no target.
func ParseMakefile(text string) Makefile {
	var m Makefile
	inDefine := false
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "\t") {
			continue // a recipe line (continuations of recipes start with a tab too)
		}
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + strings.TrimLeft(lines[i], " \t")
		}
		line = stripComment(line)
		trimmed := strings.TrimSpace(line)
		first, _, _ := strings.Cut(trimmed, " ")
		switch {
		case inDefine:
			if first == "endef" {
				inDefine = false
			}
			continue
		case first == "define" || strings.HasPrefix(trimmed, "define\t"):
			inDefine = true
			continue
		case first == "include" || first == "-include" || first == "sinclude":
			m.Includes = append(m.Includes, strings.Fields(trimmed)[1:]...)
			continue
		}
		targets, ok := ruleTargets(trimmed)
		if !ok {
			continue
		}
		for _, t := range targets {
			switch {
			case strings.HasPrefix(t, "."), strings.Contains(t, "$"):
				// special targets, and names only make can expand
			case strings.Contains(t, "%"):
				if !slices.Contains(m.Patterns, t) {
					m.Patterns = append(m.Patterns, t)
				}
			case !slices.Contains(m.Targets, t):
				m.Targets = append(m.Targets, t)
			}
		}
	}
	return m
}

// stripComment cuts a line at its first # that is not escaped with a backslash.
func stripComment(line string) string {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '#':
			return line[:i]
		}
	}
	return line
}

// ruleTargets returns the targets of a rule line, or ok false when the line is no rule
// (an assignment, a directive, blank).
func ruleTargets(line string) ([]string, bool) {
	if line == "" {
		return nil, false
	}
	// The first of '=' and ':' decides: an '=' before any ':' is an assignment
	// (X = a:b), and a ':' followed by '=' (:=, ::=, :::=) is one too.
	colon := -1
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '$' && i+1 < len(line) && (line[i+1] == '(' || line[i+1] == '{') {
			// Skip a variable reference, which may hold ':' or '=' (substitution refs).
			i = skipReference(line, i+1)
			continue
		}
		if c == '=' {
			return nil, false
		}
		if c == ':' {
			colon = i
			break
		}
	}
	if colon <= 0 {
		return nil, false
	}
	rest := strings.TrimLeft(line[colon:], ":")
	if strings.HasPrefix(rest, "=") {
		return nil, false // :=, ::=, :::=
	}
	fields := splitWords(line[:colon])
	if len(fields) == 0 {
		return nil, false
	}
	switch fields[0] {
	case "export", "unexport", "override", "private", "vpath", "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif":
		return nil, false
	}
	return fields, true
}

// splitWords splits at blanks outside variable references, so $(f a, b) is one word.
func splitWords(s string) []string {
	var words []string
	start := -1
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			if start >= 0 {
				words = append(words, s[start:i])
				start = -1
			}
			continue
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			if start < 0 {
				start = i
			}
			i = skipReference(s, i+1)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}
	return words
}

// skipReference returns the index of the bracket closing the one at open, or the last
// index when it is not closed.
func skipReference(line string, open int) int {
	depth := 0
	for i := open; i < len(line); i++ {
		switch line[i] {
		case '(', '{':
			depth++
		case ')', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(line) - 1
}

// Has says whether name is a target: an explicit one or a pattern rule's match.
func (m Makefile) Has(name string) bool {
	if slices.Contains(m.Targets, name) {
		return true
	}
	for _, p := range m.Patterns {
		if ok, _ := path.Match(strings.ReplaceAll(p, "%", "*"), name); ok && !strings.Contains(name, "/") {
			return true
		}
	}
	return false
}

// RequireTargets checks that the Makefile at file (its path, for the message) defines
// every target of want, in order; the error names each missing target, the file, the
// command that needs it, and what to do.
func RequireTargets(file, text, command string, want ...string) error {
	m := ParseMakefile(text)
	var missing []string
	for _, t := range want {
		if !m.Has(t) {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s: no target %s, which %s runs (make %s); add %s to %s",
		file, strings.Join(missing, ", no target "), command, strings.Join(want, " "), plural(missing, "it", "them"), file)
	if len(m.Includes) > 0 {
		msg += fmt.Sprintf(" (targets in the files it includes, %s, are not read: define the target in %s itself)", strings.Join(m.Includes, ", "), file)
	}
	return fmt.Errorf("%s", msg)
}

func plural(items []string, one, many string) string {
	if len(items) == 1 {
		return one
	}
	return many
}
