// Package wire is the one definition of what crosses between the supplychain commands
// (registry, supplychain) and the Dagger module that runs them: the JSON they print and
// read, the KEY=VALUE flags they take, and their exit codes.
//
// It imports only the standard library. The module carries an exact generated copy of it
// (the root module's internal/wire, checked by that package's tests) instead of importing
// it: an import would put this module's requirements into the module's build list, move
// the versions of packages the module binary links away from a bare Dagger module's, and
// make every cold load resolve them.
package wire

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Exit codes of the commands besides 0.
const (
	ExitFailure = 1
	// ExitUsage: the command was called wrongly, which is a bug of the caller.
	ExitUsage = 2
	// ExitMoved: a version or commit tag is on another digest, now or since the plan.
	// Re-running cannot help.
	ExitMoved = 3
)

// TagClass says whether a tag may ever point at another digest.
type TagClass string

const (
	// ClassVersion is a release version tag (0.11.0, 0.11.0rc1): immutable.
	ClassVersion TagClass = "version"
	// ClassCommit is a per-commit tag (sha-<commit>): immutable, since it names the one
	// image built from that commit.
	ClassCommit TagClass = "commit"
	// ClassMoving is a tag that follows the newest release or commit (the policy's latest and
	// branch tags).
	ClassMoving TagClass = "moving"
)

// Immutable reports whether a tag of this class never moves once published.
func (c TagClass) Immutable() bool { return c == ClassVersion || c == ClassCommit }

// TagPolicy is how one publishing system names the tags that are not release versions
// (a release's tag is its version, X.Y.Z or X.Y.Z{a,b,rc}N, in every system): the tag
// that follows its highest release, the tag that follows the newest commit of a branch,
// and the prefix of the tag that names one commit's image. The system that publishes gives
// it, and the registry command classifies and rechecks tags by it (flag --tag-policy). An
// empty name is a tag the system does not publish.
type TagPolicy struct {
	// Latest follows the highest release, e.g. latest.
	Latest string `json:"latest,omitempty"`
	// BranchTag follows the newest commit of Branch that has an image, e.g. dev for the
	// branch dev.
	BranchTag string `json:"branchTag,omitempty"`
	Branch    string `json:"branch,omitempty"`
	// CommitPrefix starts the tag of one commit's image, <prefix><commit>, e.g. sha-.
	CommitPrefix string `json:"commitPrefix,omitempty"`
}

// CommitTag is the tag naming the image of commit under the policy.
func (p TagPolicy) CommitTag(commit string) string { return p.CommitPrefix + commit }

// CommitOf is the commit a commit tag names, and whether tag is one (a full or abbreviated
// lowercase commit after the prefix).
func (p TagPolicy) CommitOf(tag string) (string, bool) {
	if p.CommitPrefix == "" {
		return "", false
	}
	c, ok := strings.CutPrefix(tag, p.CommitPrefix)
	if !ok || len(c) < 7 || len(c) > 40 || strings.Trim(c, "0123456789abcdef") != "" {
		return "", false
	}
	return c, true
}

// Flag renders the policy as the value of --tag-policy.
func (p TagPolicy) Flag() string {
	b, _ := json.Marshal(p) // four strings: cannot fail
	return string(b)
}

// ParseTagPolicy reads --tag-policy and refuses a policy whose tags could be mistaken for
// each other or for a release version, or are no OCI tags.
func ParseTagPolicy(value string) (TagPolicy, error) {
	var p TagPolicy
	dec := json.NewDecoder(strings.NewReader(value))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return TagPolicy{}, fmt.Errorf("--tag-policy %q: %w", value, err)
	}
	// One object only: a second one after it would be dropped unread.
	if _, err := dec.Token(); err != io.EOF {
		return TagPolicy{}, fmt.Errorf("--tag-policy %q: give one JSON object, with nothing after it", value)
	}
	if err := p.Check(); err != nil {
		return TagPolicy{}, fmt.Errorf("--tag-policy: %w", err)
	}
	return p, nil
}

