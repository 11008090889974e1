package modsurface

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// expansions shows a command's expansions one a line, by word.
func expansions(c Command) []string {
	var out []string
	for i := range c.Words {
		x, ok := c.Expansions[i]
		if !ok {
			continue
		}
		out = append(out, fmt.Sprintf("%d %s vars=%v unset=%v unknown=%v", i, x.Written, x.Vars, x.Unset, x.Unknown))
	}
	return out
}

func TestExpandReplacesVariablesAsTheShellDoes(t *testing.T) {
	env := map[string]Var{
		"FAIL":     {Value: "false"},
		"EMPTY":    {Value: ""},
		"ORG":      {Value: "elixircloud"},
		"TAGS":     {Value: " a  b "},
		"SHIPYARD": {Value: "github.com/o/shipyard@abc"},
		"INPUT":    {Unknown: true},
	}
	tests := []struct {
		name       string
		line       string
		words      string
		expansions []string
		module     string
	}{
		{"quoted", `dagger call x --fail="$FAIL"`, "x --fail=false",
			[]string{`1 --fail="$FAIL" vars=[FAIL] unset=[] unknown=false`}, ""},
		{"braces", `dagger call x --fail=${FAIL}`, "x --fail=false",
			[]string{`1 --fail=${FAIL} vars=[FAIL] unset=[] unknown=false`}, ""},
		{"unset", `dagger call x --fail="$NOPE"`, "x --fail=",
			[]string{`1 --fail="$NOPE" vars=[NOPE] unset=[NOPE] unknown=false`}, ""},
		{"unset unquoted keeps the flag", `dagger call x --fail=$NOPE`, "x --fail=",
			[]string{`1 --fail=$NOPE vars=[NOPE] unset=[NOPE] unknown=false`}, ""},
		{"single quotes keep it", `dagger call x --fail='$FAIL'`, "x --fail=$FAIL", nil, ""},
		{"escaped", `dagger call x --fail=\$FAIL`, "x --fail=$FAIL", nil, ""},
		{"unknown", `dagger call x --fail="$INPUT"`, "x --fail=$INPUT",
			[]string{`1 --fail="$INPUT" vars=[INPUT] unset=[] unknown=true`}, ""},
		{"default when unset", `dagger call x --fail="${NOPE:-true}"`, "x --fail=true",
			[]string{`1 --fail="${NOPE:-true}" vars=[NOPE] unset=[] unknown=false`}, ""},
		{"default when empty", `dagger call x --fail=${EMPTY:-true}`, "x --fail=true",
			[]string{`1 --fail=${EMPTY:-true} vars=[EMPTY] unset=[] unknown=false`}, ""},
		{"no default when set", `dagger call x --fail=${FAIL:-true}`, "x --fail=false",
			[]string{`1 --fail=${FAIL:-true} vars=[FAIL] unset=[] unknown=false`}, ""},
		{"- default only when unset", `dagger call x --fail=${EMPTY-true}`, "x --fail=",
			[]string{`1 --fail=${EMPTY-true} vars=[EMPTY] unset=[] unknown=false`}, ""},
		{"default of unknown", `dagger call x --fail=${INPUT:-true}`, "x --fail=${INPUT:-true}",
			[]string{`1 --fail=${INPUT:-true} vars=[INPUT] unset=[] unknown=true`}, ""},
		{"default that expands", `dagger call x --fail=${NOPE:-$FAIL}`, "x --fail=${NOPE:-$FAIL}",
			[]string{`1 --fail=${NOPE:-$FAIL} vars=[NOPE] unset=[] unknown=true`}, ""},
		{"inside a word", `dagger call x --ref "docker.io/$ORG/filer:latest"`, "x --ref docker.io/elixircloud/filer:latest",
			[]string{`2 "docker.io/$ORG/filer:latest" vars=[ORG] unset=[] unknown=false`}, ""},
		{"unquoted splits at blanks", `dagger call x --tags $TAGS`, "x --tags a b",
			[]string{`2 $TAGS vars=[TAGS] unset=[] unknown=false`, `3 $TAGS vars=[TAGS] unset=[] unknown=false`}, ""},
		{"unquoted empty vanishes", `dagger call x $EMPTY $NOPE --y`, "x --y", nil, ""},
		{"quoted empty stays", `dagger call x "$EMPTY" --y`, "x  --y",
			[]string{`1 "$EMPTY" vars=[EMPTY] unset=[] unknown=false`}, ""},
		{"the module address", `dagger call -m "$SHIPYARD" --source=. x`, "--source=. x", nil, "github.com/o/shipyard@abc"},
		{"command substitution", `dagger call x --fail="$(cat f)"`, "x --fail=$(cat f)",
			[]string{`1 --fail="$(cat f)" vars=[] unset=[] unknown=true`}, ""},
		{"backquotes", "dagger call x --fail=\"`cat f`\"", "x --fail=`cat f`",
			[]string{"1 --fail=\"`cat f`\" vars=[] unset=[] unknown=true"}, ""},
		{"GitHub expression", `dagger call x --fail="${{ inputs.fail }}"`, "x --fail=${{ inputs.fail }}",
			[]string{`1 --fail="${{ inputs.fail }}" vars=[] unset=[] unknown=true`}, ""},
		{"shell parameter", `dagger call x --fail=$1`, "x --fail=$1",
			[]string{`1 --fail=$1 vars=[] unset=[] unknown=true`}, ""},
		{"length", `dagger call x --n=${#FAIL}`, "x --n=${#FAIL}",
			[]string{`1 --n=${#FAIL} vars=[] unset=[] unknown=true`}, ""},
		{"other operators", `dagger call x --n=${FAIL%e}`, "x --n=${FAIL%e}",
			[]string{`1 --n=${FAIL%e} vars=[FAIL] unset=[] unknown=true`}, ""},
		{"a lone $", `dagger call x --n="a$" --m=$`, "x --n=a$ --m=$", nil, ""},
		{"two variables", `dagger call x --fail="$NOPE$FAIL$NONE"`, "x --fail=false",
			[]string{`1 --fail="$NOPE$FAIL$NONE" vars=[NOPE FAIL NONE] unset=[NOPE NONE] unknown=false`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds := ScriptCommands("w.yml", 3, tt.line)
			if len(cmds) != 1 {
				t.Fatalf("%d commands in %q", len(cmds), tt.line)
			}
			c := Env{Of: "the workflow's env", Vars: env}.Expand(cmds[0])
			if got := strings.Join(c.Words, " "); got != tt.words {
				t.Errorf("words %q, want %q", got, tt.words)
			}
			if got := expansions(c); !slices.Equal(got, tt.expansions) {
				t.Errorf("expansions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.expansions, "\n"))
			}
			if c.Module != tt.module {
				t.Errorf("module %q, want %q", c.Module, tt.module)
			}
			if c.Where != "w.yml:3" || c.Raw != cmds[0].Raw || c.Env != "the workflow's env" {
				t.Errorf("where %q, raw %q, env %q", c.Where, c.Raw, c.Env)
			}
		})
	}
}

// With the environment known, a Boolean flag's value is what the shell passes: a variable
// the environment does not set gives "" and the CLI refuses it.
func TestReadBooleanValuesFromTheEnvironment(t *testing.T) {
	constructor := Function{Args: map[string]Arg{"demo": {Type: "Boolean", Optional: true}}}
	refused := func(value string) string {
		return fmt.Sprintf(`the Dagger CLI refuses to start (invalid argument %q for "--dry-run" flag: strconv.ParseBool: parsing %q: invalid syntax; it takes 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)`, value, value)
	}
	tests := []struct {
		name    string
		line    string
		env     map[string]Var
		problem string // "" when the call is fine
	}{
		{"set", `dagger call update-repos --dry-run="$DRY_RUN"`, map[string]Var{"DRY_RUN": {Value: "true"}}, ""},
		{"not set", `dagger call update-repos --dry-run="$DRY_RUN"`, nil,
			`w.yml:7: --dry-run="$DRY_RUN" gives --dry-run=: DRY_RUN is not set in the workflow's env, and ` + refused("") +
				`; set DRY_RUN in the workflow's env so that --dry-run is true or false: dagger call update-repos --dry-run=`},
		{"not set, braces", `dagger call update-repos --dry-run=${DRY_RUN}`, nil,
			`w.yml:7: --dry-run=${DRY_RUN} gives --dry-run=: DRY_RUN is not set in the workflow's env, and ` + refused("") +
				`; set DRY_RUN in the workflow's env so that --dry-run is true or false: dagger call update-repos --dry-run=`},
		{"two not set", `dagger call update-repos --dry-run="$A$B"`, nil,
			`w.yml:7: --dry-run="$A$B" gives --dry-run=: A and B are not set in the workflow's env, and ` + refused("") +
				`; set A and B in the workflow's env so that --dry-run is true or false: dagger call update-repos --dry-run=`},
		{"set empty", `dagger call update-repos --dry-run="$DRY_RUN"`, map[string]Var{"DRY_RUN": {Value: ""}},
			`w.yml:7: --dry-run="$DRY_RUN" gives --dry-run= from the workflow's env, and ` + refused("") +
				`; set DRY_RUN in the workflow's env so that --dry-run is true or false: dagger call update-repos --dry-run=`},
		{"set to a word the CLI refuses", `dagger call update-repos --dry-run="$DRY_RUN"`, map[string]Var{"DRY_RUN": {Value: "yes"}},
			`w.yml:7: --dry-run="$DRY_RUN" gives --dry-run=yes from the workflow's env, and ` + refused("yes") +
				`; set DRY_RUN in the workflow's env so that --dry-run is true or false: dagger call update-repos --dry-run=yes`},
		{"known only at run time", `dagger call update-repos --dry-run="$DRY_RUN"`, map[string]Var{"DRY_RUN": {Unknown: true}}, ""},
		{"a default", `dagger call update-repos --dry-run="${DRY_RUN:-false}" --commit c`, nil, ""},
		{"single quotes pass the name", `dagger call update-repos --dry-run='$DRY_RUN'`, map[string]Var{"DRY_RUN": {Value: "true"}},
			`w.yml:7: --dry-run=$DRY_RUN: ` + refused("$DRY_RUN") +
				`; give --dry-run=true or --dry-run=false (--dry-run alone is true): dagger call update-repos --dry-run=$DRY_RUN`},
		{"the constructor's", `dagger call --demo="$DEMO" update-repos --dry-run`, map[string]Var{"DEMO": {Value: "1"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Env{Of: "the workflow's env", Vars: tt.env}.Expand(ScriptCommands("w.yml", 7, tt.line)[0])
			_, got := Read(c, sample, "Shipyard", constructor, nil)
			var want []string
			if tt.problem != "" {
				want = []string{tt.problem}
			}
			if !slices.Equal(got, want) {
				t.Errorf("problems\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func FuzzExpand(f *testing.F) {
	for _, s := range []string{
		`dagger call -m "$SHIPYARD" x --fail="$FAIL" --ref "a/$ORG/b"`,
		`dagger call x --fail=${FAIL:-false} --y=${X-} --z=${#X} ${1} $@`,
		"dagger call x --a=\"$(cat f)\" --b=`c` --c=\"${{ inputs.x }}\"",
		`dagger call x $TAGS '$FAIL' \$FAIL "${UNCLOSED`,
		`dagger call x --a=$((1+2)) --b=${X%.*} --c=$`,
	} {
		f.Add(s, "false", " a b ")
	}
	f.Fuzz(func(t *testing.T, script, fail, tags string) {
		env := Env{Vars: map[string]Var{"FAIL": {Value: fail}, "TAGS": {Value: tags}, "X": {Unknown: true}}}
		for _, c := range ScriptCommands("f", 1, script) {
			x := env.Expand(c)
			for i := range x.Expansions {
				if i < 0 || i >= len(x.Words) {
					t.Fatalf("expansion of word %d of %d", i, len(x.Words))
				}
			}
			if !strings.ContainsAny(c.Raw, "$`") && !slices.Equal(x.Words, c.Words) {
				t.Fatalf("words %q, as written %q", x.Words, c.Words)
			}
			if x.Env == "" && x.Expansions != nil {
				t.Fatal("expansions of a command not expanded")
			}
			Read(x, sample, "Shipyard", Function{Args: map[string]Arg{"fail": {Type: "Boolean"}}}, nil)
		}
	})
}
