package cli

import (
	"flag"
	"slices"
	"testing"
)

func TestList(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		args   []string
		want   []string
		String string
	}{
		{name: "not given", args: nil, want: nil, String: ""},
		{name: "once", args: []string{"--image", "a"}, want: []string{"a"}, String: "a"},
		{name: "repeated, in order", args: []string{"--image", "b", "--image", "a", "--image=b"}, want: []string{"b", "a", "b"}, String: "b,a,b"},
		{name: "an empty value is kept", args: []string{"--image", ""}, want: []string{""}, String: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var l List
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			fs.Var(&l, "image", "an image (repeatable)")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(l, tt.want) || l.String() != tt.String {
				t.Errorf("List = %q (String %q), want %q (%q)", l, l.String(), tt.want, tt.String)
			}
		})
	}
}
