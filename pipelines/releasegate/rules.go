package releasegate

import (
	"fmt"

	"dagger/shipyard/internal/citation"
	"dagger/shipyard/internal/github"
	"dagger/shipyard/internal/notes"
	"dagger/shipyard/internal/version"
)

// The rules, numbered as in the release process.
const (
	RuleTagForm      = 1 // the tag is a release version
	RuleSignedTag    = 2 // annotated, signed, verified by GitHub
	RuleOnMain       = 3 // the tagged commit is on main
	RuleCitation     = 4 // CITATION.cff names the version and a release date
	RuleReleaseNotes = 5 // the curated notes exist and follow the format
	RuleCIPassed     = 6 // CI passed for the commit's push to dev
	RuleNotReleased  = 7 // no published release of the tag exists
)

// ruleNames are stable names for logs, JSON and documentation.
var ruleNames = map[int]string{
	RuleTagForm:      "release-tag",
	RuleSignedTag:    "signed-tag",
	RuleOnMain:       "on-main",
	RuleCitation:     "citation",
	RuleReleaseNotes: "release-notes",
	RuleCIPassed:     "ci-passed",
	RuleNotReleased:  "not-released",
}

// RuleCount is how many rules a release tag must pass.
const RuleCount = 7

// Violation is one rule a tag fails, or one rule that could not be checked (Skipped).
type Violation struct {
	Rule int    `json:"rule"`
	Name string `json:"name"`
	// File and Line locate a violation of a rule about a file (CITATION.cff, the release
	// notes): the file, and the line of its first problem (no line when it is missing).
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
	// Details are the individual problems, e.g. "docs/releases/0.11.0.md:3: …".
	Details []string `json:"details,omitempty"`
	// Fix says what the maintainer should do.
	Fix string `json:"fix,omitempty"`
	// Skipped marks a rule that was not checked because something it needs is missing;
	// Message says what. A skipped rule fails the gate like a violated one.
	Skipped bool `json:"skipped,omitempty"`
}

func violation(rule int, fix, format string, args ...any) Violation {
	return Violation{Rule: rule, Name: ruleNames[rule], Message: fmt.Sprintf(format, args...), Fix: fix}
}

// Evaluate applies every release rule to the facts and returns the plan with all the
// violations, not just the first. When the tag does not resolve to a commit, the rules
// that read the tagged commit are reported as skipped with that one reason. The plan is
// complete only when there are no violations.
func Evaluate(f Facts) (Plan, []Violation) {
	var vs []Violation
	rt, tagErr := version.ParseReleaseTag(f.Tag)
	if tagErr != nil {
		vs = append(vs, violation(RuleTagForm, "tag the commit with a release version, e.g. v0.11.0 or v0.11.0rc1", "%v", tagErr))
	}

	resolved := false
	switch {
	case github.CheckTag(f.Tag) != nil:
		vs = append(vs, skipped(f, "git does not accept %q as a tag name, so it was not looked up", f.Tag)...)
	case f.Rehearsal != "":
		resolved = true
		vs = append(vs, rehearsedTag(f)...)
		vs = append(vs, checkCommit(f)...)
	case !f.TagRef.Found:
		vs = append(vs, violation(RuleSignedTag,
			"push the signed, annotated tag: git tag -s "+f.Tag+" -m "+f.Tag+" <commit> && git push origin "+f.Tag,
			"tag %s does not exist in %s", f.Tag, f.Repo))
		vs = append(vs, skipped(f, "tag %s does not exist, so there is no tagged commit to check", f.Tag)...)
	case f.TagRef.TargetType != "commit" || f.TagRef.CommitSHA == "":
		vs = append(vs, violation(RuleSignedTag, "tag a commit, with git tag -s",
			"tag %s points to a %s, not a commit", f.Tag, orUnknown(f.TagRef.TargetType)))
		vs = append(vs, skipped(f, "tag %s does not point to a commit", f.Tag)...)
	default:
		resolved = true
		vs = append(vs, checkSignature(f)...)
		vs = append(vs, checkCommit(f)...)
	}
	vs = append(vs, checkNotReleased(f)...)

	p := Plan{Repo: f.Repo, Tag: f.Tag, Version: versionOf(f.Tag), MakeLatest: "false", NotesFile: NotesPath(f.Tag)}
	if resolved {
		p.Commit = f.commit()
	}
	if f.Rehearsal != "" && !f.TagRef.Found {
		p.Warnings = append(p.Warnings, fmt.Sprintf("rehearsal: tag %s is not pushed yet, so rule 2 (signed-tag) is checked when it is: "+
			"git tag -s %s -m %s %s && git push origin %s", f.Tag, f.Tag, f.Tag, f.Rehearsal, f.Tag))
	}
	if f.Notes.Found {
		p.Notes = string(f.Notes.Content)
	}
	for _, r := range f.Releases {
		if r.Draft && r.Tag == f.Tag {
			p.Warnings = append(p.Warnings, fmt.Sprintf(
				"a draft release of %s exists (%s): delete it, as the release job creates the release itself", f.Tag, r.URL))
		}
	}
	if tagErr == nil {
		p.Version, p.Final, p.Prerelease = rt.Version(), rt.Final(), rt.GitHubPreRelease()
		var published []string
		for _, r := range f.Releases {
			if !r.Draft {
				published = append(published, r.Tag)
			}
		}
		// The tag parsed, so IsLatest cannot fail.
		p.Latest, _ = version.IsLatest(f.Tag, published)
		// GitHub refuses to mark a pre-release (every 0.x, for now) as its latest release,
		// while the images still get "latest" for the highest final version.
		if p.Latest && !p.Prerelease {
			p.MakeLatest = "true"
		}
	}
	org := f.ImageOrg
	if org == "" {
		org = DefaultImageOrg
	}
	for _, name := range imageNames() {
		img := Image{Name: name, Repository: org + "/" + name, Tags: []string{p.Version}}
		if p.Latest {
			img.Tags = append(img.Tags, "latest")
		}
		p.Images = append(p.Images, img)
	}
	return p, vs
}

