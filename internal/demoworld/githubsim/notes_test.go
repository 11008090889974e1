package githubsim

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
)

// notesRepo is a repository with two releases' worth of merged pull requests:
// v0.1.0 (alice, dependabot[bot]) and, on top, bob's first and alice's second.
func notesRepo(t *testing.T) (*Server, *Repo) {
	t.Helper()
	s, repo := newRepo(t, true)
	repo.CommitOnBranch("dev", "init", map[string]string{"README.md": "# demo\n"})
	repo.MergePullRequest(MergedPull{Title: "feat: first feature", Author: "alice", Labels: []string{"enhancement"}})
	repo.MergePullRequest(MergedPull{Title: "build(deps): bump `boto3` from 1.34 to 1.35", Author: "dependabot[bot]", Labels: []string{"dependencies"}})
	_, v010 := repo.MergePullRequest(MergedPull{Title: "chore: release v0.1.0", Author: "alice"})
	repo.AnnotatedTag("v0.1.0", v010, ValidSignature())
	repo.MergePullRequest(MergedPull{Title: "fix: retry FTP uploads", Author: "bob", Labels: []string{"bug"}})
	_, v020 := repo.MergePullRequest(MergedPull{Title: "docs: the upgrade notes!", Author: "alice", Labels: []string{"documentation"}})
	repo.AnnotatedTag("v0.2.0", v020, ValidSignature())
	return s, repo
}

func TestGenerateNotes(t *testing.T) {
	const pull = "https://github.com/octo/demo/pull/"
	tests := []struct {
		name     string
		seed     func(r *Repo)
		body     string
		wantBody string
	}{
		{
			name: "first release: every author is new and the footer lists commits",
			body: `{"tag_name":"v0.1.0"}`,
			wantBody: "## What's Changed\n" +
				"* feat: first feature by @alice in " + pull + "1\n" +
				"* build(deps): bump `boto3` from 1.34 to 1.35 by @dependabot[bot] in " + pull + "2\n" +
				"* chore: release v0.1.0 by @alice in " + pull + "3\n" +
				"\n## New Contributors\n" +
				"* @alice made their first contribution in " + pull + "1\n" +
				"* @dependabot[bot] made their first contribution in " + pull + "2\n" +
				"\n**Full Changelog**: https://github.com/octo/demo/commits/v0.1.0",
		},
		{
			name: "since the previous tag: only the newcomer is new",
			body: `{"tag_name":"v0.2.0","previous_tag_name":"v0.1.0"}`,
			wantBody: "## What's Changed\n" +
				"* fix: retry FTP uploads by @bob in " + pull + "4\n" +
				"* docs: the upgrade notes! by @alice in " + pull + "5\n" +
				"\n## New Contributors\n" +
				"* @bob made their first contribution in " + pull + "4\n" +
				"\n**Full Changelog**: https://github.com/octo/demo/compare/v0.1.0...v0.2.0",
		},
		{
			name: "no new contributor leaves two blank lines before the footer",
			seed: func(r *Repo) {
				_, sha := r.MergePullRequest(MergedPull{Title: "fix: a second fix", Author: "bob"})
				r.AnnotatedTag("v0.2.1", sha, ValidSignature())
			},
			body: `{"tag_name":"v0.2.1","previous_tag_name":"v0.2.0"}`,
			wantBody: "## What's Changed\n* fix: a second fix by @bob in " + pull + "6\n\n\n" +
				"**Full Changelog**: https://github.com/octo/demo/compare/v0.2.0...v0.2.1",
		},
		{
			name: "previous release chosen by GitHub: the newest published one behind the target",
			seed: func(r *Repo) {
				r.AddRelease(Release{TagName: "v0.1.0"})
			},
			body: `{"tag_name":"v0.2.0"}`,
			wantBody: "## What's Changed\n" +
				"* fix: retry FTP uploads by @bob in " + pull + "4\n" +
				"* docs: the upgrade notes! by @alice in " + pull + "5\n" +
				"\n## New Contributors\n" +
				"* @bob made their first contribution in " + pull + "4\n" +
				"\n**Full Changelog**: https://github.com/octo/demo/compare/v0.1.0...v0.2.0",
		},
		{
			name:     "a tag that does not exist yet is generated at target_commitish",
			body:     `{"tag_name":"v0.3.0","target_commitish":"dev","previous_tag_name":"v0.2.0"}`,
			wantBody: "\n\n**Full Changelog**: https://github.com/octo/demo/compare/v0.2.0...v0.3.0",
		},
		{
			name: "categories from .github/release.yml, excluded authors, the configuration comment",
			seed: func(r *Repo) {
				r.MergePullRequest(MergedPull{Title: "build(deps): bump ruff", Author: "dependabot[bot]"})
				_, sha := r.MergePullRequest(MergedPull{Title: "ci: release notes categories", Author: "carol", Files: map[string]string{
					".github/release.yml": "changelog:\n  exclude:\n    authors: ['dependabot[bot]']\n  categories:\n" +
						"    - title: Fixes 🐞\n      labels: [bug]\n    - title: Other Changes 🔗\n      labels: ['*']\n",
				}})
				r.AnnotatedTag("v0.3.0", sha, ValidSignature())
				r.MergePullRequest(MergedPull{Title: "fix: after the tag", Author: "dave", Labels: []string{"bug"}})
				r.SetBranch("main", sha)
			},
			body: `{"tag_name":"v0.3.0","target_commitish":"main","previous_tag_name":"v0.1.0"}`,
			wantBody: "<!-- Release notes generated using configuration in .github/release.yml at main -->\n\n" +
				"## What's Changed\n" +
				"### Fixes 🐞\n* fix: retry FTP uploads by @bob in " + pull + "4\n" +
				"### Other Changes 🔗\n* docs: the upgrade notes! by @alice in " + pull + "5\n" +
				"* ci: release notes categories by @carol in " + pull + "7\n" +
				"\n## New Contributors\n" +
				"* @bob made their first contribution in " + pull + "4\n" +
				"* @carol made their first contribution in " + pull + "7\n" +
				"\n**Full Changelog**: https://github.com/octo/demo/compare/v0.1.0...v0.3.0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, repo := notesRepo(t)
			if tt.seed != nil {
				tt.seed(repo)
			}
			var got struct{ Name, Body string }
			resp := get(t, s, http.MethodPost, "/repos/octo/demo/releases/generate-notes", nil, tt.body, &got)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %+v", resp.StatusCode, got)
			}
			if got.Body != tt.wantBody {
				t.Errorf("body =\n%q\nwant\n%q", got.Body, tt.wantBody)
			}
			var in struct {
				TagName string `json:"tag_name"`
			}
			_ = json.Unmarshal([]byte(tt.body), &in)
			if got.Name != in.TagName {
				t.Errorf("name %q, want the tag %q", got.Name, in.TagName)
			}
			if n := len(repo.Releases()); n > 1 {
				t.Errorf("generating notes saved something: %d releases", n)
			}
		})
	}
}

