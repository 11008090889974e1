package publish

import (
	"strings"
	"testing"
)

func TestSourceRepository(t *testing.T) {
	tests := []struct {
		name    string
		repo    string
		env     map[string]string
		want    string
		wantErr string
	}{
		{name: "outside Actions: --repo", repo: "elixir-cloud-aai/tesk-core", want: "elixir-cloud-aai/tesk-core"},
		{name: "the run and --repo agree", repo: "a-fork/tesk-core", env: map[string]string{"GITHUB_REPOSITORY": "a-fork/tesk-core"}, want: "a-fork/tesk-core"},
		{name: "case differs only", repo: "A-Fork/tesk-core", env: map[string]string{"GITHUB_REPOSITORY": "a-fork/tesk-core"}, want: "a-fork/tesk-core"},
		{name: "a fork's run with upstream's --repo", repo: "elixir-cloud-aai/tesk-core", env: map[string]string{"GITHUB_REPOSITORY": "a-fork/tesk-core"},
			wantErr: `GITHUB_REPOSITORY=a-fork/tesk-core): the provenance would name the wrong source; pass the repository "$GITHUB_REPOSITORY"`},
		{name: "an empty GITHUB_REPOSITORY", repo: "elixir-cloud-aai/tesk-core", env: map[string]string{"GITHUB_REPOSITORY": ""}, wantErr: "is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SourceRepository(tt.repo, tt.env)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("SourceRepository = %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("SourceRepository = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
