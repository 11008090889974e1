package modsurface

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Command is one `dagger call` or `dagger check` as a script or a document writes it.
type Command struct {
	// Where is file:line of the command's first line.
	Where string
	// Verb is "call" or "check".
	Verb string
	// Module is the -m (--mod) value; empty when the CLI loads the module of the directory
	// it runs in (Shipyard's clone, or a project that installed Shipyard as a toolchain).
	Module string
	// Words are the words after the verb, the CLI's own flags taken out.
	Words []string
	// Text is the command's words, quotes removed, on one line.
	Text string
	// Raw is the command as written, quotes kept: what a reader copies and runs.
	Raw string
	// Env names the environment Env.Expand replaced the words' variables from ("the
	// workflow's env"); empty while the words are as written.
	Env string
	// Expansions are, by index in Words, how Env.Expand replaced the variables of each word
	// that uses any.
	Expansions map[int]Expansion
}

// cliFlags are the Dagger CLI's own flags that may stand before or after the verb (true:
// takes a value).
var cliFlags = map[string]bool{
	"m": true, "mod": true, "o": true, "output": true, "progress": true, "W": true,
	"json": false, "j": false, "q": false, "quiet": false, "s": false, "silent": false,
	"v": false, "verbose": false, "d": false, "debug": false, "l": false, "list": false,
}

// daggerAt finds where a dagger command may start: the word dagger at the start of the
// line or after a space, an opening parenthesis ($(…), a subshell), or a shell operator.
var daggerAt = regexp.MustCompile("(?:^|[\\s(;&|`])(dagger)\\s")

// ScriptCommands finds every `dagger call` and `dagger check` in a shell script (a
// workflow's run:, a document's code block): commands inside $(…), after a pipe or &&,
// continued over lines with a backslash. Comment lines are skipped. name and firstLine
// place each command for messages.
func ScriptCommands(name string, firstLine int, script string) []Command {
	var out []Command
	lines := strings.Split(script, "\n")
	for i := 0; i < len(lines); i++ {
		start := i
		line := lines[i]
		for strings.HasSuffix(strings.TrimRight(line, " \t"), "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(strings.TrimRight(line, " \t"), "\\") + " " + strings.TrimSpace(lines[i])
		}
		line = stripComment(line)
		inCommand := commandPositions(line)
		for _, m := range daggerAt.FindAllStringSubmatchIndex(line, -1) {
			if !inCommand[m[2]] {
				continue // inside quotes: text, not a command
			}
			words, end := commandWords(line[m[2]:])
			if c, ok := command(words); ok {
				c.Where = fmt.Sprintf("%s:%d", name, firstLine+start)
				c.Raw = strings.TrimSpace(line[m[2] : m[2]+end])
				out = append(out, c)
			}
		}
	}
	return out
}

// commandPositions marks the bytes of a line where a command may stand: outside quotes, or
// inside a $(…) (which starts a command even within double quotes).
func commandPositions(line string) []bool {
	out := make([]bool, len(line)+1)
	stack := []byte{'c'} // c: a command; ": double quotes; ': single quotes
	for i := 0; i < len(line); i++ {
		top := stack[len(stack)-1]
		out[i] = top == 'c'
		c := line[i]
		switch {
		case top == '\'':
			if c == '\'' {
				stack = stack[:len(stack)-1]
			}
		case c == '\\':
			i++
			if i < len(line) {
				out[i] = top == 'c'
			}
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			stack = append(stack, 'c')
			i++
		case top == '"' && c == '"':
			stack = stack[:len(stack)-1]
		case top == 'c' && (c == '"' || c == '\''):
			stack = append(stack, c)
		case top == 'c' && c == ')' && len(stack) > 1:
			stack = stack[:len(stack)-1]
		}
	}
	return out
}

// stripComment cuts a shell comment off a line: from an unquoted # that starts a word.
func stripComment(line string) string {
	var quote rune
	prev := ' '
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '"' || r == '\'':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return line[:i]
		}
		prev = r
	}
	return line
}

// command reads the words of `dagger [flags] call|check …`; ok is false for another verb
// (toolchain install, init) or a mention with nothing after the verb.
func command(words []string) (Command, bool) {
	c := Command{Text: strings.Join(words, " ")}
	i := 1 // words[0] is dagger
	takeFlags := func() {
		for i < len(words) && strings.HasPrefix(words[i], "-") {
			name, value, hasValue := strings.Cut(strings.TrimLeft(words[i], "-"), "=")
			takesValue, known := cliFlags[name]
			if !known {
				return
			}
			i++
			if takesValue && !hasValue && i < len(words) {
				value = words[i]
				i++
			}
			if name == "m" || name == "mod" {
				c.Module = value
			}
		}
	}
	takeFlags()
	if i >= len(words) || (words[i] != "call" && words[i] != "check") {
		return Command{}, false
	}
	c.Verb = words[i]
	i++
	takeFlags()
	c.Words = words[i:]
	if c.Verb == "call" && len(c.Words) == 0 {
		return Command{}, false // a mention of `dagger call` in prose
	}
	return c, true
}