func TestGenerateNotesRefusals(t *testing.T) {
	tests := []struct {
		name   string
		push   bool
		body   string
		status int
		field  string
		// offDescription is the disagreement with GitHub's description the request
		// makes on purpose.
		offDescription string
	}{
		{"read-only token", false, `{"tag_name":"v0.2.0"}`, http.StatusForbidden, "", ""},
		{"no tag name", true, `{"previous_tag_name":"v0.1.0"}`, http.StatusUnprocessableEntity, "tag_name",
			"request body: doesn't match schema: /: missing required tag_name"},
		{"unknown previous tag", true, `{"tag_name":"v0.2.0","previous_tag_name":"v0.0.9"}`, http.StatusUnprocessableEntity, "previous_tag_name", ""},
		{"new tag at an unknown commitish", true, `{"tag_name":"v9.0.0","target_commitish":"nope"}`, http.StatusUnprocessableEntity, "target_commitish", ""},
		{"malformed JSON", true, `{"tag_name":`, http.StatusBadRequest, "",
			"request body has an error: failed to decode request body: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, repo := notesRepo(t)
			if !tt.push {
				s.AddToken(testToken, Token{})
			}
			var body map[string]any
			resp := get(t, s, http.MethodPost, "/repos/octo/demo/releases/generate-notes", nil, tt.body, &body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %v", resp.StatusCode, tt.status, body)
			}
			if tt.field != "" && !strings.Contains(toJSON(t, body), `"field":"`+tt.field+`"`) {
				t.Errorf("error %v does not name %s", body, tt.field)
			}
			if len(repo.Releases()) != 0 {
				t.Error("a refused request saved a release")
			}
			if tt.offDescription != "" {
				expectMismatches(t, s, "POST /repos/octo/demo/releases/generate-notes (operation POST /repos/{owner}/{repo}/releases/generate-notes): request: "+tt.offDescription)
			}
		})
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shape reduces a generated body to its structure, one token per line kind with runs of
// bullets collapsed, so the simulator's output can be held against bodies GitHub wrote.
func shape(body string) string {
	var out []string
	bullet := regexp.MustCompile(`^\* .+ by @[^ ]+ in https://github\.com/[^/]+/[^/]+/pull/[0-9]+$`)
	newcomer := regexp.MustCompile(`^\* @[^ ]+ made their first contribution in https://github\.com/[^/]+/[^/]+/pull/[0-9]+$`)
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		var tok string
		switch {
		case l == "":
			tok = "blank"
		case strings.HasPrefix(l, "<!-- Release notes generated using configuration in "):
			tok = "config"
		case l == "## What's Changed":
			tok = "changed"
		case l == "## New Contributors":
			tok = "contributors"
		case strings.HasPrefix(l, "### "):
			tok = "category"
		case bullet.MatchString(l):
			tok = "pull"
		case newcomer.MatchString(l):
			tok = "newcomer"
		case regexp.MustCompile(`^\*\*Full Changelog\*\*: https://github\.com/[^/]+/[^/]+/compare/[^ ]+\.\.\.[^ ]+$`).MatchString(l):
			tok = "compare"
		case regexp.MustCompile(`^\*\*Full Changelog\*\*: https://github\.com/[^/]+/[^/]+/commits/[^ ]+$`).MatchString(l):
			tok = "commits"
		default:
			tok = "other(" + l + ")"
		}
		if (tok == "pull" || tok == "newcomer") && len(out) > 0 && out[len(out)-1] == tok {
			continue
		}
		out = append(out, tok)
	}
	return strings.Join(out, " ")
}

