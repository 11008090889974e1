package provenance

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	commit = "89abcdef0123456789abcdef0123456789abcdef"
)

func baseInput() Input {
	return Input{
		ImageName:        "index.docker.io/elixircloud/tesk-core-filer",
		ImageDigest:      digest,
		SourceRepository: "https://github.com/elixir-cloud-aai/tesk-core.git",
		SourceRef:        "refs/tags/v0.11.0",
		SourceCommit:     commit,
		Dockerfile:       "containers/filer.Dockerfile",
		BuildArgs:        map[string]string{"SETUPTOOLS_SCM_PRETEND_VERSION": "0.11.0"},
	}
}

func actions() GitHub {
	return GitHub{
		ServerURL:         "https://github.com",
		Repository:        "elixir-cloud-aai/tesk-core",
		RepositoryID:      "123",
		RepositoryOwnerID: "456",
		WorkflowRef:       "elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0",
		EventName:         "push",
		RunID:             "789",
		RunAttempt:        "2",
		RunnerEnvironment: "github-hosted",
	}
}

// decoded re-reads the JSON so the test checks the bytes consumers see.
func decoded(t *testing.T, s Statement) map[string]any {
	t.Helper()
	b, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func get(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			a, _ := m.([]any)
			if k >= len(a) {
				return nil
			}
			m = a[k]
		}
	}
	return m
}

func TestBuild(t *testing.T) {
	started := time.Date(2025, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name   string
		modify func(*Input)
		want   map[string]any // JSON path (dot separated) -> value
	}{
		{
			name:   "github actions",
			modify: func(in *Input) { in.GitHub = actions() },
			want: map[string]any{
				"_type":                               StatementType,
				"predicateType":                       SLSAPredicateType,
				"subject.0.name":                      "index.docker.io/elixircloud/tesk-core-filer",
				"subject.0.digest.sha256":             strings.TrimPrefix(digest, "sha256:"),
				"predicate.buildDefinition.buildType": GitHubWorkflowBuildType,
				"predicate.buildDefinition.externalParameters.workflow.ref":                                   "refs/tags/v0.11.0",
				"predicate.buildDefinition.externalParameters.workflow.repository":                            "https://github.com/elixir-cloud-aai/tesk-core",
				"predicate.buildDefinition.externalParameters.workflow.path":                                  ".github/workflows/release.yml",
				"predicate.buildDefinition.externalParameters.build.dockerfile":                               "containers/filer.Dockerfile",
				"predicate.buildDefinition.externalParameters.build.source.commit":                            commit,
				"predicate.buildDefinition.externalParameters.build.buildArgs.SETUPTOOLS_SCM_PRETEND_VERSION": "0.11.0",
				"predicate.buildDefinition.internalParameters.github.runner_environment":                      "github-hosted",
				"predicate.buildDefinition.resolvedDependencies.0.uri":                                        "git+https://github.com/elixir-cloud-aai/tesk-core@refs/tags/v0.11.0",
				"predicate.buildDefinition.resolvedDependencies.0.digest.gitCommit":                           commit,
				"predicate.runDetails.builder.id":                                                             "https://github.com/elixir-cloud-aai/tesk-core/.github/workflows/release.yml@refs/tags/v0.11.0",
				"predicate.runDetails.metadata.invocationId":                                                  "https://github.com/elixir-cloud-aai/tesk-core/actions/runs/789/attempts/2",
				"predicate.runDetails.metadata.startedOn":                                                     nil,
				"predicate.buildDefinition.externalParameters.build.platforms":                                nil,
			},
		},
		{
			name: "a platform image of a multi-platform build",
			modify: func(in *Input) {
				in.GitHub = actions()
				in.Platforms = []string{"linux/arm64/v8"}
			},
			want: map[string]any{
				"predicate.buildDefinition.externalParameters.build.platforms.0": "linux/arm64/v8",
				"predicate.buildDefinition.externalParameters.build.platforms.1": nil,
			},
		},
		{
			name: "outside actions with base images and times",
			modify: func(in *Input) {
				in.BuilderID = "https://example.org/builders/laptop"
				in.BuildType = "https://example.org/buildtypes/dagger-dockerfile/v1"
				in.InvocationID = "run-1"
				in.SourceRef = ""
				in.BuildArgs = nil
				in.StartedOn = started
				in.BaseImages = []BaseImage{
					{Name: "docker.io/library/python:3.12-alpine", Digest: "sha256:" + strings.Repeat("b", 64)},
					{Name: "docker.io/library/alpine:3.20", Digest: "sha256:" + strings.Repeat("a", 64)},
					{Name: "localhost:5000/base", Digest: "sha256:" + strings.Repeat("c", 64)},
				}
			},
			want: map[string]any{
				"predicate.buildDefinition.buildType":                            "https://example.org/buildtypes/dagger-dockerfile/v1",
				"predicate.buildDefinition.externalParameters.workflow":          nil,
				"predicate.buildDefinition.externalParameters.build.buildArgs":   nil,
				"predicate.buildDefinition.internalParameters":                   nil,
				"predicate.buildDefinition.resolvedDependencies.0.uri":           "git+https://github.com/elixir-cloud-aai/tesk-core",
				"predicate.buildDefinition.resolvedDependencies.1.uri":           "pkg:docker/docker.io/library/alpine@3.20",
				"predicate.buildDefinition.resolvedDependencies.1.digest.sha256": strings.Repeat("a", 64),
				"predicate.buildDefinition.resolvedDependencies.2.uri":           "pkg:docker/docker.io/library/python@3.12-alpine",
				"predicate.runDetails.builder.id":                                "https://example.org/builders/laptop",
				"predicate.runDetails.metadata.invocationId":                     "run-1",
				"predicate.runDetails.metadata.startedOn":                        "2025-01-02T02:04:05Z",
			},
		},
		{
			name: "outside actions without invocation has no metadata",
			modify: func(in *Input) {
				in.BuilderID = "b"
				in.BuildType = "t"
			},
			want: map[string]any{"predicate.runDetails.metadata": nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput()
			tt.modify(&in)
			s, err := Build(in)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			m := decoded(t, s)
			for path, want := range tt.want {
				var p []any
				for _, part := range strings.Split(path, ".") {
					if n, ok := atoi(part); ok {
						p = append(p, n)
					} else {
						p = append(p, part)
					}
				}
				if got := get(m, p...); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %#v, want %#v", path, got, want)
				}
			}
		})
	}
}

