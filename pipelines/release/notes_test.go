package release

import (
	"context"
	"testing"

	"dagger/shipyard/internal/demoworld/githubsim"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/notes"
	"dagger/shipyard/internal/testkit/teskrepo"
)

func TestPreviousRelease(t *testing.T) {
	published := []string{"v0.10.6", "v0.11.0rc1", "v0.11.0", "v0.9.0", "nightly", "v1.0.0b1"}
	tests := []struct{ tag, want string }{
		{"v0.11.0", "v0.11.0rc1"},
		{"v0.11.0rc2", "v0.11.0rc1"},
		{"v0.10.7", "v0.10.6"},
		{"v1.0.0", "v1.0.0b1"},
		{"v1.0.0b1", "v0.11.0"},
		{"v0.9.0", ""},
		{"v0.1.0", ""},
		{"not-a-release", ""},
	}
	for _, tt := range tests {
		if got := PreviousRelease(tt.tag, published); got != tt.want {
			t.Errorf("PreviousRelease(%s) = %q, want %q", tt.tag, got, tt.want)
		}
	}
}

// TestComposeOnGeneratedNotes composes release bodies from notes the simulator generates as
// GitHub does, in each of the shapes GitHub writes: with and without new contributors, with
// no pull request at all, and for a first release, whose footer links the commits.
func TestComposeOnGeneratedNotes(t *testing.T) {
	const (
		base    = "https://github.com/" + teskrepo.FullName
		curated = "Release 0.11.0 brings S3 uploads.\n\n## Features\n\n- S3 uploads of the filer (#7, #8)\n"
	)
	tests := []struct {
		name      string
		published []string
		seed      func(r *teskrepo.Repo) (tag, previous string)
		want      string
	}{
		{
			name: "new contributors",
			seed: func(r *teskrepo.Repo) (string, string) {
				r.GH.MergePullRequest(githubsim.MergedPull{Title: "fix(filer): retry FTP uploads", Author: "lvarin"})
				r.Release("v0.11.0")
				return "v0.11.0", "v0.10.6"
			},
			want: curated + "\n## Commits\n\n" +
				"* fix(filer): retry FTP uploads by @lvarin in " + base + "/pull/4\n" +
				"* chore: release v0.11.0 by @uniqueg in " + base + "/pull/5\n\n" +
				"## New Contributors\n* @lvarin made their first contribution in " + base + "/pull/4\n\n" +
				"**Full Changelog**: " + base + "/compare/v0.10.6...v0.11.0\n",
		},
		{
			name: "no new contributors",
			seed: func(r *teskrepo.Repo) (string, string) {
				r.GH.MergePullRequest(githubsim.MergedPull{Title: "build(deps): bump kubernetes to 31", Author: "dependabot[bot]"})
				r.Release("v0.11.0")
				return "v0.11.0", "v0.10.6"
			},
			want: curated + "\n## Commits\n\n" +
				"* build(deps): bump kubernetes to 31 by @dependabot[bot] in " + base + "/pull/4\n" +
				"* chore: release v0.11.0 by @uniqueg in " + base + "/pull/5\n\n" +
				"**Full Changelog**: " + base + "/compare/v0.10.6...v0.11.0\n",
		},
		{
			name: "no pull request since the previous release",
			seed: func(r *teskrepo.Repo) (string, string) {
				sha := r.GH.Branch("main")
				r.Tag("v0.10.7", sha)
				return "v0.10.7", "v0.10.6"
			},
			want: curated + "\n**Full Changelog**: " + base + "/compare/v0.10.6...v0.10.7\n",
		},
		{
			name:      "first release",
			published: []string{},
			seed: func(r *teskrepo.Repo) (string, string) {
				r.Release("v0.1.0")
				return "v0.1.0", ""
			},
			want: curated + "\n## Commits\n\n" +
				"* feat(filer): S3 uploads by @uniqueg in " + base + "/pull/1\n" +
				"* build(deps): bump boto3 from 1.34.0 to 1.35.0 by @dependabot[bot] in " + base + "/pull/2\n" +
				"* chore: release v0.1.0 by @uniqueg in " + base + "/pull/3\n\n" +
				"## New Contributors\n" +
				"* @uniqueg made their first contribution in " + base + "/pull/1\n" +
				"* @dependabot[bot] made their first contribution in " + base + "/pull/2\n\n" +
				"**Full Changelog**: " + base + "/commits/v0.1.0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := teskrepo.New(t, teskrepo.Options{Published: tt.published})
			tag, previous := tt.seed(r)
			gen, err := r.Client(t, teskrepo.Token).GenerateNotes(context.Background(), teskrepo.Owner, teskrepo.Name,
				github.NotesRequest{TagName: tag, PreviousTagName: previous})
			if err != nil {
				t.Fatal(err)
			}
			if got := notes.Compose(curated, gen.Body); got != tt.want {
				t.Errorf("Compose =\n%s\nwant\n%s\n(generated:\n%q)", got, tt.want, gen.Body)
			}
		})
	}
}
