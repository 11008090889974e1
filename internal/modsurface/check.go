package modsurface

import (
	"fmt"
	"strconv"
	"strings"
)

// Types are the object types a call can go through, by name, each with its functions by
// CLI name: the module's main object, and the engine's core types a call chains on
// (Directory, Container, File …).
type Types map[string]map[string]Function

// With adds the module's surface as the object mainType.
func (t Types) With(mainType string, s Surface) Types {
	out := make(Types, len(t)+1)
	for k, v := range t {
		out[k] = v
	}
	out[mainType] = s.Functions
	return out
}

// Call is a dagger call read against the types: how the module is reached, the
// constructor's flags, and each function of the chain with its flags.
type Call struct {
	Command
	// Toolchain is the name the call goes through when Shipyard is installed as a
	// toolchain (`dagger call shipyard …`), empty otherwise.
	Toolchain   string
	Constructor Link
	Links       []Link
}

// Link is one function of a call (or the constructor) and the flags given to it.
type Link struct {
	// Name is the function's CLI name; empty for the constructor.
	Name string
	// On is the type the function is called on.
	On string
	// Flags maps each flag given to its value as written ("" for a bare boolean).
	Flags map[string]string
	// Elided is set when "…" stands among the flags: the reader fills in the rest, so
	// required flags may be among them.
	Elided bool
}

// Has reports whether the flag was given.
func (l Link) Has(flag string) bool {
	_, ok := l.Flags[flag]
	return ok
}

// Function returns the call's link of the function name and whether it is there.
func (c Call) Function(name string) (Link, bool) {
	for _, l := range c.Links {
		if l.Name == name {
			return l, true
		}
	}
	return Link{}, false
}

// elision is what documents write for words the reader fills in.
const elision = "…"

// Read parses a dagger call against the types: the module's functions on mainType (its
// constructor is constructor), the toolchain names it may be installed under, and
// returns the call with every problem: a function the type does not declare, a flag it
// does not take, a required flag missing, a chain on a result that has no functions.
func Read(c Command, types Types, mainType string, constructor Function, toolchains []string) (Call, []string) {
	call := Call{Command: c}
	words := c.Words
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, c.Where+": "+fmt.Sprintf(format, args...)+": "+c.Text)
	}
	i := 0
	if c.Module == "" && i < len(words) {
		for _, tc := range toolchains {
			if words[i] == tc {
				if _, isFunction := types[mainType][tc]; !isFunction {
					call.Toolchain = tc
					i++
				}
			}
		}
	}
	call.Constructor, i = readFlags(c, i, Link{On: mainType, Flags: map[string]string{}}, constructor, bad)
	problems = append(problems, requiredMissing(call.Constructor, constructor, "the constructor", c)...)
	on := mainType
	for i < len(words) {
		name := words[i]
		if strings.HasPrefix(name, "<") || name == elision {
			return call, problems // a placeholder: the reader names the function
		}
		fns, isObject := types[on]
		if !isObject {
			bad("%s returns %s, which has no functions: nothing can follow it", call.Links[len(call.Links)-1].Name, on)
			return call, problems
		}
		fn, ok := fns[name]
		if !ok {
			bad("function %q is not declared by %s", name, on)
			return call, problems
		}
		var link Link
		link, i = readFlags(c, i+1, Link{Name: name, On: on, Flags: map[string]string{}}, fn, bad)
		problems = append(problems, requiredMissing(link, fn, name, c)...)
		call.Links = append(call.Links, link)
		on = fn.Returns
	}
	if len(call.Links) == 0 && !call.Constructor.Elided {
		bad("the call names no function")
	}
	return call, problems
}

