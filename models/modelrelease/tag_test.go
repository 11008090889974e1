package modelrelease

import (
	"net/http"
	"strings"
	"testing"
)

func TestTagAt(t *testing.T) {
	const want, other = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	tests := []struct {
		name    string
		got     string
		found   bool
		when    tagMoment
		wantErr string
	}{
		{name: "before, no tag yet", when: tagBeforePublish},
		{name: "before, tag at the draft's commit (a re-run)", got: want, found: true, when: tagBeforePublish},
		{name: "before, stray tag elsewhere", got: other, found: true, when: tagBeforePublish, wantErr: "tag 1.17.1.0 already exists at 222222222222"},
		{name: "before, tag of no commit", found: true, when: tagBeforePublish, wantErr: "already exists at no commit"},
		{name: "after, tag at the draft's commit", got: want, found: true, when: tagAfterPublish},
		{name: "after, tag elsewhere", got: other, found: true, when: tagAfterPublish, wantErr: "points at 222222222222, not at the draft's commit 111111111111"},
		{name: "after, no tag", when: tagAfterPublish, wantErr: "has no tag 1.17.1.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tagAt("1.17.1.0", want, tt.got, tt.found, tt.when)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// GitHub publishes a draft on an existing tag wherever it points: a stray tag of the
// version found before publishing keeps the draft a draft.
func TestStrayTagKeepsTheDraftUnpublished(t *testing.T) {
	w := newWorld(t)
	gh := w.client(&hook{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/releases")
		},
		before: func() { w.repo.LightweightTag("1.17.1.0", w.main) },
	})
	res, _, err := w.run(ReleaseOptions{Publish: true}, gh, "1.17.1.0")
	if err == nil || !strings.Contains(err.Error(), "tag 1.17.1.0 already exists at") || res.Published {
		t.Fatalf("err = %v\n%s", err, res.Text())
	}
	drafts := w.releasesOf("1.17.1.0")
	if len(drafts) != 1 || !drafts[0].Draft || w.repo.Tag("1.17.1.0") != w.main {
		t.Errorf("releases %+v, tag %q", drafts, w.repo.Tag("1.17.1.0"))
	}
}

// A tag that appears between the check and the publish is caught on reading back.
func TestTagMadeWhilePublishingIsCaughtOnReadBack(t *testing.T) {
	w := newWorld(t)
	gh := w.client(&hook{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodPatch && strings.Contains(r.URL.Path, "/releases/")
		},
		before: func() { w.repo.LightweightTag("1.17.1.0", w.main) },
	})
	res, _, err := w.run(ReleaseOptions{Publish: true}, gh, "1.17.1.0")
	if err == nil || !strings.Contains(err.Error(), "not at the draft's commit") {
		t.Fatalf("err = %v\n%s", err, res.Text())
	}
	if !res.Published || w.repo.Tag("1.17.1.0") != w.main || res.Commit == w.main {
		t.Errorf("published %v, tag %q, draft commit %q", res.Published, w.repo.Tag("1.17.1.0"), res.Commit)
	}
}

// The ordinary publish creates the tag at the draft's commit and passes both checks.
func TestPublishedTagIsAtTheDraftsCommit(t *testing.T) {
	w := newWorld(t)
	res, _, err := w.run(ReleaseOptions{Publish: true}, nil, "1.17.1.0")
	if err != nil || !res.Published {
		t.Fatalf("err = %v\n%s", err, res.Text())
	}
	if tag := w.repo.Tag("1.17.1.0"); tag == "" || tag != res.Commit {
		t.Errorf("tag at %q, draft commit %q", tag, res.Commit)
	}
}