// Check refuses a policy whose tags could be mistaken for each other or for a release
// version, or are no OCI tags.
func (p TagPolicy) Check() error {
	switch {
	case (p.BranchTag == "") != (p.Branch == ""):
		return fmt.Errorf("branch tag %q and branch %q go together: give both or neither", p.BranchTag, p.Branch)
	case p.Latest != "" && p.Latest == p.BranchTag:
		return fmt.Errorf("the latest and branch tags are both %q: they follow different things", p.Latest)
	}
	for _, t := range []struct{ what, tag string }{{"latest tag", p.Latest}, {"branch tag", p.BranchTag}, {"commit tag prefix", p.CommitPrefix}} {
		if t.tag == "" {
			continue
		}
		if !isTagText(t.tag) {
			return fmt.Errorf("%s %q: a tag is letters, digits, '_', '.' and '-', at most 128, not starting with '.' or '-'", t.what, t.tag)
		}
		if t.tag[0] >= '0' && t.tag[0] <= '9' {
			return fmt.Errorf("%s %q starts with a digit, as a release version does: start it with a letter", t.what, t.tag)
		}
	}
	for _, t := range []string{p.Latest, p.BranchTag} {
		if _, ok := p.CommitOf(t); ok {
			return fmt.Errorf("tag %q reads as a commit tag under prefix %q", t, p.CommitPrefix)
		}
	}
	return nil
}

// isTagText is the OCI distribution spec's tag grammar, [A-Za-z0-9_][A-Za-z0-9._-]{0,127}.
func isTagText(s string) bool {
	if len(s) == 0 || len(s) > 128 || s[0] == '.' || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-') {
			return false
		}
	}
	return true
}

// Action is what applying a plan does to one tag.
type Action string

const (
	// ActionCreate points a tag that does not exist yet at the digest.
	ActionCreate Action = "create"
	// ActionKeep leaves a tag that already points at the digest: a no-op.
	ActionKeep Action = "keep"
	// ActionMove points a moving tag from another digest at this one.
	ActionMove Action = "move"
)

// TagAction is the planned change of one tag.
type TagAction struct {
	Tag    string   `json:"tag"`
	Class  TagClass `json:"class"`
	Action Action   `json:"action"`
	// From is the digest the tag is on before a move; empty otherwise.
	From string `json:"from,omitempty"`
}

// Tagging is what applying tags does for one image digest: the plan of its tags.
// Immutable tags come first, so a version exists before the latest or branch tag points
// at it, and the latest tag comes last.
type Tagging struct {
	Image   string      `json:"image"`
	Digest  string      `json:"digest"`
	Actions []TagAction `json:"actions"`
}

// String renders the plan for logs: one line per tag.
func (p Tagging) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s", p.Image, p.Digest)
	if len(p.Actions) == 0 {
		b.WriteString(": no tags")
	}
	for _, a := range p.Actions {
		fmt.Fprintf(&b, "\n  %-8s %-7s %s", a.Action, a.Class, a.Tag)
		if a.Action == ActionMove {
			fmt.Fprintf(&b, " (from %s)", a.From)
		}
	}
	return b.String()
}

// SkippedTag is a planned tag deliberately not written, and why.
type SkippedTag struct {
	Tag    string `json:"tag"`
	Reason string `json:"reason"`
}

// ApplyReport is what tagging did to one image; on error, what was written before it.
type ApplyReport struct {
	Image   string       `json:"image"`
	Digest  string       `json:"digest"`
	Written []TagAction  `json:"written"`
	Kept    []TagAction  `json:"kept"`
	Skipped []SkippedTag `json:"skipped"`
}

// LatestImage is an image repository of a release and the digest its latest should point
// at.
type LatestImage struct {
	Repo   string `json:"repo"`
	Digest string `json:"digest"`
}

// LatestMove is the planned change of latest in one repository: create, keep or move
// (From is the digest latest is on before a move).
type LatestMove struct {
	Repo   string `json:"repo"`
	Digest string `json:"digest"`
	Action Action `json:"action"`
	From   string `json:"from,omitempty"`
}

