package githubsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"
)

// notesRoutes serve GitHub's release-notes generator, which release flows call to fill the
// "what changed" part of a release body.
func notesRoutes() []route {
	return []route{
		{method: http.MethodPost, pattern: "/repos/{owner}/{repo}/releases/generate-notes", handle: generateNotes},
	}
}

// MergedPull is a pull request squash-merged into a branch, as the generator sees it: its
// title, author and labels, and the commit its merge made.
type MergedPull struct {
	Title string
	// Author is the login, e.g. "octocat" or "dependabot[bot]".
	Author string
	Labels []string
	// Base is the branch it is merged into (default dev).
	Base string
	// Files are what the merge commit adds or replaces.
	Files map[string]string
}

// mergeInfo is what the generator needs of a merged pull request beyond PullRequest.
type mergeInfo struct {
	number   int
	title    string
	author   string
	labels   []string
	commit   string
	mergedAt time.Time
}

// notesByRepo keeps the merged pull requests of each repository beside it, keyed like
// extrasByRepo, so this resource's state stays in this file.
var notesByRepo sync.Map // *Repo → *[]*mergeInfo

func (r *Repo) merges() *[]*mergeInfo {
	if x, ok := notesByRepo.Load(r); ok {
		return x.(*[]*mergeInfo)
	}
	x, loaded := notesByRepo.LoadOrStore(r, &[]*mergeInfo{})
	if !loaded {
		r.s.tb.Cleanup(func() { notesByRepo.Delete(r) })
	}
	return x.(*[]*mergeInfo)
}

// MergePullRequest records a pull request by p.Author and squash-merges it into p.Base: a
// commit "<title> (#<number>)" with p.Files on top of the branch, which moves to it. It
// returns the pull request's number and the merge commit's SHA.
func (r *Repo) MergePullRequest(p MergedPull) (number int, sha string) {
	r.s.tb.Helper()
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	if p.Title == "" || p.Author == "" {
		r.fatalf("MergePullRequest: a title and an author are required")
		return 0, ""
	}
	if p.Base == "" {
		p.Base = "dev"
	}
	head, ok := r.branches[p.Base]
	if !ok {
		r.fatalf("MergePullRequest %q: base branch %s does not exist", p.Title, p.Base)
		return 0, ""
	}
	pr := r.addPullLocked(PullRequest{Title: p.Title, Head: fmt.Sprintf("pr-%d", r.extras().nextNumber), Base: p.Base, State: "closed", Merged: true})
	sha = r.addCommitLocked(fmt.Sprintf("%s (#%d)", p.Title, pr.Number), []string{head}, p.Files)
	r.branches[p.Base] = sha
	m := r.merges()
	*m = append(*m, &mergeInfo{
		number: pr.Number, title: p.Title, author: p.Author, labels: slices.Clone(p.Labels),
		commit: sha, mergedAt: pr.ClosedAt,
	})
	return pr.Number, sha
}

// releaseConfig is the part of .github/release.yml the generator reads.
type releaseConfig struct {
	Changelog struct {
		Exclude struct {
			Labels  []string `yaml:"labels"`
			Authors []string `yaml:"authors"`
		} `yaml:"exclude"`
		Categories []struct {
			Title   string   `yaml:"title"`
			Labels  []string `yaml:"labels"`
			Exclude struct {
				Labels  []string `yaml:"labels"`
				Authors []string `yaml:"authors"`
			} `yaml:"exclude"`
		} `yaml:"categories"`
	} `yaml:"changelog"`
}

// generateNotes answers POST /repos/{owner}/{repo}/releases/generate-notes with
// {"name", "body"} as GitHub's generator writes them: an optional configuration comment,
// "## What's Changed" with one bullet per pull request merged since the previous release
// (under "### <category>" headings when .github/release.yml defines categories), "## New
// Contributors" for authors whose first merged pull request is in that range, and the
// "**Full Changelog**" link: compare/<previous>...<tag>, or commits/<tag> when there is no
// previous release. Nothing is saved. Like GitHub, it needs a token that may write the
// repository (contents: write for a fine-grained one, GitHub's "Permissions required for
// fine-grained personal access tokens"), although it writes nothing; the tag need not
// exist when target_commitish names the commit; previous_tag_name must exist; without it
// the newest published release whose tag is behind the target is taken.
//
// New contributors are listed in the order of their first merged pull request.
func generateNotes(c *call) reply {
	const docs = "/releases/releases#generate-release-notes-content-for-a-release"
	if !c.mayWrite() {
		return c.writeRefused(docs, "contents=write")
	}
	var in notesRequest
	if err := json.Unmarshal(c.body, &in); err != nil {
		return errorReply(http.StatusBadRequest, "Problems parsing JSON", docs)
	}
	if in.TagName == "" {
		return validationFailed(docs, fieldError{Resource: "Release", Code: "missing_field", Field: "tag_name"})
	}
	n, invalid := c.repo.planNotes(in)
	if invalid != "" {
		return validationFailed(docs, fieldError{Resource: "Release", Code: "invalid", Field: invalid})
	}
	return okJSON(map[string]any{"name": in.TagName, "body": c.writeNotes(n)})
}

