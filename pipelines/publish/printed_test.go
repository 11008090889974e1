package publish_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dagger/shipyard/internal/demoworld/corpus"
	"dagger/shipyard/pipelines/publish"
	"dagger/shipyard/pipelines/publish/publishtest"
)

// identityFlag finds the identity patterns the docs give to verify commands.
var identityFlag = regexp.MustCompile(`(?:--identity|--certificate-identity-regexp|ID=)[ =]?'([^']*)'`)

// TestPrintedCommandsNeedNoInsecureFlags checks the commands a person copies from the -keep
// README and from the docs: the local registry is plain HTTP, so every oras copy to it says
// so; the test Sigstore's certificates carry SCTs, so nothing turns that check off; and
// every identity pattern is anchored, as verify requires.
func TestPrintedCommandsNeedNoInsecureFlags(t *testing.T) {
	root, err := corpus.FindRepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	platforms := []publishtest.KeptPlatform{{Platform: "linux/amd64", Digest: "sha256:" + strings.Repeat("b", 64)},
		{Platform: "linux/arm64", Digest: "sha256:" + strings.Repeat("c", 64)}}
	texts := map[string]string{"-keep README.txt": publishtest.KeepReadme("sha256:"+strings.Repeat("a", 64), platforms, 9)}
	for _, doc := range []string{"README.md", "docs/tesk-core-images.md", "docs/tesk-core-releasing.md", "supplychain/README.md"} {
		b, err := os.ReadFile(filepath.Join(root, doc))
		if err != nil {
			t.Fatal(err)
		}
		texts[doc] = string(b)
	}
	for name, text := range texts {
		for i, line := range strings.Split(text, "\n") {
			where := fmt.Sprintf("%s line %d", name, i+1)
			if strings.Contains(line, "oras cp") && strings.Contains(line, "127.0.0.1:") && !strings.Contains(line, "--to-plain-http") {
				t.Errorf("%s: oras cp to a plain-HTTP local registry needs --to-plain-http: %s", where, line)
			}
			for _, m := range identityFlag.FindAllStringSubmatch(line, -1) {
				if !publish.Anchored(m[1]) {
					t.Errorf("%s: identity pattern %q is not anchored as ^…$", where, m[1])
				}
			}
			if strings.Contains(line, "--insecure-ignore-sct") || strings.Contains(line, "--min-scts 0") {
				t.Errorf("%s: certificate transparency turned off: %s", where, line)
			}
		}
	}
}
