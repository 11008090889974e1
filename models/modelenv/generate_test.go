package modelenv

import (
	"dagger/shipyard/internal/testkit/fixtures"
	"strings"
	"testing"
)

func TestChecksFor(t *testing.T) {
	tests := []struct {
		name, makefile string
		want           []string // the commands, in order
		err            string
	}{
		{"the template's Makefile: lint runs mypy", fixtures.ModelRepoFiles(t, nil)["Makefile"], []string{"make lint", "make test"}, ""},
		{"a separate typecheck target runs too", "lint:\ntypecheck:\ntest:\n", []string{"make lint", "make typecheck", "make test"}, ""},
		{"no test target", "lint:\n\truff check .\n", nil, "Makefile: no target test, which model-release runs (make lint test); add it to Makefile"},
		{"no targets at all", "", nil, "no target lint, no target test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checks, err := ChecksFor(tt.makefile, "model-release")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			var got []string
			for _, c := range checks {
				for _, args := range c.Commands {
					got = append(got, strings.Join(args, " "))
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("commands %q, want %q", got, tt.want)
			}
		})
	}
}
