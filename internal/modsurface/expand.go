package modsurface

import (
	"slices"
	"strings"
)

// Var is a variable of the environment a command runs in.
type Var struct {
	Value string
	// Unknown is set when the variable is set but its value is known only when the command
	// runs (a GitHub expression, a secret): words that use it keep it as written.
	Unknown bool
}

// Env is the environment a command's variables come from, such as a workflow step's env:
// (the workflow's, the job's and the step's). A variable it lacks is not set: the shell
// gives it the value "".
type Env struct {
	// Of names the environment in messages: "the workflow's env".
	Of   string
	Vars map[string]Var
}

// Expansion is how Env.Expand replaced the variables of one word.
type Expansion struct {
	// Written is the word as the command writes it, quotes kept.
	Written string
	// Vars are the variables the word uses; Unset are those the environment does not set,
	// each replaced by "".
	Vars, Unset []string
	// Unknown is set when part of the word is known only when the command runs (a variable
	// of unknown value, a command substitution, a GitHub expression, a shell parameter): that
	// part is left as written.
	Unknown bool
}

// Expand returns c with the variables of its words replaced from the environment, as the
// shell replaces them before the CLI reads its words: "$X" and "${X}" anywhere but inside
// single quotes, "${X:-word}" and "${X-word}" with their defaults. A word that uses a value
// the environment does not know keeps it as written and is marked Unknown. Globs are not
// expanded. c is returned as it is when it is no longer a dagger command once expanded.
func (e Env) Expand(c Command) Command {
	sp := splitWords(c.Raw, &e)
	x, ok := command(sp.words)
	if !ok {
		return c
	}
	x.Where, x.Raw = c.Where, c.Raw
	x.Env = e.Of
	if x.Env == "" {
		x.Env = "the environment"
	}
	skipped := len(sp.words) - len(x.Words) // dagger, its own flags, the verb
	for j, ex := range sp.exps[skipped:] {
		if len(ex.Vars) > 0 || ex.Unknown {
			if x.Expansions == nil {
				x.Expansions = map[int]Expansion{}
			}
			x.Expansions[j] = ex
		}
	}
	return x
}

// ref is one reference to a value in a word: a variable, a command substitution, a GitHub
// expression.
type ref struct {
	// end is where the reference ends in the text.
	end int
	// value is its value when known.
	value string
	known bool
	// name is the variable it reads, if any; unset is set when the environment lacks it.
	name  string
	unset bool
}

// add records what a reference of the word reads.
func (x *Expansion) add(r ref) {
	if r.name != "" && !slices.Contains(x.Vars, r.name) {
		x.Vars = append(x.Vars, r.name)
	}
	if r.unset && !slices.Contains(x.Unset, r.name) {
		x.Unset = append(x.Unset, r.name)
	}
	if !r.known {
		x.Unknown = true
	}
}

// reference reads the reference that starts at s[i] ('$' or '`').
func (e *Env) reference(s string, i int) ref {
	unknown := func(end int) ref { return ref{end: end} }
	if s[i] == '`' {
		if k := strings.IndexByte(s[i+1:], '`'); k >= 0 {
			return unknown(i + 1 + k + 1)
		}
		return unknown(len(s))
	}
	rest := s[i+1:]
	switch {
	case strings.HasPrefix(rest, "{{"): // GitHub's, replaced before the shell runs
		if k := strings.Index(rest, "}}"); k >= 0 {
			return unknown(i + 1 + k + 2)
		}
		return unknown(len(s))
	case strings.HasPrefix(rest, "("): // $(…) and $((…))
		depth := 0
		for k := 0; k < len(rest); k++ {
			switch rest[k] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					return unknown(i + 1 + k + 1)
				}
			}
		}
		return unknown(len(s))
	case strings.HasPrefix(rest, "{"):
		k := strings.IndexByte(rest, '}')
		if k < 0 {
			return unknown(len(s))
		}
		end := i + 1 + k + 1
		inner := rest[1:k]
		name := inner[:nameLen(inner)]
		op := inner[len(name):]
		if name == "" { // ${#X}, ${1}, ${@} …
			return unknown(end)
		}
		r := e.lookup(name)
		r.end = end
		switch {
		case op == "":
			return r
		case strings.HasPrefix(op, ":-") || strings.HasPrefix(op, "-"):
			word := strings.TrimPrefix(strings.TrimPrefix(op, ":"), "-")
			if r.unset || (r.known && r.value == "" && op[0] == ':') {
				// The default stands for the variable: nothing is left unset.
				if strings.ContainsAny(word, "$`\"'\\") {
					return ref{end: end, name: name}
				}
				return ref{end: end, name: name, value: word, known: true}
			}
			return r
		default: // ${X%…}, ${X:=…}, ${X/…} …
			return ref{end: end, name: name}
		}
	case nameLen(rest) > 0:
		n := nameLen(rest)
		r := e.lookup(rest[:n])
		r.end = i + 1 + n
		return r
	case rest != "" && strings.ContainsRune("0123456789@*#?$!-", rune(rest[0])):
		return unknown(i + 2)
	}
	return ref{end: i + 1, value: "$", known: true} // a $ that starts nothing
}

// lookup reads a variable from the environment.
func (e *Env) lookup(name string) ref {
	v, ok := e.Vars[name]
	switch {
	case !ok:
		return ref{name: name, unset: true, known: true}
	case v.Unknown:
		return ref{name: name}
	}
	return ref{name: name, value: v.Value, known: true}
}

// nameLen is the length of the shell variable name s starts with, 0 when none.
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}
