package publish_test

import (
	"reflect"
	"strings"
	"testing"

	"dagger/shipyard/pipelines/ci"
	"dagger/shipyard/pipelines/ci/artifact"
	"dagger/shipyard/pipelines/publish"
)

func TestAttestArgs(t *testing.T) {
	filer := ci.Image{Spec: ci.ImageSpec{Name: "filer", Repository: "tesk-core-filer", Dockerfile: "containers/filer.Dockerfile"}, Version: "0.11.0"}
	fromHistory := filer
	fromHistory.Version = ""
	src := publish.Origin{SourceRepository: "https://github.com/elixir-cloud-aai/tesk-core"}.Provenance("refs/tags/v0.11.0", sha)
	withGitHub := src
	withGitHub.GitHub = map[string]string{"GITHUB_WORKFLOW_REF": "o/r/.github/workflows/release.yml@refs/tags/v0.11.0", "GITHUB_RUN_ID": "7", "RUNNER_ENVIRONMENT": "github-hosted"}
	withGitHub.BaseImages = map[string][]string{"filer": {"docker.io/library/python:3.13-alpine@sha256:" + strings.Repeat("b", 64), "docker.io/library/alpine:3.22@sha256:" + strings.Repeat("a", 64)}}
	outside := src
	outside.BuilderID, outside.BuildType, outside.InvocationID = "https://example.org/runner/1", "https://example.org/buildtypes/dagger-dockerfile/v1", "run-9"
	badKey := withGitHub
	badKey.GitHub = map[string]string{"GITHUB_WORKFLOW_REF": "x", "GITHUB_TOKEN": "nope"}

	tests := []struct {
		name    string
		p       publish.Provenance
		img     ci.Image
		want    []string
		wantErr string
	}{
		{name: "in GitHub Actions", p: withGitHub, img: filer, want: []string{
			"--source-repository", "https://github.com/elixir-cloud-aai/tesk-core", "--source-commit", sha, "--source-ref", "refs/tags/v0.11.0",
			"--dockerfile", "containers/filer.Dockerfile", "--build-arg", "SETUPTOOLS_SCM_PRETEND_VERSION=0.11.0",
			"--base-image", "docker.io/library/alpine:3.22@sha256:" + strings.Repeat("a", 64),
			"--base-image", "docker.io/library/python:3.13-alpine@sha256:" + strings.Repeat("b", 64),
			"--github-run-id", "7", "--github-workflow-ref", "o/r/.github/workflows/release.yml@refs/tags/v0.11.0",
			"--github-runner-environment", "github-hosted",
		}},
		{name: "outside Actions, version from history", p: outside, img: fromHistory, want: []string{
			"--source-repository", "https://github.com/elixir-cloud-aai/tesk-core", "--source-commit", sha, "--source-ref", "refs/tags/v0.11.0",
			"--dockerfile", "containers/filer.Dockerfile",
			"--builder-id", "https://example.org/runner/1", "--build-type", "https://example.org/buildtypes/dagger-dockerfile/v1", "--invocation-id", "run-9",
		}},
		{name: "outside Actions without a builder", p: src, img: filer, wantErr: "needs the builder id and the build type"},
		{name: "unknown GitHub variable", p: badKey, img: filer, wantErr: "GITHUB_TOKEN is not one of"},
		{name: "no commit", p: publish.Origin{SourceRepository: "https://github.com/o/r"}.Provenance("", ""), img: filer, wantErr: "source repository and commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := publish.AttestArgs(tt.p, artifact.One(tt.img))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("args\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseGitHubEnv(t *testing.T) {
	tests := []struct {
		pairs   []string
		want    map[string]string
		wantErr string
	}{
		{pairs: nil, want: nil},
		{pairs: []string{"GITHUB_RUN_ID=42", "GITHUB_WORKFLOW_REF=o/r/.github/workflows/ci.yml@refs/heads/dev"},
			want: map[string]string{"GITHUB_RUN_ID": "42", "GITHUB_WORKFLOW_REF": "o/r/.github/workflows/ci.yml@refs/heads/dev"}},
		{pairs: []string{"GITHUB_RUN_ID"}, wantErr: "is not KEY=VALUE"},
		{pairs: []string{"ACTIONS_ID_TOKEN_REQUEST_TOKEN=x"}, wantErr: "is not one of"},
	}
	for _, tt := range tests {
		got, err := publish.ParseGitHubEnv(tt.pairs)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseGitHubEnv(%q) err = %v, want %q", tt.pairs, err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "=x") {
				t.Errorf("the error echoes the value: %v", err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseGitHubEnv(%q) = %v, %v", tt.pairs, got, err)
		}
	}
}

func TestBaseImages(t *testing.T) {
	d := "@sha256:" + strings.Repeat("d", 64)
	tests := []struct {
		name, dockerfile string
		want             []string
	}{
		{"pinned stages, once each", "FROM python:3.12-alpine" + d + " AS build\nRUN x\nfrom --platform=linux/amd64 python:3.12-alpine" + d + "\n",
			[]string{"python:3.12-alpine" + d}},
		{"two bases", "FROM a/b" + d + "\nFROM docker.io/c/d:1" + d + "\n", []string{"a/b" + d, "docker.io/c/d:1" + d}},
		{"unpinned, stage and ARG bases left out", "ARG BASE\nFROM python:3.12\nFROM build\nFROM ${BASE}" + d + "\nFROM x@sha256:short\n", nil},
		{"no FROM", "RUN echo FROM x" + d + "\n", nil},
	}
	for _, tt := range tests {
		if got := publish.BaseImages(tt.dockerfile); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: BaseImages = %q, want %q", tt.name, got, tt.want)
		}
	}
}