// notesRequest is the body of a generate-notes request.
type notesRequest struct {
	TagName               string  `json:"tag_name"`
	TargetCommitish       *string `json:"target_commitish"`
	PreviousTagName       *string `json:"previous_tag_name"`
	ConfigurationFilePath *string `json:"configuration_file_path"`
}

// releaseNotes is what the generator writes about: the range of the release, the
// configuration it follows and the pull requests merged in that range.
type releaseNotes struct {
	tag, previous string
	// config is nil when the commit has no configuration file.
	config                *releaseConfig
	configPath, configRef string
	changes               []*mergeInfo
	// newcomers are the changes that are their author's first merged pull request.
	newcomers []*mergeInfo
}

// planNotes finds the range, configuration and pull requests of the notes in asks for, or
// the request field GitHub names as invalid.
func (r *Repo) planNotes(in notesRequest) (n releaseNotes, invalid string) {
	target, configRef, ok := r.notesTarget(in)
	if !ok {
		return n, "target_commitish"
	}
	n.tag, n.configRef = in.TagName, configRef
	if in.PreviousTagName != nil && *in.PreviousTagName != "" {
		if _, ok := r.peelTag(*in.PreviousTagName); !ok {
			return n, "previous_tag_name"
		}
		n.previous = *in.PreviousTagName
	} else {
		n.previous = r.previousRelease(in.TagName, target)
	}
	if n.config, n.configPath, ok = r.releaseConfigAt(target, in.ConfigurationFilePath); !ok {
		return n, "configuration_file_path"
	}
	n.changes, n.newcomers = r.mergedBetween(n.previous, target)
	return n, ""
}

// notesTarget is the commit the notes end at and the ref the configuration is read at;
// not ok when the tag does not exist and target_commitish names no commit.
func (r *Repo) notesTarget(in notesRequest) (target, configRef string, ok bool) {
	commitish := ""
	if in.TargetCommitish != nil {
		commitish = *in.TargetCommitish
	}
	// An existing tag wins: GitHub ignores target_commitish then.
	if target, found := r.peelTag(in.TagName); found {
		if commitish != "" {
			return target, commitish, true
		}
		return target, in.TagName, true
	}
	if commitish == "" {
		commitish = r.defaultBranch
	}
	target, found := r.resolve(commitish)
	return target, commitish, found
}

// releaseConfigAt reads the generator's configuration from the commit target: the file
// asked for, or .github/release.yml or .yaml. It is nil when there is none; not ok when
// the file is not valid YAML.
func (r *Repo) releaseConfigAt(target string, asked *string) (cfg *releaseConfig, at string, ok bool) {
	tree := r.commits[target].tree
	candidates := []string{".github/release.yml", ".github/release.yaml"}
	if asked != nil && *asked != "" {
		candidates = []string{*asked}
	}
	for _, p := range candidates {
		if content, found := tree[p]; found {
			cfg = &releaseConfig{}
			if err := yaml.Unmarshal(content, cfg); err != nil {
				return nil, "", false
			}
			return cfg, p, true
		}
	}
	return nil, "", true
}

// mergedBetween lists, oldest first, the pull requests merged into target and not into
// previous, and those of them that are their author's first merged pull request.
func (r *Repo) mergedBetween(previous, target string) (changes, newcomers []*mergeInfo) {
	inRange := r.ancestors(target)
	before := map[string]bool{}
	if previous != "" {
		prevSHA, _ := r.peelTag(previous)
		before = r.ancestors(prevSHA)
	}
	all := slices.Clone(*r.merges())
	sort.SliceStable(all, func(i, j int) bool { return all[i].mergedAt.Before(all[j].mergedAt) })
	firstOf := map[string]*mergeInfo{}
	for _, m := range all {
		if !inRange[m.commit] {
			continue
		}
		if _, seen := firstOf[m.author]; !seen {
			firstOf[m.author] = m
		}
		if !before[m.commit] {
			changes = append(changes, m)
		}
	}
	for _, m := range changes {
		if firstOf[m.author] == m {
			newcomers = append(newcomers, m)
		}
	}
	return changes, newcomers
}

