package githubactions

import (
	"fmt"
	"strings"

	"dagger/shipyard/internal/modsurface"
)

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

// daggerCalls finds each `dagger call` of a step's script, as modsurface reads scripts
// (calls inside $(…) and after pipes included), as the words after `call`.
func daggerCalls(where, script string) ([][]string, error) {
	var out [][]string
	for _, c := range modsurface.ScriptCommands(where, 1, script) {
		if c.Verb == "call" {
			out = append(out, c.Words)
		}
	}
	return out, nil
}
