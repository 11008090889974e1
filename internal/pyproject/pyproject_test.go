package pyproject

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func fixture(t testing.TB, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", "testkit", "fixtures"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t testing.TB, path string, data []byte) *Document {
	t.Helper()
	d, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestTeskCorePyproject(t *testing.T) {
	d := mustParse(t, "pyproject.toml", fixture(t, "teskcore", "pyproject.toml"))
	name, found, err := d.String("project", "name")
	if err != nil || !found || name != "teskcore" {
		t.Errorf("project.name = %q, %v, %v", name, found, err)
	}
	rp, _, _ := d.String("project", "requires-python")
	if rp != ">=3.10" {
		t.Errorf("requires-python = %q", rp)
	}
	dyn, _, err := d.Strings("project", "dynamic")
	if err != nil || !slices.Equal(dyn, []string{"version"}) {
		t.Errorf("project.dynamic = %q, %v", dyn, err)
	}
	if _, found, _ := d.String("project", "version"); found {
		t.Error("project.version found in a file that declares it dynamic")
	}
	if _, _, err := d.String("tool", "coverage", "report", "fail_under"); err == nil || !strings.Contains(err.Error(), "a number (100)") {
		t.Errorf("reading an integer as a string: %v", err)
	}
	if _, _, err := d.Strings("project", "name"); err == nil {
		t.Error("reading a string as an array: no error")
	}
}

func TestModelRepoPyproject(t *testing.T) {
	data := fixture(t, "modelrepo", "pyproject.toml")
	d := mustParse(t, "pyproject.toml", data)
	vs := d.StringValues("project.version")
	if len(vs) != 1 || vs[0].Text != "1.17.1.0" || vs[0].Line != 3 || vs[0].Entry != -1 {
		t.Fatalf("project.version located as %+v", vs)
	}
	// The template writes input as an array: each element is located.
	inputs := d.StringValues("tool.cloudcoil.codegen.models.input")
	if len(inputs) != 1 || inputs[0].Entry != 0 || inputs[0].Element != 0 || !strings.Contains(inputs[0].Text, "/v1.17.1/") {
		t.Errorf("codegen inputs located as %+v", inputs)
	}
	if got := len(d.Tables("tool", "cloudcoil", "codegen", "models")); got != 1 {
		t.Errorf("%d codegen model tables", got)
	}

	// The edit changes the value's bytes and nothing else.
	out := d.Apply(Edit{Value: vs[0], Raw: Quote("1.17.1.3")})
	want := strings.Replace(string(data), `version = "1.17.1.0"`, `version = "1.17.1.3"`, 1)
	if string(out) != want {
		t.Errorf("Apply changed more than the value:\n%s", out)
	}
}

func TestArrayElementsAreLocatedExactly(t *testing.T) {
	data := []byte("[[m]]\ninput = [\n  \"a\", # first\n  'b',\n  1,\n  \"c\"]\nx = \"d\"\n")
	d := mustParse(t, "p.toml", data)
	vs := d.StringValues("m.input")
	var got []string
	for _, v := range vs {
		got = append(got, fmt.Sprintf("%s@%d:%d", v.Text, v.Element, v.Line))
	}
	if want := []string{"a@0:3", "b@1:4", "c@3:6"}; !slices.Equal(got, want) {
		t.Fatalf("elements %v, want %v", got, want)
	}
	if x := d.StringValues("m.x"); len(x) != 1 || x[0].Element != -1 {
		t.Errorf("a plain string located as %+v", x)
	}
	out := d.Apply(Edit{Value: vs[1], Raw: Quote("B")}, Edit{Value: vs[2], Raw: Quote("C")})
	if want := "[[m]]\ninput = [\n  \"a\", # first\n  \"B\",\n  1,\n  \"C\"]\nx = \"d\"\n"; string(out) != want {
		t.Errorf("Apply =\n%s\nwant\n%s", out, want)
	}
}

func TestUvLock(t *testing.T) {
	d := mustParse(t, "uv.lock", fixture(t, "modelrepo", "uv.lock"))
	pkgs := d.Tables("package")
	versions := d.StringValues("package.version")
	if len(pkgs) < 2 || len(versions) != len(pkgs) {
		t.Fatalf("%d packages, %d located versions", len(pkgs), len(versions))
	}
	for i, v := range versions {
		if v.Entry != i || v.Text != pkgs[i]["version"] {
			t.Errorf("located version %d: %+v, package says %v", i, v, pkgs[i]["version"])
		}
	}
	// An inline table's strings are located too.
	if ed := d.StringValues("package.source.editable"); len(ed) != 1 || ed[0].Text != "." {
		t.Errorf("package.source.editable located as %+v", ed)
	}
}

func TestParseErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"unterminated string", "[project]\nname = \"x\nversion = \"1\"\n", "pyproject.toml:2:"},
		{"duplicate key", "[project]\nname = \"a\"\nname = \"b\"\n", "pyproject.toml:3:"},
		{"bad header", "[project\nname = \"a\"\n", "pyproject.toml:1:"},
		{"value missing", "[project]\n\nname =\n", "pyproject.toml:3:"},
		{"duplicate table", "[project]\n[project]\n", "pyproject.toml:2:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("pyproject.toml", []byte(tt.doc))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Parse = %v, want an error starting %q", err, tt.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"", "1.2.3", `a"b\c`, "tab\there", "line\nbreak", "ünï", "\x7f"} {
		d := mustParse(t, "t.toml", []byte("k = "+Quote(s)+"\n"))
		if got, _, _ := d.String("k"); got != s {
			t.Errorf("Quote(%q) reads back as %q", s, got)
		}
	}
}

