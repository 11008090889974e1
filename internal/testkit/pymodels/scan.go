package pymodels

import (
	"fmt"
	"strings"
)

// stmt is a logical line: its physical lines joined (brackets and triple-quoted strings
// continue a line), comments dropped, and the indentation of its first line.
type stmt struct {
	indent int
	text   string
}

// statements splits Python source into logical lines.
func statements(src string) ([]stmt, error) {
	var (
		out    []stmt
		cur    strings.Builder
		indent = -1
		depth  int
		quote  string // the open string's delimiter: ", ', """ or '''
		line   = 1
	)
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, stmt{indent: indent, text: t})
		}
		cur.Reset()
		indent = -1
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		if indent < 0 && quote == "" && depth == 0 {
			// The start of a physical line that opens a statement: measure it.
			j := i
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] != '\n' && src[j] != '#' && src[j] != '\r' {
				indent = j - i
			}
			i = j
			if i >= len(src) {
				break
			}
			ch = src[i]
		}
		switch {
		case quote != "":
			cur.WriteByte(ch)
			switch {
			case ch == '\\' && i+1 < len(src):
				i++
				cur.WriteByte(src[i])
				if src[i] == '\n' {
					line++
				}
			case strings.HasPrefix(src[i:], quote):
				cur.WriteString(quote[1:])
				i += len(quote) - 1
				quote = ""
			case ch == '\n':
				if len(quote) == 1 {
					return nil, fmt.Errorf("line %d: a string is not closed on its line", line)
				}
				line++
			}
		case ch == '"' || ch == '\'':
			quote = string(ch)
			if strings.HasPrefix(src[i:], strings.Repeat(quote, 3)) {
				quote = strings.Repeat(quote, 3)
			}
			cur.WriteString(quote)
			i += len(quote) - 1
		case ch == '#':
			for i+1 < len(src) && src[i+1] != '\n' {
				i++
			}
		case ch == '(' || ch == '[' || ch == '{':
			depth++
			cur.WriteByte(ch)
		case ch == ')' || ch == ']' || ch == '}':
			if depth == 0 {
				return nil, fmt.Errorf("line %d: %q closes nothing", line, ch)
			}
			depth--
			cur.WriteByte(ch)
		case ch == '\\' && i+1 < len(src) && src[i+1] == '\n':
			cur.WriteByte(' ')
			i++
			line++
		case ch == '\n':
			line++
			if depth == 0 {
				flush()
			} else {
				cur.WriteByte(' ')
			}
		default:
			cur.WriteByte(ch)
		}
	}
	if quote != "" || depth != 0 {
		return nil, fmt.Errorf("line %d: the source ends inside a string or a bracket", line)
	}
	flush()
	return out, nil
}

// walkTop calls f for each byte of s that lies outside string literals, with the bracket
// depth before it; f returns false to stop.
func walkTop(s string, f func(i, depth int) bool) {
	depth, quote := 0, ""
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if quote != "" {
			switch {
			case ch == '\\':
				i++
			case strings.HasPrefix(s[i:], quote):
				i += len(quote) - 1
				quote = ""
			}
			continue
		}
		if ch == '"' || ch == '\'' {
			quote = string(ch)
			if strings.HasPrefix(s[i:], strings.Repeat(quote, 3)) {
				quote = strings.Repeat(quote, 3)
			}
			i += len(quote) - 1
			continue
		}
		if ch == ')' || ch == ']' || ch == '}' {
			depth--
		}
		if !f(i, depth) {
			return
		}
		if ch == '(' || ch == '[' || ch == '{' {
			depth++
		}
	}
}

// compact removes the spaces outside string literals and the commas just before a closing
// bracket: the formatting ruff chooses, not the meaning.
func compact(s string) string {
	var b strings.Builder
	last := 0
	var drop []int
	walkTop(s, func(i, _ int) bool {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			drop = append(drop, i)
		}
		return true
	})
	for _, i := range drop {
		b.WriteString(s[last:i])
		last = i + 1
	}
	b.WriteString(s[last:])
	out := b.String()
	var c strings.Builder
	last = 0
	walkTop(out, func(i, _ int) bool {
		if out[i] == ',' && i+1 < len(out) && strings.ContainsRune(")]}", rune(out[i+1])) {
			c.WriteString(out[last:i])
			last = i + 1
		}
		return true
	})
	c.WriteString(out[last:])
	return c.String()
}

// splitTop splits s at the commas outside brackets and strings.
func splitTop(s string) []string {
	if s == "" {
		return nil
	}
	var parts []string
	last := 0
	walkTop(s, func(i, depth int) bool {
		if s[i] == ',' && depth == 0 {
			parts = append(parts, s[last:i])
			last = i + 1
		}
		return true
	})
	if rest := s[last:]; rest != "" || len(parts) == 0 {
		parts = append(parts, rest)
	}
	return parts
}

// cutTop cuts s around the first sep outside brackets and strings that is not part of a
// comparison (==, <=, >=, !=).
func cutTop(s string, sep byte) (before, after string, found bool) {
	at := -1
	walkTop(s, func(i, depth int) bool {
		if s[i] != sep || depth != 0 {
			return true
		}
		if (i+1 < len(s) && s[i+1] == '=') || (i > 0 && strings.ContainsRune("=<>!", rune(s[i-1]))) {
			return true
		}
		at = i
		return false
	})
	if at < 0 {
		return s, "", false
	}
	return s[:at], s[at+1:], true
}

// matchingClose is the index of the bracket that closes the one s opens with.
func matchingClose(s string) (int, bool) {
	at := -1
	walkTop(s, func(i, depth int) bool {
		if i > 0 && depth == 0 && strings.ContainsRune(")]}", rune(s[i])) {
			at = i
			return false
		}
		return true
	})
	return at, at >= 0
}