// LatestReport is what moving latest did: the moves planned, the repositories written,
// why latest was left alone (Skipped), and those put back after a failed write.
type LatestReport struct {
	Moves []LatestMove `json:"moves"`
	// Written are the repositories whose latest was written.
	Written []string `json:"written,omitempty"`
	// Skipped says why latest was deliberately left alone.
	Skipped string `json:"skipped,omitempty"`
	// RolledBack are the repositories whose latest was put back after a failed write.
	RolledBack []string `json:"rolled_back,omitempty"`
}

// BranchHistory is what the policy's branch says about the commit being tagged: whether it
// is on the branch, the branch's commits after it (newest last), and whether that list is
// complete.
type BranchHistory struct {
	Commit   string   `json:"commit"`
	OnBranch bool     `json:"onBranch"`
	Newer    []string `json:"newer"`
	Complete bool     `json:"complete"`
}

// PlatformDigest is one platform's image listed by an index: its platform,
// os/arch[/variant], and its digest.
type PlatformDigest struct {
	Platform string `json:"platform"`
	Digest   string `json:"digest"`
}

// Pushed is an image pushed by digest; for an index, the platform images it lists.
type Pushed struct {
	Name       string           `json:"name,omitempty"`
	Repository string           `json:"repository,omitempty"`
	Digest     string           `json:"digest"`
	Platforms  []PlatformDigest `json:"platforms,omitempty"`
}

// Assembly is one image's index to build from platform images already pushed.
type Assembly struct {
	Name       string           `json:"name"`
	Repository string           `json:"repository"`
	Platforms  []PlatformDigest `json:"platforms"`
}

// Resolved is a reference resolved to its digest; for an index, its platform images.
type Resolved struct {
	Image     string           `json:"image"`
	Digest    string           `json:"digest"`
	Platforms []PlatformDigest `json:"platforms,omitempty"`
}

// Outcome is what an attest or sign command did for one digest.
type Outcome struct {
	Step          string `json:"step"`
	Image         string `json:"image"`
	Digest        string `json:"digest"`
	PredicateType string `json:"predicateType"`
	Referrer      string `json:"referrer"`
	// Created is false when an earlier run's bundle was found and kept.
	Created bool `json:"created"`
	// Identity and Issuer are the signer's, the token's: a kept bundle verified with them,
	// and a new one is certified for them.
	Identity string `json:"identity,omitempty"`
	Issuer   string `json:"issuer,omitempty"`
	LogIndex int64  `json:"logIndex"`
}

// Verified is one bundle that verified.
type Verified struct {
	PredicateType  string `json:"predicateType"`
	Identity       string `json:"identity"`
	Issuer         string `json:"issuer"`
	LogIndex       int64  `json:"logIndex"`
	IntegratedTime string `json:"integratedTime,omitempty"`
	Referrer       string `json:"referrer"`
	// Bundle is the verified Sigstore bundle itself, with verify --with-bundles only: what a
	// caller stores elsewhere (GitHub's attestation store) is then exactly what verified.
	Bundle json.RawMessage `json:"bundle,omitempty"`
}

// VerifyResult is what was verified for an image.
type VerifyResult struct {
	Image    string     `json:"image"`
	Digest   string     `json:"digest"`
	Verified []Verified `json:"verified"`
}

// WriteJSON prints a command's result: indented JSON, one document, on w (stdout).
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the result: %w", err)
	}
	return nil
}

// Pairs renders a map as KEY=VALUE flag values, sorted by key so that a command line is
// the same for the same map.
func Pairs(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k + "=" + m[k]
	}
	return out
}

// ParsePairs reads KEY=VALUE values of the flag named flagName into a map; nil for none.
// A value may hold "=", a key may not be empty.
func ParsePairs(flagName string, pairs []string) (map[string]string, error) {
	if len(pairs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(pairs))
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q is not KEY=VALUE", flagName, kv)
		}
		out[k] = v
	}
	return out, nil
}
