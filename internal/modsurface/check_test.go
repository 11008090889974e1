package modsurface

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// sample is a small module surface and the core types its calls chain on.
var sample = func() Types {
	module := Surface{
		Constructor: Function{Args: map[string]Arg{
			"source": {Type: "Directory", Optional: true, DefaultPath: "/"},
			"demo":   {Type: "Boolean", Optional: true},
			"repo":   {Type: "String", Default: `"elixir-cloud-aai/tesk-core"`},
		}},
		Functions: map[string]Function{
			"release-plan":  {Returns: "String", Args: map[string]Arg{"tag": {Type: "String"}, "format": {Type: "String", Default: `"text"`}}},
			"with-sigstore": {Returns: "Shipyard", Args: map[string]Arg{"oidc-token": {Type: "Secret", Optional: true}}},
			"docs":          {Returns: "Directory"},
			"images":        {Returns: "[Container]"},
			"lint":          {Returns: "String", Check: true},
			"update-repos": {Returns: "String", Args: map[string]Arg{
				"commit":  {Type: "String", Optional: true, RequiredUnless: "dry-run"},
				"dry-run": {Type: "Boolean", Optional: true},
			}},
		},
	}
	core := Types{
		"Directory": {"export": {Returns: "String", Args: map[string]Arg{"path": {Type: "String"}, "wipe": {Type: "Boolean", Optional: true, Default: "false"}}},
			"entries": {Returns: "[String]"}},
	}
	return core.With("Shipyard", module)
}()

func TestReadChecksEveryLinkOfACall(t *testing.T) {
	constructor := Function{Args: map[string]Arg{
		"source": {Type: "Directory", Optional: true, DefaultPath: "/"},
		"demo":   {Type: "Boolean", Optional: true},
		"repo":   {Type: "String", Default: `"elixir-cloud-aai/tesk-core"`},
	}}
	tests := []struct {
		line     string
		problems []string
		links    []string
		tool     string
	}{
		{"dagger call --demo release-plan --tag v0.11.0", nil, []string{"release-plan"}, ""},
		{"dagger call --repo a/b release-plan --tag v1 --format=json", nil, []string{"release-plan"}, ""},
		{"dagger call release-plan --format json", []string{"release-plan needs --tag"}, nil, ""},
		{"dagger call release-plan --tag v1 --tga x", []string{"release-plan has no flag --tga"}, nil, ""},
		{"dagger call --token x release-plan --tag v1", []string{"the constructor has no flag --token"}, nil, ""},
		{"dagger call relase-plan --tag v1", []string{`function "relase-plan" is not declared by Shipyard`}, nil, ""},
		{"dagger call with-sigstore --oidc-token env://T release-plan --tag v1", nil, []string{"with-sigstore", "release-plan"}, ""},
		{"dagger call docs export --path site", nil, []string{"docs", "export"}, ""},
		{"dagger call docs export", []string{"export needs --path"}, nil, ""},
		{"dagger call docs export --path site --wipe", nil, []string{"docs", "export"}, ""},
		{"dagger call docs expotr --path site", []string{`function "expotr" is not declared by Directory`}, nil, ""},
		{"dagger call release-plan --tag v1 export --path x", []string{"release-plan returns String, which has no functions"}, nil, ""},
		{"dagger call images export --path x", []string{"images returns [Container], which has no functions"}, nil, ""},
		{"dagger call shipyard --repo a/b release-plan --tag v1", nil, []string{"release-plan"}, "shipyard"},
		{"dagger call -m github.com/o/shipyard@v1 shipyard release-plan --tag v1", []string{`function "shipyard" is not declared`}, nil, ""},
		{"dagger call … release-plan --tag v1", nil, []string{"release-plan"}, ""},
		{"dagger call update-repos --commit abc", nil, []string{"update-repos"}, ""},
		{"dagger call update-repos --dry-run", nil, []string{"update-repos"}, ""},
		{"dagger call update-repos", []string{"update-repos needs --commit unless --dry-run"}, nil, ""},
		{"dagger call … with-sigstore --oidc-token env://T release-plan …", nil, []string{"with-sigstore", "release-plan"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			cmds := ScriptCommands("t", 1, tt.line)
			if len(cmds) != 1 {
				t.Fatalf("%d commands in %q", len(cmds), tt.line)
			}
			call, problems := Read(cmds[0], sample, "Shipyard", constructor, []string{"shipyard"})
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems %q, want %q", problems, tt.problems)
			}
			for i, p := range tt.problems {
				if !strings.Contains(problems[i], p) {
					t.Errorf("problem %q, want one containing %q", problems[i], p)
				}
			}
			if tt.links != nil {
				var got []string
				for _, l := range call.Links {
					got = append(got, l.Name)
				}
				if !slices.Equal(got, tt.links) {
					t.Errorf("links %v, want %v", got, tt.links)
				}
			}
			if call.Toolchain != tt.tool {
				t.Errorf("toolchain %q, want %q", call.Toolchain, tt.tool)
			}
		})
	}
}

