package github

import (
	"errors"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// refNames are names git's rules (git check-ref-format) decide, with what CheckBranch
// answers: "" accepts, otherwise the rule the error names. git says whether git itself
// accepts the name as a branch name; Shipyard is stricter in two places only: a name that
// is not UTF-8, and "@", which revisions read as HEAD.
var refNames = []struct {
	name, rule string
	git        bool // whether git check-ref-format --branch accepts the name
}{
	{"main", "", true},
	{"dev", "", true},
	{"release-1.2", "", true},
	{"release/1.2", "", true},
	{"automation/model-versions", "", true},
	{"feature/ünïcode", "", true},
	{"v1.0-rc.1+meta", "", true},
	{"a.b/c_d/e-f", "", true},
	{"@a", "", true},
	{"a@b", "", true},
	{"a.lock/b", `ends with ".lock"`, false},
	{"", "is empty", false},
	{"../tags/x", `contains ".."`, false},
	{"heads/../tags/v1", `contains ".."`, false},
	{"a..b", `contains ".."`, false},
	{"..", `contains ".."`, false},
	{"-main", "starts with -", false},
	{"--force", "starts with -", false},
	{"/main", "starts with /", false},
	{"main/", "ends with /", false},
	{"a//b", `contains "//"`, false},
	{"main.lock", `ends with ".lock"`, false},
	{"main.", `ends with "."`, false},
	{".main", `starts with "."`, false},
	{"a/.b", `starts with "."`, false},
	{"main@{1}", `contains "@{"`, false},
	{"@{-1}", `contains "@{"`, false},
	{"@", `is "@"`, true},
	{"HEAD", `is "HEAD"`, false},
	{"ma in", "contains a space or a control character", false},
	{"ma\tin", "contains a space or a control character", false},
	{"ma\x00in", "contains a space or a control character", false},
	{"ma\nin", "contains a space or a control character", false},
	{"main\x7f", "contains a space or a control character", false},
	{"a~1", `contains "~"`, false},
	{"a^", `contains "^"`, false},
	{"a:b", `contains ":"`, false},
	{"a?", `contains "?"`, false},
	{"a*", `contains "*"`, false},
	{"a[b", `contains "["`, false},
	{`a\b`, `contains "\\"`, false},
	{"ma\xffin", "is not UTF-8", true},
}

func TestCheckBranch(t *testing.T) {
	for _, tt := range refNames {
		t.Run(strconv.Quote(tt.name), func(t *testing.T) {
			err := CheckBranch(tt.name)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("CheckBranch(%q) = %v, want nil", tt.name, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckBranch(%q) accepted it, want refused: %s", tt.name, tt.rule)
			}
			// The error names the input (quoted, so no control character reaches a log), the
			// rule, and the fix.
			for _, want := range []string{"branch " + strconv.Quote(tt.name), tt.rule, "git check-ref-format", "give"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("err = %v\nlacks %q", err, want)
				}
			}
			if !errors.Is(err, ErrRefName) {
				t.Errorf("err = %v, want it to wrap ErrRefName", err)
			}
		})
	}
}

// The table agrees with git itself, the program whose rules it follows (Principle 8), and
// CheckBranch accepts no name git refuses.
func TestCheckBranchAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	outside := t.TempDir() // outside a repository, --branch reads no @{-N} from a reflog
	for _, tt := range refNames {
		if tt.name == "" || strings.ContainsRune(tt.name, 0) {
			continue // not an argument a process can receive
		}
		cmd := exec.Command("git", "check-ref-format", "--branch", tt.name)
		cmd.Dir = outside
		err := cmd.Run()
		if (err == nil) != tt.git {
			t.Errorf("git check-ref-format --branch %q: %v, the table says git accepts it: %v", tt.name, err, tt.git)
		}
		if ours := CheckBranch(tt.name) == nil; ours && !tt.git {
			t.Errorf("CheckBranch accepts %q, which git refuses", tt.name)
		}
	}
}

// Tag names follow the same rules, but for HEAD, which is a tag name git takes.
func TestCheckTag(t *testing.T) {
	for tag, want := range map[string]bool{
		"v0.11.0": true, "v0.11.0rc1": true, "0.11.0": true, "release/1.0": true, "v1.0-rc.1+meta": true, "HEAD": true,
		"": false, "v1..2": false, "../../etc": false, "v1 0": false, "v1~1": false, "v1^": false, "v1:2": false,
		"v1?": false, "v1*": false, "v1[": false, `v1\2`: false, "v1.lock": false, "v1.": false, ".v1": false,
		"-v1": false, "v1@{0}": false, "@": false, "a//b": false, "/v1": false, "v1/": false, "v1\x7f": false,
	} {
		err := CheckTag(tag)
		if (err == nil) != want {
			t.Errorf("CheckTag(%q) = %v, want ok %v", tag, err, want)
		}
		if err != nil && (!errors.Is(err, ErrRefName) || !strings.Contains(err.Error(), "tag "+strconv.Quote(tag))) {
			t.Errorf("CheckTag(%q) = %v, want ErrRefName naming the tag", tag, err)
		}
	}
}

// CheckBranch reads names from users and configuration: it never panics, and a name it
// accepts keeps refs/heads/<name> one branch (no dot segment, no empty component, nothing
// git or a URL would read otherwise).
func FuzzCheckBranch(f *testing.F) {
	for _, tt := range refNames {
		f.Add(tt.name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		err := CheckBranch(name)
		if err != nil {
			if !errors.Is(err, ErrRefName) {
				t.Fatalf("CheckBranch(%q) = %v, not ErrRefName", name, err)
			}
			return
		}
		ref := "refs/heads/" + name
		switch {
		case path.Clean(ref) != ref:
			t.Fatalf("CheckBranch accepted %q: refs/heads/<name> cleans to %s", name, path.Clean(ref))
		case !utf8.ValidString(name):
			t.Fatalf("CheckBranch accepted %q, not UTF-8", name)
		case strings.HasPrefix(name, "-"), strings.HasSuffix(name, "/"), strings.HasSuffix(name, ".lock"), strings.HasSuffix(name, "."):
			t.Fatalf("CheckBranch accepted %q", name)
		case strings.Contains(name, ".."), strings.Contains(name, "@{"), strings.Contains(name, "//"), name == "@", name == "HEAD":
			t.Fatalf("CheckBranch accepted %q", name)
		case strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) }):
			t.Fatalf("CheckBranch accepted %q", name)
		}
	})
}
