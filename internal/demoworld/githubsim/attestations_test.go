package githubsim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var (
	digestA = "sha256:" + strings.Repeat("a", 64)
	digestB = "sha256:" + strings.Repeat("b", 64)
)

// testBundle is a Sigstore bundle's shape around an in-toto statement with the given
// subjects (hex, without sha256:) and predicate type; the simulator, like GitHub's
// store, indexes what the statement says and keeps the rest as sent.
func testBundle(predicateType string, subjects ...string) string {
	var subj []map[string]any
	for i, s := range subjects {
		subj = append(subj, map[string]any{"name": fmt.Sprintf("image-%d", i), "digest": map[string]string{"sha256": s}})
	}
	st, _ := json.Marshal(map[string]any{
		"_type": "https://in-toto.io/Statement/v1", "subject": subj, "predicateType": predicateType,
	})
	b, _ := json.Marshal(map[string]any{
		"mediaType":            "application/vnd.dev.sigstore.bundle.v0.3+json",
		"verificationMaterial": map[string]any{"certificate": map[string]string{"rawBytes": "MIIB"}},
		"dsseEnvelope": map[string]any{
			"payload":     base64.StdEncoding.EncodeToString(st),
			"payloadType": "application/vnd.in-toto+json",
			"signatures":  []map[string]string{{"sig": "MEUCIQ=="}},
		},
	})
	return string(b)
}

type attestationList struct {
	Attestations []struct {
		Bundle       json.RawMessage `json:"bundle"`
		RepositoryID int64           `json:"repository_id"`
		BundleURL    string          `json:"bundle_url"`
		Initiator    string          `json:"initiator"`
	} `json:"attestations"`
}

func upload(t *testing.T, s *Server, repo, bundle string) (*http.Response, map[string]any) {
	t.Helper()
	var out map[string]any
	resp := get(t, s, "POST", "/repos/"+repo+"/attestations", nil, `{"bundle":`+bundle+`}`, &out)
	return resp, out
}

func TestAttestationsListedBySubjectForRepoAndOwner(t *testing.T) {
	s := New(t)
	s.AddToken(testToken, Token{})
	repo := s.AddRepo("elixir-cloud-aai", "tesk-core")
	other := s.AddRepo("elixir-cloud-aai", "tesk-api")
	s.AddRepo("someone", "fork")
	provenance := testBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64), strings.Repeat("b", 64))
	sbom := testBundle("https://cyclonedx.org/bom", strings.Repeat("a", 64))
	for _, b := range []struct{ repo, bundle string }{
		{"elixir-cloud-aai/tesk-core", provenance}, {"elixir-cloud-aai/tesk-core", sbom}, {"elixir-cloud-aai/tesk-api", sbom},
	} {
		resp, out := upload(t, s, b.repo, b.bundle)
		if resp.StatusCode != http.StatusCreated || out["id"] == nil {
			t.Fatalf("upload to %s: %d %v, want 201 with an id", b.repo, resp.StatusCode, out)
		}
	}
	tests := []struct {
		path  string
		want  int     // attestations listed; none is GitHub's 404
		repos []int64 // their repository ids, in order
	}{
		{"/repos/elixir-cloud-aai/tesk-core/attestations/" + digestA, 2, []int64{repo.id, repo.id}},
		{"/repos/elixir-cloud-aai/tesk-core/attestations/" + digestB, 1, []int64{repo.id}},
		{"/repos/elixir-cloud-aai/tesk-core/attestations/" + digestA + "?predicate_type=provenance", 1, []int64{repo.id}},
		{"/repos/elixir-cloud-aai/tesk-core/attestations/" + digestA + "?predicate_type=sbom", 1, []int64{repo.id}},
		{"/repos/elixir-cloud-aai/tesk-core/attestations/" + digestA + "?predicate_type=https://cyclonedx.org/bom", 1, []int64{repo.id}},
		{"/repos/elixir-cloud-aai/tesk-core/attestations/sha256:" + strings.Repeat("c", 64), 0, nil},
		// An upper-case digest names the same subject.
		{"/repos/elixir-cloud-aai/tesk-core/attestations/sha256:" + strings.Repeat("A", 64), 2, []int64{repo.id, repo.id}},
		{"/orgs/elixir-cloud-aai/attestations/" + digestA, 3, []int64{repo.id, repo.id, other.id}},
		{"/users/elixir-cloud-aai/attestations/" + digestA + "?predicate_type=sbom", 2, []int64{repo.id, other.id}},
		{"/orgs/someone/attestations/" + digestA, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			var got attestationList
			resp := get(t, s, "GET", tt.path, nil, "", &got)
			if tt.want == 0 {
				if resp.StatusCode != http.StatusNotFound {
					t.Fatalf("status %d, want GitHub's 404 for a digest nothing lists", resp.StatusCode)
				}
				return
			}
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			var ids []int64
			for _, a := range got.Attestations {
				ids = append(ids, a.RepositoryID)
				if a.Initiator != "user" || len(a.Bundle) == 0 {
					t.Errorf("entry %+v: want the bundle and initiator user", a)
				}
			}
			if len(got.Attestations) != tt.want || !slices.Equal(ids, tt.repos) {
				t.Errorf("listed repositories %v, want %v", ids, tt.repos)
			}
		})
	}
	// The stored bundle is the one sent (compacted), byte for byte.
	if got := repo.Attestations(); len(got) != 2 || string(got[0]) != provenance {
		t.Errorf("stored %q, want the provenance bundle first", got)
	}
	var none attestationList
	if resp := get(t, s, "GET", "/orgs/nobody/attestations/"+digestA, nil, "", &none); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an owner without repositories: %d, want 404", resp.StatusCode)
	}
}

