package gobuild

import (
	"slices"
	"testing"
)

func TestArgs(t *testing.T) {
	for _, c := range []struct {
		name string
		out  string
		pkgs []string
		want []string
	}{
		{"one command", "/bin/demo", []string{"./cmd/demo"},
			[]string{"go", "build", "-trimpath", "-gcflags=all=-dwarf=false", "-ldflags=-s -w", "-o", "/bin/demo", "./cmd/demo"}},
		{"two commands into a folder", "/out/", []string{"./cmd/a", "./cmd/b"},
			[]string{"go", "build", "-trimpath", "-gcflags=all=-dwarf=false", "-ldflags=-s -w", "-o", "/out/", "./cmd/a", "./cmd/b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Args(c.out, c.pkgs...); !slices.Equal(got, c.want) {
				t.Errorf("Args(%q, %q) = %q, want %q", c.out, c.pkgs, got, c.want)
			}
		})
	}
	// Each call has its own slice: appending to one does not change the next.
	a := Args("/x", "./a")
	_ = append(a[:len(a)-1], "./b")
	if b := Args("/x", "./a"); b[len(b)-1] != "./a" {
		t.Errorf("Args shares its backing array between calls: %q", b)
	}
}
