package githubactions

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// requestsItsOwnToken lists the functions that build, plan or compile for minutes before
// they sign: an identity token fetched before the call (GitHub's live about five minutes)
// could expire first, so they get GitHub's token endpoint and the signing tool requests a
// token right before each use. attest and sign compile the signing tool first, too.
var requestsItsOwnToken = []string{"release", "release-publish", "attest", "sign", "publish-dev"}

// TestSigningCallsRequestTheirOwnToken checks every call of those functions: it passes
// --actions-id-token-request-url env://ACTIONS_ID_TOKEN_REQUEST_URL and
// --actions-id-token-request-token env://ACTIONS_ID_TOKEN_REQUEST_TOKEN, and no --oidc-token;
// its job may write id tokens; and no step of the job fetches a token with curl.
func TestSigningCallsRequestTheirOwnToken(t *testing.T) {
	found := 0
	for _, f := range workflows(t) {
		w := readWorkflow(t, f)
		for name, j := range w.Jobs {
			for i, st := range j.Steps {
				where := fmt.Sprintf("%s: job %s step %d", f, name, i+1)
				calls, err := daggerCalls(where, st.Run)
				if err != nil {
					t.Fatal(err)
				}
				for _, words := range calls {
					c, err := parseCall(where, words)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Contains(requestsItsOwnToken, c.function) {
						continue
					}
					found++
					for _, problem := range tokenProblems(words, j, st) {
						t.Errorf("%s: %s: %s", where, c.function, problem)
					}
				}
			}
		}
	}
	if found == 0 {
		t.Fatal("no call of a signing function found: the test checks nothing")
	}
}

// tokenProblems lists what is wrong with how one call gets its identity token.
func tokenProblems(words []string, j job, st step) []string {
	var out []string
	value := func(flag string) string {
		for i, w := range words {
			if w == flag && i+1 < len(words) {
				return words[i+1]
			}
			if v, ok := strings.CutPrefix(w, flag+"="); ok {
				return v
			}
		}
		return ""
	}
	for flag, want := range map[string]string{
		"--actions-id-token-request-url":   "env://ACTIONS_ID_TOKEN_REQUEST_URL",
		"--actions-id-token-request-token": "env://ACTIONS_ID_TOKEN_REQUEST_TOKEN",
	} {
		if got := value(flag); got != want {
			out = append(out, fmt.Sprintf("%s is %q, want %s", flag, got, want))
		}
	}
	if value("--oidc-token") != "" {
		out = append(out, "--oidc-token passes a token fetched before the call, which may expire before it is used")
	}
	if strings.Contains(st.Run, "ACTIONS_ID_TOKEN_REQUEST_URL&audience") || strings.Contains(st.Run, "curl") {
		out = append(out, "the step fetches a token itself")
	}
	if !strings.Contains(nodeText(j.Permissions), "id-token: write") {
		out = append(out, "the job lacks permissions id-token: write")
	}
	return out
}

func TestTokenProblems(t *testing.T) {
	j := job{}
	good := strings.Fields("-m x release-publish --handoff h --actions-id-token-request-url env://ACTIONS_ID_TOKEN_REQUEST_URL --actions-id-token-request-token env://ACTIONS_ID_TOKEN_REQUEST_TOKEN")
	old := strings.Fields("-m x release-publish --handoff h --oidc-token env://SIGSTORE_ID_TOKEN")
	withPerm := readJob(t, "permissions:\n  id-token: write\n")
	if p := tokenProblems(good, withPerm, step{Run: "dagger call …"}); len(p) != 0 {
		t.Errorf("good call: %v", p)
	}
	if p := tokenProblems(old, withPerm, step{Run: `T=$(curl -H "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" "$ACTIONS_ID_TOKEN_REQUEST_URL&audience=sigstore")`}); len(p) != 4 {
		t.Errorf("old call: %d problems %v, want both flags missing, --oidc-token and the curl", len(p), p)
	}
	if p := tokenProblems(good, j, step{}); len(p) != 1 || !strings.Contains(p[0], "id-token: write") {
		t.Errorf("job without id-token: write: %v", p)
	}
}

// nodeText renders a YAML node (a permissions block) as YAML text.
func nodeText(n yaml.Node) string {
	if n.Kind == 0 {
		return ""
	}
	b, err := yaml.Marshal(&n)
	if err != nil {
		return ""
	}
	return string(b)
}

// readJob reads one job from YAML text.
func readJob(t *testing.T, text string) job {
	t.Helper()
	var j job
	if err := yaml.Unmarshal([]byte(text), &j); err != nil {
		t.Fatal(err)
	}
	return j
}
