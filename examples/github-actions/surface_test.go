package githubactions

import (
	"fmt"
	"strings"
	"unicode"

	"dagger/shipyard/internal/modsurface"
)

// function is one `dagger call` function (or the constructor) and its flags.
type function struct {
	flags    map[string]bool // flag name → required
	variadic map[string]bool
	// returnsModule: the function returns the module, so a call may go on after it.
	returnsModule bool
}

// surface is the module's callable API as the Dagger CLI shows it.
type surface struct {
	constructor function
	functions   map[string]function
}

// readSurface reads the module's callable API from its source (internal/modsurface, the
// same reading the real-engine suite compares with what the engine registered).
func readSurface(root string) (surface, error) {
	src, err := modsurface.FromSource(root, "Shipyard")
	if err != nil {
		return surface{}, err
	}
	s := surface{constructor: flagsOf(src.Constructor), functions: map[string]function{}}
	for name, fn := range src.Functions {
		s.functions[name] = flagsOf(fn)
	}
	return s, nil
}

func flagsOf(fn modsurface.Function) function {
	out := function{flags: map[string]bool{}, variadic: map[string]bool{}, returnsModule: fn.Returns == "Shipyard"}
	for name, a := range fn.Args {
		out.flags[name] = a.Required()
		out.variadic[name] = strings.HasPrefix(a.Type, "[")
	}
	return out
}

var kebab = modsurface.Kebab

// call is one `dagger call` invocation found in a workflow.
type call struct {
	where       string
	constructor []string
	// with are the module's with-… functions chained before function (with-sigstore …):
	// each returns the module with settings stored, and the call goes on.
	with     []link
	function string
	flags    []string
	chain    []string
}

// link is one chained with-… function and its flags.
type link struct {
	function string
	flags    []string
}

// parseCall splits the words after `dagger call`: constructor flags, any with-… functions
// and their flags, the function, its flags, then any chained core functions (export
// --path, contents …).
func parseCall(where string, words []string) (call, error) {
	c := call{where: where}
	i := 0
	for ; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
		if takesValue, ok := cliFlags[flagName(words[i])]; ok {
			if takesValue && !strings.Contains(words[i], "=") {
				i++
			}
			continue
		}
		c.constructor = append(c.constructor, flagName(words[i]))
		if !strings.Contains(words[i], "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			i++ // the flag's value
		}
	}
	if i >= len(words) {
		return c, fmt.Errorf("%s: dagger call names no function", where)
	}
	for {
		c.function, c.flags = words[i], nil
		i++
		for ; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
			c.flags = append(c.flags, flagName(words[i]))
			if !strings.Contains(words[i], "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
				i++
			}
		}
		if !strings.HasPrefix(c.function, "with-") || i >= len(words) {
			break
		}
		c.with = append(c.with, link{function: c.function, flags: c.flags})
	}
	if i < len(words) {
		c.chain = words[i:]
	}
	return c, nil
}

// cliFlags are the Dagger CLI's own flags of `dagger call` (true: takes a value), which
// may stand between `call` and the function.
var cliFlags = map[string]bool{
	"m": true, "mod": true, "o": true, "output": true, "progress": true,
	"json": false, "j": false, "q": false, "quiet": false, "s": false, "silent": false,
	"v": false, "verbose": false, "d": false, "debug": false,
}

func flagName(w string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
	return name
}

// check reports every way the call does not match the module's surface.
func (s surface) check(c call) []string {
	var problems []string
	for _, f := range c.constructor {
		if _, ok := s.constructor.flags[f]; !ok {
			problems = append(problems, fmt.Sprintf("%s: constructor flag --%s is not a parameter of New", c.where, f))
		}
	}
	for _, l := range c.with {
		if fn, ok := s.functions[l.function]; ok && !fn.returnsModule {
			problems = append(problems, fmt.Sprintf("%s: %s does not return the module, so nothing can follow it", c.where, l.function))
		}
		problems = append(problems, s.checkFunction(c.where, l.function, l.flags)...)
	}
	return append(problems, s.checkFunction(c.where, c.function, c.flags)...)
}

// checkFunction lists what is wrong with one function of a call and the flags given to it.
func (s surface) checkFunction(where, name string, flags []string) []string {
	fn, ok := s.functions[name]
	if !ok {
		return []string{fmt.Sprintf("%s: function %q is not declared by the module", where, name)}
	}
	var problems []string
	given := map[string]bool{}
	for _, f := range flags {
		given[f] = true
		if _, ok := fn.flags[f]; !ok {
			problems = append(problems, fmt.Sprintf("%s: %s has no flag --%s", where, name, f))
		}
	}
	for f, required := range fn.flags {
		if required && !given[f] {
			problems = append(problems, fmt.Sprintf("%s: %s needs --%s", where, name, f))
		}
	}
	return problems
}

func shellWords(s string) []string {
	s = strings.ReplaceAll(s, "\\\n", " ")
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, b.String())
			b.Reset()
			inWord = false
		}
	}
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote = r
			inWord = true
		case unicode.IsSpace(r):
			flush()
		default:
			b.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return words
}

// daggerCalls finds each `dagger call` in a step's script (one command per line, pipes and
// && ending a command).
func daggerCalls(where, script string) ([][]string, error) {
	var out [][]string
	joined := strings.ReplaceAll(script, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		words := shellWords(line)
		for i := 0; i+1 < len(words); i++ {
			if words[i] != "dagger" {
				continue
			}
			j := i + 1
			for j < len(words) && strings.HasPrefix(words[j], "-") { // global flags: -q, --progress=plain
				j++
			}
			if j < len(words) && words[j] == "call" {
				end := j + 1
				for end < len(words) && !isShellOperator(words[end]) {
					end++
				}
				out = append(out, words[j+1:end])
			}
		}
	}
	return out, nil
}

func isShellOperator(w string) bool {
	switch w {
	case "|", "||", "&&", ";", ">", ">>", "2>&1", "|&", "tee":
		return true
	}
	return strings.HasPrefix(w, ">") || strings.HasPrefix(w, "2>")
}