// writeNotes writes the body of the notes in GitHub's markdown.
func (c *call) writeNotes(n releaseNotes) string {
	var b strings.Builder
	if n.config != nil {
		fmt.Fprintf(&b, "<!-- Release notes generated using configuration in %s at %s -->\n\n", n.configPath, n.configRef)
	}
	if listed := c.categorise(n.config, n.changes); len(listed) > 0 {
		b.WriteString("## What's Changed\n")
		for _, cat := range listed {
			if cat.title != "" {
				b.WriteString("### " + cat.title + "\n")
			}
			for _, m := range cat.pulls {
				fmt.Fprintf(&b, "* %s by @%s in %s\n", m.title, m.author, c.htmlURL("/pull/%d", m.number))
			}
		}
	}
	b.WriteString("\n")
	if len(n.newcomers) > 0 {
		b.WriteString("## New Contributors\n")
		for _, m := range n.newcomers {
			fmt.Fprintf(&b, "* @%s made their first contribution in %s\n", m.author, c.htmlURL("/pull/%d", m.number))
		}
	}
	b.WriteString("\n")
	if n.previous != "" {
		fmt.Fprintf(&b, "**Full Changelog**: %s", c.htmlURL("/compare/%s...%s", n.previous, n.tag))
	} else {
		fmt.Fprintf(&b, "**Full Changelog**: %s", c.htmlURL("/commits/%s", n.tag))
	}
	return b.String()
}

// previousRelease is the tag of the newest published release, other than tag, whose
// commit is behind target: what GitHub compares against when no previous tag is given.
func (r *Repo) previousRelease(tag, target string) string {
	behind := r.ancestors(target)
	var best *Release
	for _, rel := range r.releases {
		if rel.Draft || rel.TagName == tag {
			continue
		}
		sha, ok := r.peelTag(rel.TagName)
		if !ok || !behind[sha] {
			continue
		}
		if best == nil || rel.CreatedAt.After(best.CreatedAt) {
			best = rel
		}
	}
	if best == nil {
		return ""
	}
	return best.TagName
}

// category is one "### title" group of the notes; the empty title is the flat list
// written without a configuration.
type category struct {
	title string
	pulls []*mergeInfo
}

// categorise applies .github/release.yml: excluded labels and authors leave a pull
// request out, and each remaining one goes to the first category whose labels it carries
// ("*" matches any); one matching no category is left out, as GitHub does.
func (c *call) categorise(cfg *releaseConfig, pulls []*mergeInfo) []category {
	if cfg == nil {
		if len(pulls) == 0 {
			return nil
		}
		return []category{{pulls: pulls}}
	}
	excluded := func(m *mergeInfo, labels, authors []string) bool {
		if slices.Contains(authors, m.author) {
			return true
		}
		for _, l := range m.labels {
			if slices.Contains(labels, l) {
				return true
			}
		}
		return false
	}
	cats := cfg.Changelog.Categories
	if len(cats) == 0 {
		var kept []*mergeInfo
		for _, m := range pulls {
			if !excluded(m, cfg.Changelog.Exclude.Labels, cfg.Changelog.Exclude.Authors) {
				kept = append(kept, m)
			}
		}
		if len(kept) == 0 {
			return nil
		}
		return []category{{pulls: kept}}
	}
	out := make([]category, len(cats))
	for i, cat := range cats {
		out[i].title = cat.Title
	}
	for _, m := range pulls {
		if excluded(m, cfg.Changelog.Exclude.Labels, cfg.Changelog.Exclude.Authors) {
			continue
		}
		for i, cat := range cats {
			if excluded(m, cat.Exclude.Labels, cat.Exclude.Authors) {
				continue
			}
			match := slices.Contains(cat.Labels, "*")
			for _, l := range m.labels {
				match = match || slices.Contains(cat.Labels, l)
			}
			if match {
				out[i].pulls = append(out[i].pulls, m)
				break
			}
		}
	}
	return slices.DeleteFunc(out, func(cat category) bool { return len(cat.pulls) == 0 })
}