// readFlags reads the flags of one function from the command's words[i:], up to the next
// function name. A boolean flag takes a value only with "=", as the CLI's flags do, and
// that value must be one the CLI parses.
func readFlags(c Command, i int, l Link, fn Function, bad func(string, ...any)) (Link, int) {
	words := c.Words
	for ; i < len(words); i++ {
		w := words[i]
		if w == elision || strings.HasPrefix(w, elision) {
			l.Elided = true
			continue
		}
		if !strings.HasPrefix(w, "-") {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		arg, known := fn.Args[name]
		if !known {
			what := "the constructor"
			if l.Name != "" {
				what = l.Name
			}
			bad("%s has no flag --%s", what, name)
		}
		if known && arg.Type == "Boolean" && hasValue {
			if p := c.booleanValue(i, name, value); p != "" {
				bad("%s", p)
			}
		}
		takesValue := !known || arg.Type != "Boolean"
		if takesValue && !hasValue && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") && words[i+1] != elision {
			i++
			value = words[i]
		}
		l.Flags[name] = value
	}
	return l, i
}

// boolValues are the values strconv.ParseBool takes: the CLI's flags (pflag) parse a
// Boolean's value with it and refuse to start on any other, "" included.
const boolValues = "1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False"

// booleanValue judges the value given with "=" to the Boolean flag of word i: "" when the
// CLI parses it, or when only the shell knows it (a variable not expanded by Env.Expand or
// of unknown value, a command substitution, a GitHub expression); otherwise the problem and
// its fix, which for a value from the environment is the environment's.
func (c Command) booleanValue(i int, flag, value string) string {
	x := c.Expansions[i]
	if x.Unknown || (c.Env == "" && strings.ContainsAny(value, "$`")) {
		return ""
	}
	_, err := strconv.ParseBool(value)
	if err == nil {
		return ""
	}
	refused := fmt.Sprintf("the Dagger CLI refuses to start (invalid argument %q for \"--%s\" flag: %v; it takes %s)", value, flag, err, boolValues)
	switch {
	case len(x.Unset) > 0:
		return fmt.Sprintf("%s gives --%s=%s: %s not set in %s, and %s; set %s in %s so that --%s is true or false",
			x.Written, flag, value, isNotSet(x.Unset), c.Env, refused, listed(x.Unset), c.Env, flag)
	case len(x.Vars) > 0:
		return fmt.Sprintf("%s gives --%s=%s from %s, and %s; set %s in %s so that --%s is true or false",
			x.Written, flag, value, c.Env, refused, listed(x.Vars), c.Env, flag)
	}
	return fmt.Sprintf("--%s=%s: %s; give --%s=true or --%s=false (--%s alone is true)", flag, value, refused, flag, flag, flag)
}

// listed names variables in a sentence: "A", "A and B", "A, B and C".
func listed(names []string) string {
	if len(names) == 1 {
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func isNotSet(names []string) string {
	if len(names) == 1 {
		return names[0] + " is"
	}
	return listed(names) + " are"
}

func requiredMissing(l Link, fn Function, what string, c Command) []string {
	if l.Elided {
		return nil
	}
	var out []string
	for _, name := range sortedKeys(fn.Args) {
		a := fn.Args[name]
		switch {
		case l.Has(name):
		case a.Required():
			out = append(out, fmt.Sprintf("%s: %s needs --%s: %s", c.Where, what, name, c.Text))
		case a.RequiredUnless != "" && !l.Has(a.RequiredUnless):
			out = append(out, fmt.Sprintf("%s: %s needs --%s unless --%s: %s", c.Where, what, name, a.RequiredUnless, c.Text))
		}
	}
	return out
}

// CheckNames reads a `dagger check` against the module's checks: each name given must be a
// function carrying +check, as <toolchain>:<function> when the check runs through a
// toolchain.
func CheckNames(c Command, s Surface, toolchains []string) []string {
	var problems []string
	for _, w := range c.Words {
		if strings.HasPrefix(w, "-") || w == elision {
			continue
		}
		name := w
		for _, tc := range toolchains {
			name = strings.TrimPrefix(name, tc+":")
		}
		if fn, ok := s.Functions[name]; !ok || !fn.Check {
			problems = append(problems, fmt.Sprintf("%s: %s is not a check of the module (a function with +check): %s", c.Where, w, c.Text))
		}
	}
	return problems
}
