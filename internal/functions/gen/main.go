// Command gen writes internal/functions' declarations.go from the doc pragmas of the
// module's functions, so that what a function is stays declared once, beside it: go
// generate ./internal/functions runs it, and its test fails when the file is out of date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"dagger/shipyard/internal/modsurface"
	"dagger/shipyard/internal/trust"
)

// mainType is the module's main object, whose exported methods are its functions.
const mainType = "Shipyard"

func main() {
	root := flag.String("root", ".", "the module's root folder")
	out := flag.String("out", "declarations.go", "the file to write")
	flag.Parse()
	src, err := generate(*root)
	if err == nil {
		err = os.WriteFile(*out, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

// generate is declarations.go for the module whose root package is in root.
func generate(root string) ([]byte, error) {
	s, err := modsurface.FromSource(root, mainType)
	if err != nil {
		return nil, err
	}
	rows, err := declarationsOf(s)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, name := range s.Names() {
		names = append(names, fmt.Sprintf("%s = %q", s.Functions[name].Method, name))
	}
	return render(rows, names)
}

// credentials spells each credential a +trust pragma may name as Go.
var credentials = map[trust.Credential]string{
	trust.GitHubToken:      "trust.GitHubToken",
	trust.RegistryPassword: "trust.RegistryPassword",
	trust.IdentityToken:    "trust.IdentityToken",
}

// caches spells each +cache value as Go; a duration is not one: the module's rules know
// only these three.
var caches = map[string]string{"": "Cached", "session": "Session", "never": "Never"}

// declarationsOf reads each function's declaration, as Go fields, from its pragmas; every
// problem is named, with the file and function.
func declarationsOf(s modsurface.Surface) ([]string, error) {
	var rows, problems []string
	for _, name := range s.Names() {
		fn := s.Functions[name]
		row, err := declarationOf(name, fn)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %s (%s): %v", fn.File, fn.Method, name, err))
			continue
		}
		rows = append(rows, row)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%d function(s) not declared as internal/functions says:\n%s", len(problems), strings.Join(problems, "\n"))
	}
	return rows, nil
}

// knownPragmas are the doc pragmas a function may carry: Dagger v0.21.8's (codegen's
// module_funcs.go reads cache, check, generate, up and deprecated) and the module's own.
// Any other is refused: a misspelt +sign would leave a function undeclared to sign.
var knownPragmas = map[string]bool{
	"cache": true, "check": true, "generate": true, "up": true, "deprecated": true,
	"trust": true, "signs": true, "allPlatforms": true, "cacheReason": true,
}

func declarationOf(name string, fn modsurface.Function) (string, error) {
	p := fn.Pragmas
	for _, k := range slices.Sorted(maps.Keys(p)) {
		if !knownPragmas[k] {
			return "", fmt.Errorf("+%s is not a pragma of a function: Dagger's are cache, check, generate, up and deprecated; the module's trust, signs, allPlatforms and cacheReason", k)
		}
	}
	why := p["cacheReason"]
	if why == "" {
		return "", fmt.Errorf(`no +cacheReason="…": say why its cache policy (+cache) is right`)
	}
	cache, ok := caches[p["cache"]]
	if !ok {
		return "", fmt.Errorf(`+cache=%q: the module's functions use the default, "session" or "never"`, p["cache"])
	}
	rule, err := trustRule(p["trust"])
	if err != nil {
		return "", err
	}
	fields := []string{
		"Name: " + strconv.Quote(name),
		"Method: " + strconv.Quote(fn.Method),
		"Trust: " + rule,
	}
	for _, flagPragma := range []string{"signs", "allPlatforms"} {
		v, set := p[flagPragma]
		if set && v != "" {
			return "", fmt.Errorf("+%s takes no value (got %q)", flagPragma, v)
		}
		if set {
			fields = append(fields, strings.ToUpper(flagPragma[:1])+flagPragma[1:]+": true")
		}
	}
	fields = append(fields, "Cache: "+cache, "Why: "+strconv.Quote(why))
	return fmt.Sprintf("%q: {%s},", name, strings.Join(fields, ", ")), nil
}

// trustRule reads a +trust pragma: none (an untrusted call), "tree-keyed", or
// "publishing(credential, …)" with the credentials a release-level call must hold.
func trustRule(v string) (string, error) {
	switch {
	case v == "":
		return "trust.Rule{}", nil
	case v == "tree-keyed":
		return "trust.TreeKeyed()", nil
	}
	list, ok := strings.CutPrefix(v, "publishing(")
	if list, ok = strings.CutSuffix(list, ")"); !ok || strings.TrimSpace(list) == "" {
		return "", fmt.Errorf(`+trust=%q: want "tree-keyed" or "publishing(credential, …)" with credentials among %v`, v, slices.Sorted(keys(credentials)))
	}
	var goNames []string
	for _, c := range strings.Split(list, ",") {
		goName, known := credentials[trust.Credential(strings.TrimSpace(c))]
		if !known {
			return "", fmt.Errorf("+trust=%q: %q is not a credential the module takes: one of %v", v, strings.TrimSpace(c), slices.Sorted(keys(credentials)))
		}
		goNames = append(goNames, goName)
	}
	return "trust.Publishing(" + strings.Join(goNames, ", ") + ")", nil
}

func keys(m map[trust.Credential]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(string(k)) {
				return
			}
		}
	}
}

// render is the Go source of declarations.go: the declarations, and each function's name as
// a constant named after its method.
func render(rows, names []string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("// Code generated by internal/functions/gen from the doc pragmas of the module's functions. DO NOT EDIT.\n\n")
	b.WriteString("package functions\n\nimport \"dagger/shipyard/internal/trust\"\n\n")
	b.WriteString("// declarations: one a function, by its CLI name.\nvar declarations = map[string]Declaration{\n")
	for _, r := range rows {
		b.WriteString(r + "\n")
	}
	b.WriteString("}\n\n")
	b.WriteString("// The functions' names as the CLI calls them, each named after its method: what code\n" +
		"// that names a function (a step that is its body, advice that says to run it) writes\n" +
		"// instead of the name.\nconst (\n")
	for _, n := range names {
		b.WriteString(n + "\n")
	}
	b.WriteString(")\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("formatting declarations.go: %w", err)
	}
	return src, nil
}