// TestGenerateNotesShapedLikeGitHub holds the simulator's bodies against the generated
// bodies in the shared corpus, line kind by line kind.
func TestGenerateNotesShapedLikeGitHub(t *testing.T) {
	tests := []struct {
		corpusFile string
		seed       func(r *Repo)
		body       string
	}{
		{corpusFile: "generated-1.md", body: `{"tag_name":"v0.2.1","previous_tag_name":"v0.2.0"}`, seed: func(r *Repo) {
			r.MergePullRequest(MergedPull{Title: "deps: bump a", Author: "bob"})
			_, sha := r.MergePullRequest(MergedPull{Title: "deps: bump b", Author: "alice"})
			r.AnnotatedTag("v0.2.1", sha, ValidSignature())
		}},
		{corpusFile: "generated-2.md", body: `{"tag_name":"v0.3.0","target_commitish":"main","previous_tag_name":"v0.2.0"}`, seed: func(r *Repo) {
			_, sha := r.MergePullRequest(MergedPull{Title: "chore: synced file(s)", Author: "DeployDuck", Files: map[string]string{
				".github/release.yml": "changelog:\n  categories:\n    - title: Other Changes 🔗\n      labels: ['*']\n",
			}})
			r.AnnotatedTag("v0.3.0", sha, ValidSignature())
		}},
		{corpusFile: "generated-4-empty.md", body: `{"tag_name":"v0.3.0","previous_tag_name":"v0.2.0"}`, seed: func(r *Repo) {
			_, sha := r.MergePullRequest(MergedPull{Title: "ci: configure notes", Author: "alice", Files: map[string]string{
				".github/release.yml": "changelog:\n  exclude:\n    authors: [alice]\n",
			}})
			r.AnnotatedTag("v0.3.0", sha, ValidSignature())
		}},
		{corpusFile: "generated-5-first-release.md", body: `{"tag_name":"v0.1.0"}`},
	}
	for _, tt := range tests {
		t.Run(tt.corpusFile, func(t *testing.T) {
			want := shape(string(corpus.Read(t, "release-notes", tt.corpusFile)))
			s, repo := notesRepo(t)
			if tt.seed != nil {
				tt.seed(repo)
			}
			var got struct{ Body string }
			if resp := get(t, s, http.MethodPost, "/repos/octo/demo/releases/generate-notes", nil, tt.body, &got); resp.StatusCode != 200 {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if g := shape(got.Body); g != want {
				t.Errorf("shape\n%s\nwant (GitHub's)\n%s\nbody:\n%s", g, want, got.Body)
			}
		})
	}
}