func TestAttestationsPermissions(t *testing.T) {
	bundle := testBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64))
	tests := []struct {
		name       string
		token      Token
		wantUpload int
		wantList   int
		accepted   string // X-Accepted-GitHub-Permissions of a refusal
	}{
		{"a workflow token with attestations: write and contents: read", Token{}, 201, 200, ""},
		{"a workflow token with contents: write", Token{PushAccess: true}, 201, 200, ""},
		{"attestations: read only", Token{Lacks: []string{"attestations=write"}}, 403, 200, "attestations=write"},
		{"no attestations permission", Token{Lacks: []string{"attestations"}}, 403, 403, "attestations=write"},
		{"a fine-grained token of a user who may only read", Token{Role: "read"}, 403, 200, "attestations=write"},
		{"a classic token with repo", Token{Scopes: []string{"repo"}}, 201, 200, ""},
		{"a classic token without repo hides the write", Token{Scopes: []string{"read:org"}}, 404, 200, ""},
		{"a token that cannot see the repository", Token{Repos: []string{"o/other"}}, 404, 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(t)
			s.AddToken(testToken, tt.token)
			s.AddRepo("o", "r")
			resp, out := upload(t, s, "o/r", bundle)
			if resp.StatusCode != tt.wantUpload {
				t.Fatalf("upload: %d %v, want %d", resp.StatusCode, out, tt.wantUpload)
			}
			if resp.StatusCode == http.StatusForbidden {
				if out["message"] != "Resource not accessible by integration" {
					t.Errorf("refusal message %q, want GitHub's", out["message"])
				}
				if got := resp.Header.Get("X-Accepted-GitHub-Permissions"); got != tt.accepted {
					t.Errorf("X-Accepted-GitHub-Permissions %q, want %q", got, tt.accepted)
				}
			}
			// The list is read whether or not the upload stored anything: 404 is GitHub's
			// answer for a digest nothing lists, 403 for a token that may not read.
			wantList := tt.wantList
			if wantList == http.StatusOK && tt.wantUpload != http.StatusCreated {
				wantList = http.StatusNotFound
			}
			if resp := get(t, s, "GET", "/repos/o/r/attestations/"+digestA, nil, "", nil); resp.StatusCode != wantList {
				t.Errorf("list: %d, want %d", resp.StatusCode, wantList)
			}
		})
	}
}