// checkCommit applies the rules that read the commit to release (3 to 6).
func checkCommit(f Facts) []Violation {
	vs := append(checkOnMain(f), checkCitation(f)...)
	vs = append(vs, checkNotes(f)...)
	if !f.CIChecked {
		vs = append(vs, checkCI(f)...)
	}
	return vs
}

// rehearsedTag is rule 2 of a rehearsal: the tag need not exist yet, but an existing tag
// of that name must be on the rehearsed commit, and then it is checked as a release's.
func rehearsedTag(f Facts) []Violation {
	switch {
	case !f.TagRef.Found:
		return nil
	case f.TagRef.CommitSHA != f.Rehearsal:
		return []Violation{violation(RuleSignedTag, "a release tag never moves: rehearse the commit it names, or release the next version",
			"tag %s exists already, on commit %s, not on the rehearsed %s", f.Tag, short(f.TagRef.CommitSHA), short(f.Rehearsal))}
	}
	return checkSignature(f)
}

// skipped reports the rules that read the tagged commit (3 to 6) as not checked.
func skipped(f Facts, format string, args ...any) []Violation {
	reason := fmt.Sprintf(format, args...)
	var out []Violation
	for _, rule := range []int{RuleOnMain, RuleCitation, RuleReleaseNotes, RuleCIPassed} {
		out = append(out, Violation{Rule: rule, Name: ruleNames[rule], Message: reason, Skipped: true})
	}
	// A tag that cannot exist has no signature to check either.
	if github.CheckTag(f.Tag) != nil {
		out = append([]Violation{{Rule: RuleSignedTag, Name: ruleNames[RuleSignedTag], Message: reason, Skipped: true}}, out...)
	}
	return out
}

// signatureFixes say how to fix each of GitHub's verification reasons; others get the
// general advice.
var signatureFixes = map[string]string{
	"unsigned":               "sign release tags: git tag -s",
	"unknown_key":            "add the signing key to the tagger's GitHub account (Settings → SSH and GPG keys)",
	"expired_key":            "renew the signing key's expiry and upload the updated key to GitHub",
	"not_signing_key":        "sign with a key (or subkey) that has the signing capability",
	"no_user":                "use a key whose identity matches a GitHub user's email address",
	"unverified_email":       "verify the key's email address in the tagger's GitHub account",
	"bad_email":              "use a key whose email address is valid and matches the tagger",
	"unknown_signature_type": "sign with GPG, SSH or S/MIME keys GitHub supports",
}

func checkSignature(f Facts) []Violation {
	const next = "; a release tag cannot be moved or deleted, so tag the next version that way"
	switch {
	case !f.TagRef.Annotated:
		return []Violation{violation(RuleSignedTag, "create release tags with git tag -s (signed, annotated)"+next,
			"tag %s is lightweight (a ref straight to commit %s), not an annotated, signed tag", f.Tag, short(f.TagRef.CommitSHA))}
	case f.TagRef.Reason == "unsigned":
		return []Violation{violation(RuleSignedTag, signatureFixes["unsigned"]+next,
			"tag %s is annotated but not signed (GitHub: unsigned)", f.Tag)}
	case !f.TagRef.Verified:
		fix, ok := signatureFixes[f.TagRef.Reason]
		if !ok {
			fix = "sign with a key GitHub can verify for the tagger"
		}
		return []Violation{violation(RuleSignedTag, fix+next,
			"GitHub did not verify the signature of tag %s (reason: %s)", f.Tag, orUnknown(f.TagRef.Reason))}
	}
	return nil
}

