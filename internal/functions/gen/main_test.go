package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"dagger/shipyard/internal/modsurface"
)

// declarations.go is what the doc pragmas say today: a pragma changed without go generate
// fails here, and so does a hand edit of the generated file.
func TestDeclarationsAreCurrent(t *testing.T) {
	want, err := generate("../../..")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../declarations.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/functions/declarations.go is not what the functions' doc pragmas declare: run go generate ./internal/functions")
	}
	if n := bytes.Count(want, []byte("Method: ")); n < 40 {
		t.Errorf("generated %d declarations; the module has more functions", n)
	}
}

func TestDeclarationOf(t *testing.T) {
	for _, c := range []struct {
		name    string
		pragmas map[string]string
		want    string // a part of the row, or of the error
		wantErr bool
	}{
		{"untrusted and cached", map[string]string{"cacheReason": "pure"}, `"f": {Name: "f", Method: "F", Trust: trust.Rule{}, Cache: Cached, Why: "pure"},`, false},
		{"publishing, signing, every platform", map[string]string{"cache": "never", "trust": "publishing(registry-password, identity-token)", "signs": "", "allPlatforms": "", "cacheReason": "writes"},
			`Trust: trust.Publishing(trust.RegistryPassword, trust.IdentityToken), Signs: true, AllPlatforms: true, Cache: Never`, false},
		{"tree-keyed", map[string]string{"cache": "never", "trust": "tree-keyed", "cacheReason": "gate"}, `Trust: trust.TreeKeyed(), Cache: Never`, false},
		{"session", map[string]string{"cache": "session", "cacheReason": "daily"}, `Cache: Session`, false},
		{"no reason", map[string]string{"cache": "never"}, "no +cacheReason", true},
		{"a duration", map[string]string{"cache": "10m", "cacheReason": "x"}, `+cache="10m"`, true},
		{"unknown credential", map[string]string{"trust": "publishing(pypi-token)", "cacheReason": "x"}, `"pypi-token" is not a credential`, true},
		{"no credential", map[string]string{"trust": "publishing()", "cacheReason": "x"}, `want "tree-keyed" or "publishing(credential, …)"`, true},
		{"unknown rule", map[string]string{"trust": "release", "cacheReason": "x"}, `+trust="release"`, true},
		{"a value on a flag", map[string]string{"signs": "true", "cacheReason": "x"}, "+signs takes no value", true},
		{"a misspelt pragma", map[string]string{"sign": "", "cacheReason": "x"}, "+sign is not a pragma of a function", true},
		{"Dagger's check", map[string]string{"check": "", "cacheReason": "x"}, `"f": {Name: "f"`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			row, err := declarationOf("f", modsurface.Function{Method: "F", Pragmas: c.pragmas})
			switch {
			case c.wantErr && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("err = %v, want one with %q", err, c.want)
			case !c.wantErr && err != nil:
				t.Errorf("err = %v", err)
			case !c.wantErr && !strings.Contains(row, c.want):
				t.Errorf("row = %s, want %s in it", row, c.want)
			}
		})
	}
}

// Every problem is named with its file and function, all at once.
func TestDeclarationsOfNamesEachProblem(t *testing.T) {
	s := modsurface.Surface{Functions: map[string]modsurface.Function{
		"lint":    {Method: "Lint", File: "main.go", Pragmas: map[string]string{}},
		"release": {Method: "Release", File: "release.go", Pragmas: map[string]string{"trust": "publishing(x)", "cacheReason": "y"}},
		"docs":    {Method: "Docs", File: "main.go", Pragmas: map[string]string{"cacheReason": "ok"}},
	}}
	_, err := declarationsOf(s)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"2 function(s)", "main.go: Lint (lint): no +cacheReason", `release.go: Release (release): +trust="publishing(x)"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwant %q in it", err, want)
		}
	}
}