// A placeholder for the function reads as a redirection to a shell, and as no command
// here: prose that names `dagger call <function> --help` is not checked.
func TestPlaceholderIsNoCommand(t *testing.T) {
	if cmds := ScriptCommands("t", 1, "dagger call <function> --help"); len(cmds) != 0 {
		t.Errorf("commands %v", cmds)
	}
}

// A boolean flag takes no value from the next word, as the CLI's flags do: --demo
// followed by a function is the flag, then the function.
func TestReadBooleanFlagsTakeNoValue(t *testing.T) {
	c := ScriptCommands("t", 1, "dagger call --demo --repo a/b release-plan --tag v1")[0]
	call, problems := Read(c, sample, "Shipyard", Function{Args: map[string]Arg{"demo": {Type: "Boolean", Optional: true}, "repo": {Type: "String", Optional: true}}}, nil)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	if v := call.Constructor.Flags["repo"]; v != "a/b" || !call.Constructor.Has("demo") {
		t.Errorf("constructor flags %v", call.Constructor.Flags)
	}
}

// A Boolean flag given a value with "=" takes only what the CLI's flags parse
// (strconv.ParseBool): anything else, "" included, stops the CLI before it starts. A value
// only the shell knows is not judged here.
func TestReadBooleanValues(t *testing.T) {
	refused := func(flag, value string) string {
		return fmt.Sprintf(`t:1: --%s=%s: the Dagger CLI refuses to start (invalid argument %q for "--%s" flag: strconv.ParseBool: parsing %q: invalid syntax; it takes 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False); give --%s=true or --%s=false (--%s alone is true)`,
			flag, value, value, flag, value, flag, flag, flag)
	}
	constructor := Function{Args: map[string]Arg{
		"demo": {Type: "Boolean", Optional: true},
		"repo": {Type: "String", Optional: true},
	}}
	tests := []struct {
		line    string
		problem string // "" when the call is fine
	}{
		{"dagger call update-repos --dry-run", ""},
		{"dagger call update-repos --dry-run=true", ""},
		{"dagger call update-repos --dry-run=false", ""},
		{"dagger call update-repos --dry-run=1 --commit c", ""},
		{"dagger call update-repos --dry-run=0 --commit c", ""},
		{"dagger call update-repos --dry-run=t", ""},
		{"dagger call update-repos --dry-run=F", ""},
		{"dagger call update-repos --dry-run=TRUE", ""},
		{"dagger call update-repos --dry-run=False", ""},
		{"dagger call update-repos --dry-run=", refused("dry-run", "")},
		{`dagger call update-repos --dry-run=""`, refused("dry-run", "")},
		{"dagger call update-repos --dry-run=yes", refused("dry-run", "yes")},
		{"dagger call update-repos --dry-run=tRUE", refused("dry-run", "tRUE")},
		{"dagger call update-repos --dry-run=' true'", refused("dry-run", " true")},
		{"dagger call --demo=no docs export --path x", refused("demo", "no")},
		{"dagger call docs export --path x --wipe=2", refused("wipe", "2")},
		// Only the shell (or GitHub, before it) knows these values.
		{`dagger call update-repos --dry-run="$DRY_RUN"`, ""},
		{"dagger call update-repos --dry-run=${DRY_RUN:-false}", ""},
		{`dagger call update-repos --dry-run="$(cat dry-run)"`, ""},
		{"dagger call update-repos --dry-run=\"`cat dry-run`\"", ""},
		{`dagger call update-repos --dry-run="${{ inputs.dry_run }}"`, ""},
		// A String flag takes any value.
		{"dagger call --repo= release-plan --tag=", ""},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			c := ScriptCommands("t", 1, tt.line)[0]
			_, got := Read(c, sample, "Shipyard", constructor, nil)
			var want []string
			if tt.problem != "" {
				want = []string{tt.problem + ": " + c.Text}
			}
			if !slices.Equal(got, want) {
				t.Errorf("problems\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestScriptCommandsFindsCallsWhereShellsHideThem(t *testing.T) {
	script := `set -e
# dagger call commented out
pushed=$(dagger call -m "$SHIPYARD" --source=. \
  push-platform-by-digest --image "$IMAGE")
echo "python=$(dagger call -m "$SHIPYARD" --source=. python-versions)" >> "$GITHUB_OUTPUT"
dagger --progress=plain call --source=. lint | tee out.txt
echo done && dagger call ci --pr-title "fix: a b"
dagger check        # lint, test-check
dagger check shipyard:pr-title
dagger toolchain install ./x
bash bench/moduleload.sh   # first dagger call on a real engine
echo "# dagger call in quotes is no comment" && dagger check shipyard:lint
run: dagger call -m "$SHIPYARD" --source=. docs export --path site`
	cmds := ScriptCommands("w.yml", 10, script)
	var got []string
	for _, c := range cmds {
		got = append(got, c.Where+" "+c.Verb+" ["+c.Module+"] "+strings.Join(c.Words, " "))
	}
	want := []string{
		"w.yml:12 call [$SHIPYARD] --source=. push-platform-by-digest --image $IMAGE",
		"w.yml:14 call [$SHIPYARD] --source=. python-versions",
		"w.yml:15 call [] --source=. lint",
		"w.yml:16 call [] ci --pr-title fix: a b",
		"w.yml:17 check [] ",
		"w.yml:18 check [] shipyard:pr-title",
		"w.yml:21 check [] shipyard:lint",
		"w.yml:22 call [$SHIPYARD] --source=. docs export --path site",
	}
	if !slices.Equal(got, want) {
		t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMarkdownCommands(t *testing.T) {
	doc := "Run `dagger call shipyard lint` or `dagger call` alone.\n\n" +
		"```sh\ndagger call shipyard ci \\\n  --pr-title x\n```\n\n" +
		"```text\ndagger call printed-output\n```\n" +
		"| `x` | `dagger call … scan export --path scan && jq -e .passed scan/verdict.json` |\n"
	var got []string
	for _, c := range MarkdownCommands("README.md", doc) {
		got = append(got, c.Where+" "+strings.Join(c.Words, " "))
	}
	want := []string{"README.md:1 shipyard lint", "README.md:4 shipyard ci --pr-title x", "README.md:11 … scan export --path scan"}
	if !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if raw := MarkdownCommands("README.md", doc)[2].Raw; raw != "dagger call … scan export --path scan" {
		t.Errorf("raw %q", raw)
	}
	if raw := ScriptCommands("t", 1, `x=$(dagger call a --t "b c") && y`)[0].Raw; raw != `dagger call a --t "b c"` {
		t.Errorf("raw %q", raw)
	}
}

func TestCheckNames(t *testing.T) {
	s := Surface{Functions: sample["Shipyard"]}
	for line, bad := range map[string]bool{
		"dagger check":                    false,
		"dagger check -l":                 false,
		"dagger check shipyard:lint":      false,
		"dagger check lint":               false,
		"dagger check shipyard:docs":      true, // not a +check function
		"dagger check shipyard:no-such-x": true,
	} {
		c := ScriptCommands("t", 1, line)[0]
		if got := CheckNames(c, s, []string{"shipyard"}); (len(got) > 0) != bad {
			t.Errorf("%q: problems %v, want some: %v", line, got, bad)
		}
	}
}

func TestUsesFollowsTheReceiversCalls(t *testing.T) {
	files := map[string][]byte{"m.go": []byte(`package main
type M struct{ Source string }
func New() *M { return &M{} }
func (m *M) Push() error { return m.withLogin() }
func (m *M) Plan() error { _ = m.Source; return nil }
func (m *M) withLogin() error { return m.target() }
func (m *M) target() error { return nil }
`)}
	s, err := FromFiles(files, "M")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Functions["push"].Uses; !slices.Equal(got, []string{"target", "withLogin"}) {
		t.Errorf("push uses %v", got)
	}
	if got := s.Functions["plan"].Uses; !slices.Equal(got, []string{"Source"}) {
		t.Errorf("plan uses %v, want its field Source", got)
	}
	if !s.Functions["push"].Reaches("target") || s.Functions["plan"].Reaches("target") {
		t.Errorf("Reaches: push %v, plan %v", s.Functions["push"].Uses, s.Functions["plan"].Uses)
	}
}

// Every function asks for its trust level, which reads where the credentials act (Repo
// among them): a function reaches Repo only when it reads it itself.
func TestUsesStopsAtTheTrustLevel(t *testing.T) {
	files := map[string][]byte{"m.go": []byte(`package main
type M struct{ Repo string }
func New() *M { return &M{} }
func (m *M) Render() error { return m.level() }
func (m *M) Release() error { _ = m.Repo; return m.level() }
func (m *M) level() error { _ = m.Repo; return nil }
`)}
	s, err := FromFiles(files, "M")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Functions["render"].Uses; !slices.Equal(got, []string{"level"}) {
		t.Errorf("render uses %v, want level alone", got)
	}
	if !s.Functions["release"].Reaches("Repo") {
		t.Errorf("release uses %v, want Repo too", s.Functions["release"].Uses)
	}
}

func FuzzScriptCommands(f *testing.F) {
	for _, s := range []string{
		"dagger call -m \"$X\" --source=. lint | tee x",
		"x=$(dagger call a --b \"c d\" \\\n e)",
		"dagger check shipyard:lint # c",
		"dagger call 'unterminated",
		"dagger -m",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		for _, c := range ScriptCommands("f", 1, script) {
			if c.Verb != "call" && c.Verb != "check" {
				t.Fatalf("verb %q", c.Verb)
			}
			Read(c, sample, "Shipyard", Function{}, []string{"shipyard"})
		}
		MarkdownCommands("f.md", script)
	})
}
