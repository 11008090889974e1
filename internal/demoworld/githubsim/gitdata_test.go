package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// pushFixture is a repository with main holding two files, and the tree SHA of main.
func pushFixture(t *testing.T, push bool) (*Server, *Repo, string, string) {
	t.Helper()
	s, repo := newRepo(t, push)
	main := repo.CommitOnBranch("main", "init", map[string]string{
		"models/upstreams.json":          "{}\n",
		"models/istio/cookiecutter.yaml": "versions: '1.24.2'\n",
		"docs/old/a.md":                  "a\n",
		"docs/old/b.md":                  "b\n",
	})
	var commit struct {
		Tree struct{ SHA string } `json:"tree"`
	}
	if resp := get(t, s, "GET", "/repos/octo/demo/git/commits/"+main, nil, "", &commit); resp.StatusCode != 200 || commit.Tree.SHA == "" {
		t.Fatalf("GET git/commits: %d, tree %q", resp.StatusCode, commit.Tree.SHA)
	}
	return s, repo, main, commit.Tree.SHA
}

func TestPushACommitWithoutACheckout(t *testing.T) {
	s, repo, main, baseTree := pushFixture(t, true)

	var tree struct {
		SHA  string `json:"sha"`
		Tree []struct {
			Path, Type string
		} `json:"tree"`
	}
	body := fmt.Sprintf(`{"base_tree": %q, "tree": [
		{"path": "models/istio/cookiecutter.yaml", "mode": "100644", "type": "blob", "content": "versions: '1.24.4'\n"},
		{"path": "docs/old", "sha": null},
		{"path": "NEW.md", "mode": "100644", "type": "blob", "content": "new\n"}]}`, baseTree)
	if resp := get(t, s, "POST", "/repos/octo/demo/git/trees", nil, body, &tree); resp.StatusCode != 201 {
		t.Fatalf("create tree: status %d", resp.StatusCode)
	}
	var top []string
	for _, e := range tree.Tree {
		top = append(top, e.Path+":"+e.Type)
	}
	if got := strings.Join(top, " "); got != "NEW.md:blob models:tree" {
		t.Errorf("top-level entries %q, want the new file and models/ (docs/ deleted)", got)
	}

	var created struct {
		SHA     string `json:"sha"`
		Message string `json:"message"`
		Tree    struct{ SHA string }
		Parents []struct{ SHA string }
	}
	body = fmt.Sprintf(`{"message": "chore: bump istio", "tree": %q, "parents": [%q]}`, tree.SHA, main)
	if resp := get(t, s, "POST", "/repos/octo/demo/git/commits", nil, body, &created); resp.StatusCode != 201 {
		t.Fatalf("create commit: status %d", resp.StatusCode)
	}
	if created.Tree.SHA != tree.SHA || len(created.Parents) != 1 || created.Parents[0].SHA != main {
		t.Errorf("commit %+v, want tree %s on parent %s", created, tree.SHA, main)
	}
	if repo.Branch("main") != main {
		t.Errorf("creating a commit moved main")
	}

	body = fmt.Sprintf(`{"ref": "refs/heads/automation/x", "sha": %q}`, created.SHA)
	if resp := get(t, s, "POST", "/repos/octo/demo/git/refs", nil, body, nil); resp.StatusCode != 201 {
		t.Fatalf("create ref: status %d", resp.StatusCode)
	}
	files := repo.Files("automation/x")
	want := map[string]string{
		"models/upstreams.json":          "{}\n",
		"models/istio/cookiecutter.yaml": "versions: '1.24.4'\n",
		"NEW.md":                         "new\n",
	}
	if fmt.Sprint(files) != fmt.Sprint(want) {
		t.Errorf("files at the branch = %v, want %v", files, want)
	}

	// The branch is served like any other: contents, ref and compare see the new commit.
	var ref struct{ Object struct{ SHA string } }
	get(t, s, "GET", "/repos/octo/demo/git/ref/heads/automation/x", nil, "", &ref)
	if ref.Object.SHA != created.SHA {
		t.Errorf("git/ref = %s, want %s", ref.Object.SHA, created.SHA)
	}
	var cmp struct {
		AheadBy  int `json:"ahead_by"`
		BehindBy int `json:"behind_by"`
		Files    []struct{ Filename, Status, SHA string }
	}
	get(t, s, "GET", "/repos/octo/demo/compare/main...automation%2Fx", nil, "", &cmp)
	var changed []string
	for _, f := range cmp.Files {
		changed = append(changed, f.Status+" "+f.Filename)
	}
	if cmp.AheadBy != 1 || cmp.BehindBy != 0 || strings.Join(changed, ", ") != "added NEW.md, removed docs/old/a.md, removed docs/old/b.md, modified models/istio/cookiecutter.yaml" {
		t.Errorf("compare: ahead %d, behind %d, files %v", cmp.AheadBy, cmp.BehindBy, changed)
	}
}