func TestAttestationsRefuseWhatIsNoBundle(t *testing.T) {
	s := New(t)
	s.AddToken(testToken, Token{})
	repo := s.AddRepo("o", "r")
	notInToto := strings.Replace(testBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64)),
		"application/vnd.in-toto+json", "text/plain", 1)
	for _, body := range []string{
		`{"bundle":null}`,
		`{"bundle":{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json"}}`,
		`{"bundle":` + notInToto + `}`,
		`{"bundle":` + testBundle("https://slsa.dev/provenance/v1", "not-a-digest") + `}`,
	} {
		var out map[string]any
		resp := get(t, s, "POST", "/repos/o/r/attestations", nil, body, &out)
		if resp.StatusCode != http.StatusUnprocessableEntity || out["message"] != "Validation Failed" {
			t.Errorf("%s: %d %v, want 422 Validation Failed", body, resp.StatusCode, out)
		}
	}
	if n := len(repo.Attestations()); n != 0 {
		t.Errorf("%d attestations stored from refused uploads", n)
	}
	// A request body that is no bundle at all is held to the description too: it says so.
	expectMismatches(t, s,
		"POST /repos/o/r/attestations (operation POST /repos/{owner}/{repo}/attestations): request: request body",
	)
}

func TestAttestationsPageWithCursors(t *testing.T) {
	s := New(t)
	s.AddToken(testToken, Token{})
	s.AddRepo("o", "r")
	for i := range 5 {
		// Five distinct bundles of one subject.
		if resp, _ := upload(t, s, "o/r", testBundle(fmt.Sprintf("https://example.com/predicate/%d", i), strings.Repeat("a", 64))); resp.StatusCode != 201 {
			t.Fatalf("upload %d: %d", i, resp.StatusCode)
		}
	}
	var seen []string
	next := "/repos/o/r/attestations/" + digestA + "?per_page=2"
	for pages := 0; next != ""; pages++ {
		if pages > 5 {
			t.Fatal("the Link header never ends")
		}
		var got attestationList
		resp := get(t, s, "GET", next, nil, "", &got)
		for _, a := range got.Attestations {
			_, pt, err := readAttestation(a.Bundle)
			if err != nil {
				t.Fatal(err)
			}
			seen = append(seen, pt)
		}
		next = ""
		for link := range strings.SplitSeq(resp.Header.Get("Link"), ", ") {
			if u, ok := strings.CutSuffix(link, `>; rel="next"`); ok {
				next = strings.TrimPrefix(strings.TrimPrefix(u, "<"), s.URL)
			}
		}
	}
	want := []string{}
	for i := range 5 {
		want = append(want, fmt.Sprintf("https://example.com/predicate/%d", i))
	}
	if !slices.Equal(seen, want) {
		t.Errorf("pages gave %q, want %q", seen, want)
	}
}

func TestAttestationUploadFaults(t *testing.T) {
	s := New(t)
	s.AddToken(testToken, Token{})
	repo := s.AddRepo("o", "r")
	bundle := testBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64))
	s.InjectFault("POST", "/repos/*/*/attestations", BadGateway(1))
	if resp, _ := upload(t, s, "o/r", bundle); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("first upload: %d, want the injected 502", resp.StatusCode)
	}
	if n := len(repo.Attestations()); n != 0 {
		t.Fatalf("a failed upload stored %d", n)
	}
	// A response lost on the way back: the upload took effect although the client saw 502.
	s.InjectFault("POST", "/repos/*/*/attestations", Fault{Kind: FaultStatus, Status: 502, Times: 1, AfterEffect: true})
	if resp, _ := upload(t, s, "o/r", bundle); resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("second upload: %d, want the injected 502", resp.StatusCode)
	}
	if n := len(repo.Attestations()); n != 1 {
		t.Fatalf("the lost response's upload stored %d, want 1", n)
	}
}

