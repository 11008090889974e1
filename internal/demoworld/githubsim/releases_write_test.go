package githubsim

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestUpdateRelease(t *testing.T) {
	type want struct {
		status  int
		tag     string // where the tag points afterwards ("" = no tag)
		draft   bool
		target  string
		message string
	}
	tests := []struct {
		name  string
		seed  func(r *Repo, first, second string) int64 // returns the id to patch
		body  func(first, second string) string
		token bool
		want  func(first, second string) want
	}{
		{
			name: "moving a draft to another commit leaves no tag",
			seed: func(r *Repo, first, _ string) int64 {
				return r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: first, Draft: true})
			},
			body:  func(_, second string) string { return fmt.Sprintf(`{"target_commitish":%q,"body":"new"}`, second) },
			token: true,
			want:  func(_, second string) want { return want{status: 200, draft: true, target: second} },
		},
		{
			name: "publishing a draft tags its pinned commit",
			seed: func(r *Repo, first, _ string) int64 {
				return r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: first, Draft: true})
			},
			body:  func(_, _ string) string { return `{"draft":false}` },
			token: true,
			want:  func(first, _ string) want { return want{status: 200, tag: first, target: first} },
		},
		{
			name: "publishing over a published release of the tag is refused",
			seed: func(r *Repo, first, second string) int64 {
				r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: first})
				return r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: second, Draft: true})
			},
			body:  func(_, _ string) string { return `{"draft":false}` },
			token: true,
			want: func(_, second string) want {
				return want{status: 422, draft: true, target: second, message: "already_exists"}
			},
		},
		{
			name: "a read-only token cannot edit",
			seed: func(r *Repo, first, _ string) int64 {
				return r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: first})
			},
			body:  func(_, _ string) string { return `{"body":"x"}` },
			token: false,
			want:  func(first, _ string) want { return want{status: 403, tag: "", target: first} },
		},
		{
			name: "an unknown commit is invalid when publishing",
			seed: func(r *Repo, _, _ string) int64 {
				return r.AddRelease(Release{TagName: "1.31.5.0", TargetCommitish: "0000000000000000000000000000000000000000", Draft: true})
			},
			body:  func(_, _ string) string { return `{"draft":false}` },
			token: true,
			want: func(_, _ string) want {
				return want{status: 422, draft: true, target: "0000000000000000000000000000000000000000", message: "target_commitish"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, repo := newRepo(t, tt.token)
			first := repo.CommitOnBranch("release-1.31", "first", map[string]string{"a": "1"})
			second := repo.CommitOnBranch("release-1.31", "second", map[string]string{"a": "2"})
			id := tt.seed(repo, first, second)
			var body map[string]any
			resp := get(t, s, http.MethodPatch, fmt.Sprintf("/repos/octo/demo/releases/%d", id), nil, tt.body(first, second), &body)
			w := tt.want(first, second)
			if resp.StatusCode != w.status {
				t.Fatalf("status %d, want %d (%v)", resp.StatusCode, w.status, body)
			}
			if w.message != "" && !strings.Contains(fmt.Sprint(body), w.message) {
				t.Errorf("body %v lacks %q", body, w.message)
			}
			if got := repo.Tag("1.31.5.0"); got != w.tag {
				t.Errorf("tag at %q, want %q", got, w.tag)
			}
			for _, rel := range repo.Releases() {
				if rel.ID != id {
					continue
				}
				if rel.Draft != w.draft || rel.TargetCommitish != w.target {
					t.Errorf("release %+v, want draft=%v target=%s", rel, w.draft, w.target)
				}
				if !rel.Draft && rel.PublishedAt.IsZero() {
					t.Error("published release without published_at")
				}
			}
		})
	}
}

func TestGetAndDeleteRelease(t *testing.T) {
	s, repo := newRepo(t, true)
	sha := repo.CommitOnBranch("main", "init", map[string]string{"a": "1"})
	draft := repo.AddRelease(Release{TagName: "1.0.0.0", TargetCommitish: sha, Draft: true})
	path := fmt.Sprintf("/repos/octo/demo/releases/%d", draft)

	var got map[string]any
	if resp := get(t, s, http.MethodGet, path, nil, "", &got); resp.StatusCode != 200 || got["target_commitish"] != sha {
		t.Fatalf("get draft: %d %v", resp.StatusCode, got)
	}
	// Drafts stay hidden from tokens without push access.
	s.AddToken("reader", Token{})
	req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
	req.Header.Set("Authorization", "Bearer reader")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("reader sees the draft: %d", resp.StatusCode)
	}
	if resp := get(t, s, http.MethodDelete, path, nil, "", nil); resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	if resp := get(t, s, http.MethodDelete, path, nil, "", nil); resp.StatusCode != 404 {
		t.Errorf("second delete: %d, want 404", resp.StatusCode)
	}
	if len(repo.Releases()) != 0 {
		t.Errorf("releases left: %+v", repo.Releases())
	}
	if resp := get(t, s, http.MethodGet, "/repos/octo/demo/releases/not-a-number", nil, "", nil); resp.StatusCode != 404 {
		t.Errorf("malformed id: %d", resp.StatusCode)
	}
	expectMismatches(t, s, `GET /repos/octo/demo/releases/not-a-number (operation GET /repos/{owner}/{repo}/releases/{release_id}): request: parameter "release_id" in path has an error: value not-a-number: an invalid integer`)
}

func TestListTagsPeeledAndPaginated(t *testing.T) {
	s, repo := newRepo(t, false)
	sha := repo.CommitOnBranch("main", "init", map[string]string{"a": "1"})
	for i := range 35 {
		repo.LightweightTag(fmt.Sprintf("1.0.%d", i), sha)
	}
	repo.AnnotatedTag("2.0.0", sha, ValidSignature())
	var page1, page2 []struct {
		Name   string `json:"name"`
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	resp := get(t, s, http.MethodGet, "/repos/octo/demo/tags?per_page=30", nil, "", &page1)
	if len(page1) != 30 || resp.Header.Get("Link") == "" {
		t.Fatalf("page 1: %d tags, Link %q", len(page1), resp.Header.Get("Link"))
	}
	get(t, s, http.MethodGet, "/repos/octo/demo/tags?per_page=30&page=2", nil, "", &page2)
	if len(page2) != 6 {
		t.Fatalf("page 2: %d tags", len(page2))
	}
	if page1[0].Name != "2.0.0" || page1[0].Commit.SHA != sha {
		t.Errorf("annotated tag not peeled to its commit: %+v", page1[0])
	}
}
