package doctor

import (
	"slices"
	"testing"
)

func TestModuleArgs(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`dagger call -m "$SHIPYARD" --source=. lint`, []string{"$SHIPYARD"}},
		{`dagger --mod=github.com/o/s@main call lint`, []string{"github.com/o/s@main"}},
		{`dagger -m='github.com/o/s@v1' call x && dagger call -m ./ci y`, []string{"github.com/o/s@v1", "./ci"}},
		{`echo -m x`, nil},
		{`dagger call lint`, nil},
		{`dagger call -m`, nil},
	}
	for _, tt := range tests {
		if got := moduleArgs(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("moduleArgs(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestModuleRefsResolveEnvAndSkipLocalModules(t *testing.T) {
	src := `env:
  SHIPYARD: github.com/o/shipyard@main
jobs:
  a:
    env:
      SHIPYARD: github.com/o/shipyard@v2
    steps:
      - env:
          LOCAL: ./ci
        run: |
          dagger call -m "$LOCAL" x
          dagger call -m ${SHIPYARD} y
  b:
    steps:
      - run: dagger call -m $SHIPYARD z
      - run: dagger call -m "$UNSET" z
`
	w, err := parseWorkflow("w.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := moduleRefs("w.yml", w)
	want := []moduleRef{
		{File: "w.yml", Job: "a", Line: 12, Written: "${SHIPYARD}", Address: "github.com/o/shipyard@v2"},
		{File: "w.yml", Job: "b", Line: 15, Written: "$SHIPYARD", Address: "github.com/o/shipyard@main"},
		{File: "w.yml", Job: "b", Line: 16, Written: "$UNSET", Address: ""},
	}
	if !slices.Equal(got, want) {
		t.Errorf("moduleRefs =\n%+v\nwant\n%+v", got, want)
	}
}

func TestParseWorkflowErrorsNameTheFile(t *testing.T) {
	_, err := parseWorkflow(".github/workflows/bad.yml", []byte("jobs:\n  a: [\n"))
	if err == nil || err.Error()[:len(".github/workflows/bad.yml")] != ".github/workflows/bad.yml" {
		t.Errorf("error %v", err)
	}
}

// Workflows are user files: any content is an error or a result, never a panic.
func FuzzWorkflowChecks(f *testing.F) {
	f.Add(goodCI)
	f.Add(goodPublish)
	f.Add("jobs:\n  a:\n    permissions: write-all\n    steps:\n      - run: dagger -m=x call\n")
	f.Add("jobs: [1, 2]\n")
	f.Add("permissions: ~\njobs:\n  a: ~\n")
	f.Fuzz(func(t *testing.T, src string) {
		w, err := parseWorkflow("w.yml", []byte(src))
		if err != nil {
			return
		}
		moduleRefs("w.yml", w)
		_ = publishWorkflow(ModelFacts{Repo: "o/r", Publish: File{Path: PublishWorkflow, Found: true, Content: src}})
		_ = dependabot("o/r", File{Path: ".github/dependabot.yml", Found: true, Content: src})
	})
}