// commandWords splits s into shell words, up to the end of the command: an unquoted
// operator (| ; & < >), a comment, or a parenthesis closing a $(…) the command is inside.
// Quotes are removed; what they hold, $(…) included, stays one word. end is where the
// command ends in s.
func commandWords(s string) (words []string, end int) {
	sp := splitWords(s, nil)
	return sp.words, sp.end
}

// split is a command's words, and how each was expanded (when it was).
type split struct {
	words []string
	exps  []Expansion
	end   int
}

// splitWords splits s as commandWords does. With an environment it also replaces the
// variables outside single quotes, as the shell does before the command reads its words:
// an unquoted value is split into words at blanks and vanishes when empty.
func splitWords(s string, env *Env) split {
	w := wordSplitter{s: s, env: env, start: -1}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if w.start < 0 && r != ' ' && r != '\t' {
			w.start = i
		}
		if w.env != nil && !w.escaped && w.quote != '\'' && (r == '$' || r == '`') {
			i = w.expand(i)
			continue
		}
		if w.read(i, r) {
			return w.out
		}
		i += size
	}
	w.flush(len(s))
	w.out.end = len(s)
	return w.out
}

// wordSplitter is splitWords' state: the words so far, the word being read, and the quote
// or escape it is in.
type wordSplitter struct {
	s       string
	env     *Env
	out     split
	b       strings.Builder
	inWord  bool
	start   int // where in s the word being read starts
	x       Expansion
	quote   rune
	escaped bool
}

// flush ends the word being read at at.
func (w *wordSplitter) flush(at int) {
	if w.inWord {
		w.x.Written = w.s[w.start:at]
		w.out.words = append(w.out.words, w.b.String())
		w.out.exps = append(w.out.exps, w.x)
	}
	w.b.Reset()
	w.inWord, w.start, w.x = false, -1, Expansion{}
}

// expand reads the variable reference at i, as the shell expands it there, and returns
// where it ends.
func (w *wordSplitter) expand(i int) int {
	ref := w.env.reference(w.s, i)
	w.x.add(ref)
	switch {
	case !ref.known:
		w.b.WriteString(w.s[i:ref.end])
		w.inWord = true
	case w.quote == '"':
		w.b.WriteString(ref.value)
		w.inWord = true
	default:
		for _, c := range ref.value {
			if c == ' ' || c == '\t' || c == '\n' {
				if w.inWord {
					w.flush(ref.end)
					w.start = i
					w.x.add(ref)
				}
				continue
			}
			w.b.WriteRune(c)
			w.inWord = true
		}
	}
	return ref.end
}

// read takes rune r at i; it returns true when the command ends there.
func (w *wordSplitter) read(i int, r rune) (end bool) {
	switch {
	case w.escaped:
		w.b.WriteRune(r)
		w.escaped = false
	case w.quote == '\'':
		if r == w.quote {
			w.quote = 0
		} else {
			w.b.WriteRune(r)
		}
	case w.quote == '"':
		switch r {
		case w.quote:
			w.quote = 0
		case '\\':
			w.escaped = true
		default:
			w.b.WriteRune(r)
		}
	case r == '\\':
		w.escaped, w.inWord = true, true
	case r == '"' || r == '\'':
		w.quote, w.inWord = r, true
	case r == ' ' || r == '\t':
		w.flush(i)
	case strings.ContainsRune("|;&<>)", r):
		w.flush(i)
		w.out.end = i
		return true
	case r == '#' && !w.inWord:
		w.out.end = i
		return true
	default:
		w.b.WriteRune(r)
		w.inWord = true
	}
	return false
}

// MarkdownCommands finds the dagger commands of a Markdown document: every line of its
// fenced code blocks (but those showing output: text, json, mermaid) and every inline code
// span of its text.
func MarkdownCommands(name, doc string) []Command {
	var out []Command
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if fence, ok := fenceOf(trimmed); ok {
			lang := strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1]))
			start := i + 1
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
			}
			if lang != "text" && lang != "json" && lang != "mermaid" {
				out = append(out, ScriptCommands(name, start+1, strings.Join(lines[start:min(i, len(lines))], "\n"))...)
			}
			continue
		}
		for _, span := range inlineCode(lines[i]) {
			out = append(out, ScriptCommands(name, i+1, span)...)
		}
	}
	return out
}

func fenceOf(line string) (string, bool) {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			return f, true
		}
	}
	return "", false
}

// inlineCode returns the contents of the `…` spans of a line (single backquotes).
func inlineCode(line string) []string {
	var spans []string
	for {
		open := strings.IndexByte(line, '`')
		if open < 0 {
			return spans
		}
		rest := line[open+1:]
		end := strings.IndexByte(rest, '`')
		if end < 0 {
			return spans
		}
		spans = append(spans, rest[:end])
		line = rest[end+1:]
	}
}