// FuzzParse: no input panics; every located string value's bytes are that value; and
// rewriting every string value with Quote of itself keeps the document's meaning.
func FuzzParse(f *testing.F) {
	f.Add(fixture(f, "teskcore", "pyproject.toml"))
	f.Add(fixture(f, "modelrepo", "pyproject.toml"))
	f.Add(fixture(f, "modelrepo", "uv.lock"))
	f.Add([]byte("a.b = 'x'\n[t]\nc = { d = \"\"\"e\nf\"\"\" }\n[[u]]\nv = '''w'''\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse("f.toml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml:") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		var edits []Edit
		for _, s := range d.strings {
			raw := string(data[s.start:s.end])
			r, err := Parse("v.toml", []byte("v = "+raw))
			if err != nil {
				t.Fatalf("%s at line %d: bytes %q are not a TOML string: %v", s.Key, s.Line, raw, err)
			}
			if got, _, _ := r.String("v"); got != s.Text {
				t.Fatalf("%s at line %d: bytes %q decode to %q, recorded %q", s.Key, s.Line, raw, got, s.Text)
			}
			edits = append(edits, Edit{Value: s, Raw: Quote(s.Text)})
		}
		e, err := Parse("f.toml", d.Apply(edits...))
		if err != nil {
			t.Fatalf("after requoting: %v", err)
		}
		if !reflect.DeepEqual(e.tree, d.tree) {
			t.Fatalf("requoting changed the document")
		}
	})
}

func TestKeyValuesReplaceAWholePair(t *testing.T) {
	data := []byte("[tool.x]\n# lines\nversions = [\n    \"1.0.0\",  # old\n    \"2.0.0\",\n]\nname = \"x\" # kept\ninline = { versions = [\"9\"] }\n")
	doc, err := Parse("pyproject.toml", data)
	if err != nil {
		t.Fatal(err)
	}
	kvs := doc.KeyValues("tool.x.versions")
	if len(kvs) != 1 || kvs[0].Line != 3 || !strings.HasPrefix(kvs[0].Text, "versions = [") || !strings.HasSuffix(kvs[0].Text, "]") {
		t.Fatalf("KeyValues = %+v", kvs)
	}
	if got := doc.KeyValues("tool.x.inline.versions"); len(got) != 0 {
		t.Errorf("a pair inside an inline table is listed: %+v", got)
	}
	got := string(doc.Apply(Edit{Value: kvs[0], Raw: `versions = ["2.0.0"]`}))
	want := "[tool.x]\n# lines\nversions = [\"2.0.0\"]\nname = \"x\" # kept\ninline = { versions = [\"9\"] }\n"
	if got != want {
		t.Errorf("edited:\n%s\nwant:\n%s", got, want)
	}
}
