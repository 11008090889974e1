package models

import (
	"slices"
	"strings"
	"testing"
)

func TestParseMakefile(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		targets  []string
		patterns []string
		includes []string
	}{
		{"the template's targets", ".PHONY: test\ntest:\n\tuv run python -m pytest\n\n.PHONY: lint\nlint:\n\tuv run ruff check cloudcoil tests\n\nprepare-for-pr: fix-lint lint test\n\t@echo ok\n",
			[]string{"test", "lint", "prepare-for-pr"}, nil, nil},
		{"assignments are not targets", "MODULE := cert_manager\nX = a:b\nY ?= c\nZ += d\nW != date\nV ::= e\nU :::= f\nexport PATH := /bin:$(PATH)\nreal: $(MODULE)\n",
			[]string{"real"}, nil, nil},
		{"several targets, double colon, target-specific variable", "build check-artifacts: dist\nclean::\n\trm -rf dist\ntest: PYTEST_ADDOPTS = -q\n",
			[]string{"build", "check-artifacts", "clean", "test"}, nil, nil},
		{"recipes, comments and define blocks define nothing", "# lint: in a comment\nall: # done: here\n\techo lint: no\ndefine RECIPE\nhidden:\n\techo\nendef\n",
			[]string{"all"}, nil, nil},
		{"a continued line", "lint \\\n  test: \\\n  deps\n",
			[]string{"lint", "test"}, nil, nil},
		{"pattern rules and targets from variables", "gen-repo-%:\n\tcookiecutter\n$(NAME)-docs:\n$(patsubst %.c,%.o,x.c): y\n",
			nil, []string{"gen-repo-%"}, nil},
		{"conditionals are read through", "ifeq ($(CI),true)\nlint:\n\truff\nelse\nlint: fix\nendif\n",
			[]string{"lint"}, nil, nil},
		{"includes", "include common.mk\n-include local.mk extra.mk\n", nil, nil, []string{"common.mk", "local.mk", "extra.mk"}},
		{"CRLF line ends", "test:\r\n\tpytest\r\nlint:\r\n", []string{"test", "lint"}, nil, nil},
		{"an escaped hash is no comment", "a\\#b: x\n", []string{"a\\#b"}, nil, nil},
		{"empty", "", nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := ParseMakefile(tt.text)
			if !slices.Equal(m.Targets, tt.targets) || !slices.Equal(m.Patterns, tt.patterns) || !slices.Equal(m.Includes, tt.includes) {
				t.Errorf("got targets %q patterns %q includes %q; want %q %q %q", m.Targets, m.Patterns, m.Includes, tt.targets, tt.patterns, tt.includes)
			}
		})
	}
}

func TestMakefileHas(t *testing.T) {
	m := ParseMakefile("lint:\ngen-repo-%:\n")
	for name, want := range map[string]bool{"lint": true, "gen-repo-keda": true, "gen-repo-": true, "test": false, "gen-repo-a/b": false, "xgen-repo-keda": false} {
		if got := m.Has(name); got != want {
			t.Errorf("Has(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestRequireTargets(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		err        string
	}{
		{"all there", "lint:\ntest:\ncheck-artifacts: build\n", []string{"lint", "test", "check-artifacts"}, ""},
		{"one missing", "lint:\ntest:\n", []string{"lint", "test", "check-artifacts"},
			"Makefile: no target check-artifacts, which model-ci runs (make lint test check-artifacts); add it to Makefile"},
		{"two missing", "lint:\n", []string{"lint", "test", "check-artifacts"}, "no target test, no target check-artifacts, which model-ci runs (make lint test check-artifacts); add them"},
		{"missing with includes", "include ci.mk\n", []string{"lint"}, "(targets in the files it includes, ci.mk, are not read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := RequireTargets("Makefile", tt.text, "model-ci", tt.want...)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("err = %v, want %q", err, tt.err)
			}
		})
	}
}

// FuzzParseMakefile: any text parses; what it reports are names make could define, each
// once, and a target found is a target Has confirms.
func FuzzParseMakefile(f *testing.F) {
	f.Add("lint:\n\truff\ntest: lint\n")
	f.Add("X := $(Y:%.c=%.o)\n$(X): a\ninclude x.mk\n")
	f.Add("define A\nb:\nendef\nc \\\nd: e\n")
	f.Add("a\\")
	f.Fuzz(func(t *testing.T, text string) {
		m := ParseMakefile(text)
		seen := map[string]bool{}
		for _, tg := range m.Targets {
			if tg == "" || strings.ContainsAny(tg, " \t\n:$%") || strings.HasPrefix(tg, ".") || seen[tg] {
				t.Fatalf("target %q from %q", tg, text)
			}
			seen[tg] = true
			if !m.Has(tg) {
				t.Fatalf("Has(%q) is false for a parsed target", tg)
			}
		}
		for _, p := range m.Patterns {
			if !strings.Contains(p, "%") {
				t.Fatalf("pattern %q without %%", p)
			}
		}
		if err := RequireTargets("Makefile", text, "fuzz", m.Targets...); err != nil {
			t.Fatalf("its own targets are missing: %v", err)
		}
	})
}