func atoi(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func TestBuildDeterministic(t *testing.T) {
	in := baseInput()
	in.GitHub = actions()
	in.BuildArgs = map[string]string{"Z": "1", "A": "2", "M": "3"}
	first, err := Build(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		s, err := Build(in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("run %d differs:\n%s\n%s", i, got, want)
		}
	}
}

func TestBuildInvalid(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*Input)
		msg    string
	}{
		{"digest with tag", func(in *Input) { in.ImageDigest = "latest" }, "image digest"},
		{"short digest", func(in *Input) { in.ImageDigest = "sha256:abc" }, "image digest"},
		{"name with digest", func(in *Input) { in.ImageName += "@" + digest }, "image name"},
		{"short commit", func(in *Input) { in.SourceCommit = "abc123" }, "source commit"},
		{"http repository", func(in *Input) { in.SourceRepository = "http://x/y" }, "source repository"},
		{"no dockerfile", func(in *Input) { in.Dockerfile = "" }, "dockerfile"},
		{"no builder outside actions", func(in *Input) { in.BuildType = "t" }, "builder id"},
		{"no build type outside actions", func(in *Input) { in.BuilderID = "b" }, "build type"},
		{"bad base image", func(in *Input) {
			in.BuilderID, in.BuildType = "b", "t"
			in.BaseImages = []BaseImage{{Name: "alpine", Digest: "sha256:1"}}
		}, "base image"},
		{"platform without architecture", func(in *Input) {
			in.GitHub = actions()
			in.Platforms = []string{"linux"}
		}, "platform"},
		{"source of another repository than the run's", func(in *Input) {
			in.GitHub = actions()
			in.SourceRepository = "https://github.com/attacker/tesk-core"
		}, "source repository"},
		{"source on another server than the run's", func(in *Input) {
			in.GitHub = actions()
			in.SourceRepository = "https://github.example/elixir-cloud-aai/tesk-core"
		}, "source repository"},
		{"source under the run's repository", func(in *Input) {
			in.GitHub = actions()
			in.SourceRepository = "https://github.com/elixir-cloud-aai/tesk-core/fork"
		}, "source repository"},
		{"workflow of another repository", func(in *Input) {
			in.GitHub = actions()
			in.GitHub.WorkflowRef = "other/repo/.github/workflows/x.yml@refs/heads/main"
		}, "workflow ref"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := baseInput()
			tt.modify(&in)
			_, err := Build(in)
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want mention of %q", err, tt.msg)
			}
		})
	}
}
