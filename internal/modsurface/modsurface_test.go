package modsurface

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

func TestTheModuleSourceDeclaresItsFunctions(t *testing.T) {
	s, err := FromSource(root, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	rp, ok := s.Functions["release-plan"]
	if !ok {
		t.Fatalf("release-plan missing from %v", s.Names())
	}
	if a := rp.Args["tag"]; a.Type != "String" || !a.Required() {
		t.Errorf("release-plan --tag = %+v, want a required String", a)
	}
	if a := rp.Args["format"]; a.Default != `"text"` || a.Required() {
		t.Errorf("release-plan --format = %+v, want default \"text\"", a)
	}
	if src := s.Constructor.Args["source"]; src.Type != "Directory" || src.DefaultPath != "/" || src.Required() {
		t.Errorf("constructor --source = %+v", src)
	}
	if d := s.Constructor.Args["demo"]; d.Type != "Boolean" || d.Required() {
		t.Errorf("constructor --demo = %+v, want an optional Boolean", d)
	}
	if !s.Functions["lint"].Check {
		t.Error("lint carries +check")
	}
	if s.Functions["model-versions"].Cache != "never" {
		t.Errorf("model-versions cache = %q, want never", s.Functions["model-versions"].Cache)
	}
	if a := s.Functions["update-repos"].Args["commit"]; a.Required() || a.RequiredUnless != "dry-run" {
		t.Errorf("update-repos --commit = %+v, want required unless --dry-run, as its documentation says", a)
	}
	if f := s.Functions["check-extras"]; !f.Reaches("Source") || f.File != "modelrepos.go" {
		t.Errorf("check-extras reaches %v in %s, want Source, in models.go", f.Uses, f.File)
	}
	if got := s.Functions["images"].Returns; got != "[Container]" {
		t.Errorf("images returns %s", got)
	}
}

// The README's function table lists exactly the functions the source declares.
func TestReadmeTableListsEveryFunction(t *testing.T) {
	s, err := FromSource(root, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ReadmeFunctions(string(readme)), s.Names(); !slices.Equal(got, want) {
		t.Errorf("README table lists %v\nthe module declares %v", got, want)
	}
}

const sampleTypeDefs = `{"currentTypeDefs":[
 {"kind":"OBJECT_KIND","asObject":{"name":"Other","functions":[]}},
 {"kind":"OBJECT_KIND","asObject":{"name":"Shipyard",
  "constructor":{"name":"","returnType":{"kind":"OBJECT_KIND","optional":false,"asObject":{"name":"Shipyard"}},
   "args":[{"name":"source","defaultValue":null,"defaultPath":"/","typeDef":{"kind":"OBJECT_KIND","optional":true,"asObject":{"name":"Directory"}}}]},
  "functions":[
   {"name":"releasePlan","returnType":{"kind":"STRING_KIND","optional":false},
    "args":[{"name":"tag","defaultValue":null,"defaultPath":"","typeDef":{"kind":"STRING_KIND","optional":false}},
            {"name":"format","defaultValue":"\"text\"","defaultPath":"","typeDef":{"kind":"STRING_KIND","optional":false}},
            {"name":"python","defaultValue":null,"defaultPath":"","typeDef":{"kind":"LIST_KIND","optional":true,"asList":{"elementTypeDef":{"kind":"STRING_KIND"}}}}]}]}}]}`

func TestDiffNamesEveryDifference(t *testing.T) {
	reg, err := FromTypeDefs([]byte(sampleTypeDefs), "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	same := Surface{
		Constructor: Function{Returns: "Shipyard", Args: map[string]Arg{"source": {Type: "Directory", DefaultPath: "/", Optional: true}}},
		Functions: map[string]Function{"release-plan": {Returns: "String", Args: map[string]Arg{
			"tag":    {Type: "String"},
			"format": {Type: "String", Default: `"text"`},
			"python": {Type: "[String]", Optional: true},
		}}},
	}
	if d := Diff(same, reg); len(d) != 0 {
		t.Fatalf("an equal surface differs: %v", d)
	}
	tests := []struct {
		name   string
		change func(s *Surface)
		want   string
	}{
		{"missing function", func(s *Surface) { s.Functions["lint"] = Function{} }, "lint: declared in the source, not registered"},
		{"extra registered function", func(s *Surface) { delete(s.Functions, "release-plan") }, "release-plan: registered by the engine, not declared"},
		{"type", func(s *Surface) { s.Functions["release-plan"].Args["tag"] = Arg{Type: "Integer"} }, "release-plan --tag: type Integer declared, String registered"},
		{"optional", func(s *Surface) { s.Functions["release-plan"].Args["tag"] = Arg{Type: "String", Optional: true} }, "required=false declared, true registered"},
		{"default", func(s *Surface) { s.Functions["release-plan"].Args["format"] = Arg{Type: "String", Default: `"json"`} }, `default "json" declared, "text" registered`},
		{"missing arg", func(s *Surface) { delete(s.Functions["release-plan"].Args, "python") }, "release-plan --python: registered, not declared"},
		{"default path", func(s *Surface) {
			s.Constructor.Args["source"] = Arg{Type: "Directory", DefaultPath: ".", Optional: true}
		}, `defaultPath "." declared, "/" registered`},
		{"return type", func(s *Surface) {
			f := s.Functions["release-plan"]
			f.Returns = "Directory"
			s.Functions["release-plan"] = f
		}, "returns Directory in the source, String registered"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := clone(same)
			tc.change(&s)
			d := strings.Join(Diff(s, reg), "\n")
			if !strings.Contains(d, tc.want) {
				t.Errorf("diff %q lacks %q", d, tc.want)
			}
		})
	}
}

func clone(s Surface) Surface {
	out := Surface{Constructor: cloneFn(s.Constructor), Functions: map[string]Function{}}
	for k, f := range s.Functions {
		out.Functions[k] = cloneFn(f)
	}
	return out
}

func cloneFn(f Function) Function {
	args := map[string]Arg{}
	for k, a := range f.Args {
		args[k] = a
	}
	f.Args = args
	return f
}

func TestFromTypeDefsRefusesAnswersWithoutTheModule(t *testing.T) {
	if _, err := FromTypeDefs([]byte(`{"currentTypeDefs":[]}`), "Shipyard"); err == nil {
		t.Error("no Shipyard object: want an error")
	}
	if _, err := FromTypeDefs([]byte(`not json`), "Shipyard"); err == nil {
		t.Error("not JSON: want an error")
	}
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{
		"ReleasePlan": "release-plan", "githubApi": "github-api", "EndToEnd": "end-to-end",
		"PushByDigest": "push-by-digest", "pypiUrl": "pypi-url", "Ci": "ci",
	} {
		if got := Kebab(in); got != want {
			t.Errorf("Kebab(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Dagger CLI splits digits off a name (a function E2e is called as e-2-e), so the
// module keeps digits out of its function and argument names, and the names the wrappers
// and the README use are the ones users type.
func TestNamesHaveNoDigits(t *testing.T) {
	s, err := FromSource(root, "Shipyard")
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string) {
		if strings.ContainsAny(what, "0123456789") {
			t.Errorf("%s: the CLI would split its digits off; choose a name without digits", what)
		}
	}
	for name, fn := range s.Functions {
		check(name)
		for arg := range fn.Args {
			check(name + " --" + arg)
		}
	}
	for arg := range s.Constructor.Args {
		check("--" + arg)
	}
}
