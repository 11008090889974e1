package cli

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// failingWriter refuses every write, as a closed stdout does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("stdout closed") }

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		v       any
		w       io.Writer
		want    string
		wantErr string
	}{
		{name: "an object, indented", v: map[string]any{"digest": "sha256:1", "platforms": []string{"linux/amd64"}},
			want: "{\n  \"digest\": \"sha256:1\",\n  \"platforms\": [\n    \"linux/amd64\"\n  ]\n}\n"},
		{name: "a list", v: []string{"a", "b"}, want: "[\n  \"a\",\n  \"b\"\n]\n"},
		{name: "nothing", v: nil, want: "null\n"},
		{name: "not JSON", v: make(chan int), wantErr: "writing the result: json: unsupported type"},
		{name: "stdout closed", v: 1, w: failingWriter{}, wantErr: "writing the result: stdout closed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			w := tt.w
			if w == nil {
				w = &b
			}
			err := WriteJSON(w, tt.v)
			if b.String() != tt.want || (err == nil) != (tt.wantErr == "") || (err != nil && !strings.HasPrefix(err.Error(), tt.wantErr)) {
				t.Errorf("WriteJSON = %q, %v; want %q, error %q", b.String(), err, tt.want, tt.wantErr)
			}
		})
	}
}

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