func TestGitDataErrors(t *testing.T) {
	s, repo, main, baseTree := pushFixture(t, true)
	other := repo.CommitOnBranch("other", "unrelated root", map[string]string{"x": "x\n"})
	ahead := repo.AddCommit("ahead of main", []string{main}, map[string]string{"y": "y\n"})
	tests := []struct {
		name, method, path, body string
		wantStatus               int
		wantMessage              string
	}{
		{"tree on an unknown base", "POST", "/repos/octo/demo/git/trees", `{"base_tree": "0000000000000000000000000000000000000000", "tree": []}`, 422, "base_tree is not a valid tree oid"},
		{"tree path escaping the root", "POST", "/repos/octo/demo/git/trees", `{"tree": [{"path": "../x", "mode": "100644", "content": "x"}]}`, 422, "malformed path component"},
		{"tree entry without content or sha", "POST", "/repos/octo/demo/git/trees", `{"tree": [{"path": "x", "mode": "100644", "type": "blob"}]}`, 422, "Must supply either tree.sha or tree.content"},
		{"tree entry with an unmodelled mode", "POST", "/repos/octo/demo/git/trees", `{"tree": [{"path": "x", "mode": "160000", "type": "commit", "sha": "abc"}]}`, 422, "not a file mode"},
		{"tree without entries", "POST", "/repos/octo/demo/git/trees", `{"base_tree": "` + baseTree + `"}`, 422, "Validation Failed"},
		{"commit of an unknown tree", "POST", "/repos/octo/demo/git/commits", `{"message": "m", "tree": "0000000000000000000000000000000000000000", "parents": []}`, 422, "Tree SHA does not exist"},
		{"commit on an unknown parent", "POST", "/repos/octo/demo/git/commits", `{"message": "m", "tree": "` + baseTree + `", "parents": ["0000000000000000000000000000000000000000"]}`, 422, "Parent SHA does not exist"},
		{"commit without a message", "POST", "/repos/octo/demo/git/commits", `{"tree": "` + baseTree + `"}`, 422, "Validation Failed"},
		{"unknown commit object", "GET", "/repos/octo/demo/git/commits/0000000000000000000000000000000000000000", "", 404, "Not Found"},
		{"ref that exists", "POST", "/repos/octo/demo/git/refs", `{"ref": "refs/heads/main", "sha": "` + main + `"}`, 422, "Reference already exists"},
		{"ref without refs/", "POST", "/repos/octo/demo/git/refs", `{"ref": "heads/x", "sha": "` + main + `"}`, 422, "must start with 'refs/'"},
		{"ref to an unknown object", "POST", "/repos/octo/demo/git/refs", `{"ref": "refs/heads/x", "sha": "0000000000000000000000000000000000000000"}`, 422, "Object does not exist"},
		{"update of a missing ref", "PATCH", "/repos/octo/demo/git/refs/heads/missing", `{"sha": "` + main + `"}`, 422, "Reference does not exist"},
		{"update that is not a fast forward", "PATCH", "/repos/octo/demo/git/refs/heads/main", `{"sha": "` + other + `"}`, 422, "Update is not a fast forward"},
		{"forced update", "PATCH", "/repos/octo/demo/git/refs/heads/other", `{"sha": "` + main + `", "force": true}`, 200, ""},
		{"fast forward", "PATCH", "/repos/octo/demo/git/refs/heads/main", `{"sha": "` + ahead + `"}`, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out struct{ Message string }
			resp := get(t, s, tt.method, tt.path, nil, tt.body, &out)
			if resp.StatusCode != tt.wantStatus || !strings.Contains(out.Message, tt.wantMessage) {
				t.Errorf("%d %q, want %d %q", resp.StatusCode, out.Message, tt.wantStatus, tt.wantMessage)
			}
		})
	}
	// Two of the requests lack a field GitHub's description requires, on purpose.
	expectMismatches(t, s,
		"POST /repos/octo/demo/git/trees (operation POST /repos/{owner}/{repo}/git/trees): request: request body: doesn't match schema: /: missing required tree",
		"POST /repos/octo/demo/git/commits (operation POST /repos/{owner}/{repo}/git/commits): request: request body: doesn't match schema: /: missing required message")
	if repo.Branch("other") != main || repo.Branch("main") != ahead {
		t.Errorf("branches after the updates: other %s, main %s", repo.Branch("other"), repo.Branch("main"))
	}
}

func TestGitDataWritesNeedPushAccess(t *testing.T) {
	s, _, main, baseTree := pushFixture(t, false)
	for _, w := range []struct{ method, path, body string }{
		{"POST", "/repos/octo/demo/git/trees", `{"base_tree": "` + baseTree + `", "tree": []}`},
		{"POST", "/repos/octo/demo/git/commits", `{"message": "m", "tree": "` + baseTree + `"}`},
		{"POST", "/repos/octo/demo/git/refs", `{"ref": "refs/heads/x", "sha": "` + main + `"}`},
		{"PATCH", "/repos/octo/demo/git/refs/heads/main", `{"sha": "` + main + `"}`},
	} {
		if resp := get(t, s, w.method, w.path, nil, w.body, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s %s with a read-only token: %d, want 403", w.method, w.path, resp.StatusCode)
		}
	}
	if n := len(s.Writes()); n != 4 {
		t.Errorf("logged %d writes, want 4", n)
	}
}

func TestCreatedTreeIsContentAddressed(t *testing.T) {
	s, _, _, baseTree := pushFixture(t, true)
	var a, b struct{ SHA string }
	get(t, s, "POST", "/repos/octo/demo/git/trees", nil, `{"base_tree": "`+baseTree+`", "tree": []}`, &a)
	if a.SHA != baseTree {
		t.Errorf("an empty change of the base tree is %s, want the base tree %s", a.SHA, baseTree)
	}
	entry, _ := json.Marshal(map[string]any{"tree": []map[string]string{{"path": "f", "mode": "100644", "content": "x"}}})
	get(t, s, "POST", "/repos/octo/demo/git/trees", nil, string(entry), &a)
	get(t, s, "POST", "/repos/octo/demo/git/trees", nil, string(entry), &b)
	if a.SHA == "" || a.SHA != b.SHA {
		t.Errorf("the same tree twice: %q and %q", a.SHA, b.SHA)
	}
}