func TestReadAttestation(t *testing.T) {
	tests := []struct {
		name     string
		bundle   string
		subjects []string
		pt       string
		wantErr  bool
	}{
		{"two subjects", testBundle("p", strings.Repeat("a", 64), strings.Repeat("B", 64)), []string{digestA, digestB}, "p", false},
		{"a repeated subject counts once", testBundle("p", strings.Repeat("a", 64), strings.Repeat("a", 64)), []string{digestA}, "p", false},
		{"a subject of another algorithm is not indexed", testBundle("p", strings.Repeat("a", 64), "zz"), []string{digestA}, "p", false},
		{"no sha256 subject", testBundle("p", "abc"), nil, "", true},
		{"no predicate type", testBundle("", strings.Repeat("a", 64)), nil, "", true},
		{"not JSON", `{`, nil, "", true},
		{"no envelope", `{"messageSignature":{}}`, nil, "", true},
		{"a payload that is not base64", `{"dsseEnvelope":{"payload":"%%","payloadType":"application/vnd.in-toto+json"}}`, nil, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subjects, pt, err := readAttestation([]byte(tt.bundle))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(subjects, tt.subjects) || pt != tt.pt {
				t.Errorf("got %q %q, want %q %q", subjects, pt, tt.subjects, tt.pt)
			}
		})
	}
}

// FuzzReadAttestation: whatever a client sends, reading it never panics, and what it
// indexes is a well-formed sha256 digest.
func FuzzReadAttestation(f *testing.F) {
	f.Add([]byte(testBundle("https://slsa.dev/provenance/v1", strings.Repeat("a", 64))))
	f.Add([]byte(`{"dsseEnvelope":{"payload":"e30=","payloadType":"application/vnd.in-toto+json"}}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		subjects, pt, err := readAttestation(b)
		if err != nil {
			return
		}
		if pt == "" || len(subjects) == 0 {
			t.Fatalf("accepted %q with subjects %q and predicate type %q", b, subjects, pt)
		}
		for _, s := range subjects {
			if len(s) != len(digestA) || !strings.HasPrefix(s, "sha256:") || strings.ToLower(s) != s {
				t.Fatalf("indexed %q", s)
			}
		}
	})
}

// GitHub's own example of an upload (a bundle actions/attest-build-provenance made for gh's
// release) is stored and listed by its subject, as GitHub lists it.
func TestAttestationsOfGitHubsExampleBundle(t *testing.T) {
	c := testContract(t)
	var example struct {
		Value struct {
			Bundle json.RawMessage `json:"bundle"`
		} `json:"value"`
	}
	if err := json.Unmarshal(c.desc.components["examples"]["attestation"], &example); err != nil || len(example.Value.Bundle) == 0 {
		t.Fatalf("the description's example attestation: %v", err)
	}
	subjects, pt, err := readAttestation(example.Value.Bundle)
	if err != nil {
		t.Fatal(err)
	}
	if want := "sha256:8aad120b416386b4269ef62c8fdebcad31a70847297817a149daf927edc85548"; !slices.Equal(subjects, []string{want}) || pt != "https://slsa.dev/provenance/v1" {
		t.Fatalf("read %q %q", subjects, pt)
	}
	s := New(t)
	s.AddToken(testToken, Token{})
	s.AddRepo("cli", "cli")
	if resp, out := upload(t, s, "cli/cli", string(example.Value.Bundle)); resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %v", resp.StatusCode, out)
	}
	var got attestationList
	get(t, s, "GET", "/orgs/cli/attestations/"+subjects[0]+"?predicate_type=provenance&per_page=30", nil, "", &got)
	if len(got.Attestations) != 1 {
		t.Fatalf("listed %d", len(got.Attestations))
	}
	var sent, back any
	if json.Unmarshal(example.Value.Bundle, &sent) != nil || json.Unmarshal(got.Attestations[0].Bundle, &back) != nil || !reflect.DeepEqual(sent, back) {
		t.Error("the bundle listed is not the one uploaded")
	}
}