func checkOnMain(f Facts) []Violation {
	if f.OnMain {
		return nil
	}
	return []Violation{violation(RuleOnMain,
		"move main forward to a commit of dev and tag that commit; a tag cannot be moved, so tag the next version",
		"commit %s of %s is not on %s (neither its head nor an ancestor of it)", short(f.TagRef.CommitSHA), f.Tag, MainBranch)}
}

func checkCitation(f Facts) []Violation {
	v := versionOf(f.Tag)
	if !f.Citation.Found {
		return []Violation{inFile(violation(RuleCitation, fmt.Sprintf("add %s with version: %q and date-released in a pull request to %s", CitationFile, v, DevBranch),
			"%s does not exist at commit %s", CitationFile, short(f.commit())), CitationFile, nil)}
	}
	problems := citation.Check(f.Citation.Content, v)
	if len(problems) == 0 {
		return nil
	}
	out := violation(RuleCitation, fmt.Sprintf("set version: %q and date-released: YYYY-MM-DD in %s in a pull request to %s", v, CitationFile, DevBranch),
		"%s at commit %s is not ready for %s", CitationFile, short(f.commit()), v)
	return []Violation{inFile(out, CitationFile, problems)}
}

func checkNotes(f Facts) []Violation {
	path := NotesPath(f.Tag)
	if !f.Notes.Found {
		return []Violation{inFile(violation(RuleReleaseNotes, "add the curated release notes as "+path+" in a pull request to "+DevBranch,
			"%s does not exist at commit %s", path, short(f.commit())), path, nil)}
	}
	problems := notes.Check(path, f.Notes.Content)
	if len(problems) == 0 {
		return nil
	}
	out := violation(RuleReleaseNotes, "fix the notes in a pull request to "+DevBranch+"; the format is described in the development docs",
		"%s does not follow the release notes format (%d problem(s))", path, len(problems))
	return []Violation{inFile(out, path, problems)}
}

func checkCI(f Facts) []Violation {
	sha := short(f.commit())
	switch {
	case !f.CI.WorkflowFound:
		return []Violation{violation(RuleCIPassed, "pass the CI workflow's file name under .github/workflows (--workflow)",
			"%s has no workflow %s", f.Repo, f.Workflow)}
	case !f.OnDev:
		// A run's head_branch names a tag as well as a branch: a run counts only for a
		// commit that is on the branch dev.
		return []Violation{violation(RuleCIPassed, "merge the commit into "+DevBranch+" through a pull request and let CI pass for its push; a tag or run named "+DevBranch+" does not count",
			"commit %s of %s is not on %s (neither its head nor an ancestor of it), so no CI run of it is a push to %s",
			sha, f.Tag, DevBranch, DevBranch)}
	case !f.CI.Found:
		return []Violation{violation(RuleCIPassed, "push the commit to "+DevBranch+" and let CI pass before tagging it",
			"no %s run for the %s of commit %s to %s", f.Workflow, CIEvent, sha, DevBranch)}
	}
	return checkCIRun(f, sha)
}

func checkNotReleased(f Facts) []Violation {
	for _, r := range f.Releases {
		if r.Tag == f.Tag && !r.Draft {
			return []Violation{violation(RuleNotReleased,
				"a version is released once: release the next version; and delete any draft of a tag before pushing the tag, as this check cannot see drafts",
				"a published GitHub release of %s exists already (%s)", f.Tag, r.URL)}
		}
	}
	return nil
}

// inFile locates v in file: at its first problem's line, with every problem as a detail.
func inFile(v Violation, file string, problems []notes.Problem) Violation {
	v.File = file
	if len(problems) > 0 {
		v.Line = problems[0].Line
		v.Details = located(file, problems)
	}
	return v
}

// located renders problems as "file:line: message".
func located(file string, problems []notes.Problem) []string {
	out := make([]string, 0, len(problems))
	for _, p := range problems {
		out = append(out, fmt.Sprintf("%s:%d: %s", file, p.Line, p.Message))
	}
	return out
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return orUnknown(sha)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
