package upstreams

import (
	"fmt"
	"slices"
	"strings"
)

// Kind says what a change is and, with it, whether it is applied.
type Kind string

const (
	// KindPatch is a newer patch in a tracked line: applied (matrix and schema URLs together).
	KindPatch Kind = "patch"
	// KindProposed is a newer minor or major than the highest tracked line: proposed for
	// review as its own commit, never applied automatically. Under PolicyNewestMinor it
	// replaces the tracked line; under PolicyMaintainedLines it is added and the oldest
	// lines beyond the count are retired.
	KindProposed Kind = "proposed"
	// KindCloudcoil is a newer Cloudcoil release within the compatible minor: applied.
	KindCloudcoil Kind = "cloudcoil"
	// KindMigration is a newer Cloudcoil minor or major: needs a deliberate migration.
	KindMigration Kind = "migration"
)

// Change is one available update.
type Change struct {
	// Integration is the integration's name, or the PyPI package for Cloudcoil changes.
	Integration string `json:"integration"`
	Kind        Kind   `json:"kind"`
	From        string `json:"from"`
	To          string `json:"to"`
	// Tag is the upstream tag of To (empty for Cloudcoil).
	Tag string `json:"tag,omitempty"`
	// ReleaseURL links the upstream release page (GitHub release, or the PyPI release).
	ReleaseURL string `json:"release_url"`
	// SchemaURLs are the schema files of To, for patch changes and proposals.
	SchemaURLs []string `json:"schema_urls,omitempty"`
	// Policy is the integration's policy, for proposals.
	Policy string `json:"policy,omitempty"`
	// Retires lists the matrix versions a proposal removes: the line it replaces under
	// PolicyNewestMinor, the lines past the count under PolicyMaintainedLines.
	Retires []string `json:"retires,omitempty"`
	// Applied is true when the change is written to the files; the others need review.
	Applied bool `json:"applied"`
}

// Updates is every available update, in a stable order: Cloudcoil first, then
// integrations by name, each with its patches (ascending) before any proposal.
type Updates struct {
	Changes []Change `json:"changes"`
	// Problems are what the run left out, each with its file and fix.
	Problems []Problem `json:"problems"`
	// Declined are the proposals left out because the file declines them (an integration's
	// declined names their release or a newer one): listed so the decline stays visible.
	Declined []Change `json:"declined,omitempty"`
}

// PyPIInfo is what Cloudcoil's update needs from PyPI: every version with files, and whether
// the whole version is yanked.
type PyPIInfo struct {
	Name string `json:"name"`
	// Latest is PyPI's own info.version, kept for messages; selection never relies on it.
	Latest   string        `json:"latest,omitempty"`
	Releases []PyPIRelease `json:"releases"`
}

// PyPIRelease is one version on PyPI.
type PyPIRelease struct {
	Version string `json:"version"`
	// Yanked is true when every file of the version is yanked.
	Yanked bool `json:"yanked"`
}

// Plan computes the available updates from the parsed file, the discovered final releases
// per integration name (as Candidates returns them; any order) and Cloudcoil's PyPI data. It
// never downgrades, and an integration without discovered releases yields no change.
func Plan(file *File, discovered map[string][]Version, cloudcoil PyPIInfo) Updates {
	plan := Updates{Changes: []Change{}, Problems: append([]Problem{}, file.Problems...)}
	plan.Changes = append(plan.Changes, planCloudcoil(file.Cloudcoil, cloudcoil)...)
	for _, name := range file.Names() {
		if in := file.Integrations[name]; in != nil {
			changes := planIntegration(name, in, discovered[name])
			if n := len(changes); n > 0 && in.declines(changes[n-1]) {
				plan.Declined = append(plan.Declined, changes[n-1])
				changes = changes[:n-1]
			}
			plan.Changes = append(plan.Changes, changes...)
		}
	}
	return plan
}

func planIntegration(name string, in *Integration, found []Version) []Change {
	var matrix []Version
	for _, s := range in.Versions {
		if v, err := ParseVersion(s); err == nil {
			matrix = append(matrix, v)
		}
	}
	if len(matrix) == 0 {
		return nil
	}
	slices.SortFunc(matrix, Version.Compare)

	var changes []Change
	for _, cur := range matrix {
		best, ok := newestIn(found, patchesFrom(cur))
		if !ok || best.Compare(cur) <= 0 {
			continue
		}
		urls, _ := in.SchemaURLsFor(best) // bounds were validated; an error leaves it empty
		changes = append(changes, Change{
			Integration: name, Kind: KindPatch,
			From: cur.String(), To: best.String(), Tag: in.tagFor(best),
			ReleaseURL: in.releaseURL(best), SchemaURLs: urls, Applied: true,
		})
	}

	// Everything above the highest tracked line is one decision for a person: offer the
	// newest release, whose notes cover the lines in between.
	highest := matrix[len(matrix)-1]
	if top, ok := newestIn(found, beyond(highest.Line())); ok {
		proposal := Change{
			Integration: name, Kind: KindProposed, Policy: in.Policy,
			From: highest.String(), To: top.String(), Tag: in.tagFor(top),
			ReleaseURL: in.releaseURL(top), Retires: in.retiredBy(),
		}
		// None when the file's schema URL ranges do not reach the new line.
		proposal.SchemaURLs, _ = in.SchemaURLsFor(top)
		changes = append(changes, proposal)
	}
	return changes
}

// declines reports whether the integration's declined release covers a proposal: the
// proposal is of that release or an older one.
func (in *Integration) declines(c Change) bool {
	if c.Kind != KindProposed || in.Declined == "" {
		return false
	}
	declined, err := ParseVersion(in.Declined)
	to, err2 := ParseVersion(c.To)
	return err == nil && err2 == nil && to.Compare(declined) <= 0
}

// retiredBy lists the matrix versions a new line retires under the integration's policy:
// the tracked line under PolicyNewestMinor, the oldest lines past MaintainedLines under
// PolicyMaintainedLines.
func (in *Integration) retiredBy() []string {
	matrix, err := in.Matrix()
	if err != nil {
		return nil
	}
	keep := 1
	if in.Policy == PolicyMaintainedLines {
		keep = in.MaintainedLines
	}
	var out []string
	for len(matrix)+1 > keep && len(matrix) > 0 {
		out = append(out, matrix[0].String())
		matrix = matrix[1:]
	}
	return out
}

// tagFor is the tag of a discovered version, or the prefix spelling when the version was not
// read from a tag.
func (in *Integration) tagFor(v Version) string {
	if v.Tag != "" {
		return v.Tag
	}
	if in.TagPrefix != nil {
		return *in.TagPrefix + v.String()
	}
	return ""
}

func (in *Integration) releaseURL(v Version) string {
	tag := in.tagFor(v)
	if tag == "" {
		return "https://github.com/" + in.Repository + "/releases"
	}
	return "https://github.com/" + in.Repository + "/releases/tag/" + tag
}

func planCloudcoil(c Cloudcoil, info PyPIInfo) []Change {
	cur, ok := parseFinalPy(c.Version)
	minor, err := ParseLine(c.Minor)
	if !ok || err != nil {
		return nil
	}
	// Every final, unyanked release, under its first spelling (PyPI lists 0.5 or 0.5.0,
	// never both; the list is sorted, so the choice is stable).
	var finals []Version
	text := map[Version]string{}
	for _, r := range info.Releases {
		v, ok := parseFinalPy(r.Version)
		if !ok || r.Yanked {
			continue
		}
		if _, seen := text[v.v]; !seen {
			text[v.v] = v.text
			finals = append(finals, v.v)
		}
	}
	var within, newer *pyVersion
	if v, ok := newestIn(finals, releasesOf(minor)); ok {
		within = &pyVersion{v: v, text: text[v]}
	}
	if v, ok := newestIn(finals, beyond(minor)); ok {
		newer = &pyVersion{v: v, text: text[v]}
	}
	pkg := c.Package
	var changes []Change
	if within != nil && within.compare(cur) > 0 {
		changes = append(changes, Change{
			Integration: pkg, Kind: KindCloudcoil, From: c.Version, To: within.text,
			ReleaseURL: pypiReleaseURL(pkg, within.text), Applied: true,
		})
	}
	if newer != nil {
		changes = append(changes, Change{
			Integration: pkg, Kind: KindMigration, From: c.Version, To: newer.text,
			ReleaseURL: pypiReleaseURL(pkg, newer.text),
		})
	}
	return changes
}

func pypiReleaseURL(pkg, version string) string {
	return "https://pypi.org/project/" + NormalizeName(pkg) + "/" + version + "/"
}

// Empty reports whether there is no update at all, applied or for review, and no problem.
func (p Updates) Empty() bool { return len(p.Changes) == 0 && len(p.Problems) == 0 }

// Without leaves one integration's changes out of the plan and records why: the run goes
// on with the others.
func (p Updates) Without(problem Problem) Updates {
	out := Updates{Changes: []Change{}, Problems: append(append([]Problem{}, p.Problems...), problem)}
	for _, c := range p.Changes {
		if c.Integration != problem.Integration {
			out.Changes = append(out.Changes, c)
		}
	}
	return out
}

// Applied returns the changes written to the files.
func (p Updates) Applied() []Change {
	var out []Change
	for _, c := range p.Changes {
		if c.Applied {
			out = append(out, c)
		}
	}
	return out
}

// HasEdits reports whether applying the plan changes any file: a pull request needs at least
// one edit, a plan with proposals only has nothing to commit.
func (p Updates) HasEdits() bool { return len(p.Applied()) > 0 }

// describe is the short reason shown beside a change.
func (c Change) describe() string {
	switch c.Kind {
	case KindPatch:
		return "patch"
	case KindProposed:
		if len(c.Retires) > 0 {
			if c.Policy == PolicyMaintainedLines {
				return "proposed for review: new " + c.newWhat() + " added, retiring " + strings.Join(c.Retires, ", ")
			}
			return "proposed for review: new " + c.newWhat() + " replacing " + strings.Join(c.Retires, ", ")
		}
		return "proposed for review: new " + c.newWhat() + " added"
	case KindCloudcoil:
		return "Cloudcoil update within its compatible minor"
	case KindMigration:
		return "new Cloudcoil " + c.newWhat() + ": needs a deliberate migration, not applied"
	}
	return string(c.Kind)
}

// newWhat says whether To starts a new major or a new minor relative to From.
func (c Change) newWhat() string {
	major := func(s string) string { m, _, _ := strings.Cut(s, "."); return m }
	if major(c.From) != major(c.To) {
		return "major"
	}
	return "minor"
}

// Text is the human form of the plan, one line per change, for --check.
func (p Updates) Text() string {
	if p.Empty() {
		return "No updates available.\n" + p.declinedText()
	}
	var b strings.Builder
	for _, c := range p.Changes {
		fmt.Fprintf(&b, "%s: %s → %s (%s)\n", c.Integration, c.From, c.To, c.describe())
	}
	for _, pr := range p.Problems {
		fmt.Fprintf(&b, "skipped %s\n", pr)
	}
	b.WriteString(p.declinedText())
	return b.String()
}

// declinedText lists the declined proposals, a line each, with where the decline is kept.
func (p Updates) declinedText() string {
	var b strings.Builder
	for _, c := range p.Declined {
		fmt.Fprintf(&b, "declined %s %s, by %s[integrations.%s.declined]: a newer release is proposed\n",
			c.Integration, c.To, FilePath, c.Integration)
	}
	return b.String()
}

// PRTitle is the pull request title for the applied changes.
func (p Updates) PRTitle() string {
	applied := p.Applied()
	switch len(applied) {
	case 0:
		return "chore(models): upstream model versions to review"
	case 1:
		return fmt.Sprintf("chore(models): update %s to %s", applied[0].Integration, applied[0].To)
	}
	return fmt.Sprintf("chore(models): update %d upstream model versions", len(applied))
}

// PRBody lists each change with a link to its upstream release and marks those that need
// review. It holds no timestamps, so an unchanged plan renders the same body.
func (p Updates) PRBody() string {
	var b strings.Builder
	b.WriteString("Upstream model versions from `models/upstreams.json`: final GitHub releases only " +
		"(drafts, pre-releases and tags outside each product's scheme are ignored), and Cloudcoil from PyPI.\n")
	if applied := p.Applied(); len(applied) > 0 {
		b.WriteString("\n## Applied\n\n")
		b.WriteString("Schema URLs and the generation matrix change together in `models/upstreams.json` and each `models/<name>/cookiecutter.yaml`.\n\n")
		b.WriteString("| Integration | From | To | Kind | Release |\n|---|---|---|---|---|\n")
		for _, c := range applied {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Integration, c.From, c.To, c.Kind, c.link())
		}
	}
	var review []Change
	for _, c := range p.Changes {
		if !c.Applied {
			review = append(review, c)
		}
	}
	if len(review) > 0 {
		b.WriteString("\n## Needs review (not applied)\n\n")
		b.WriteString("This pull request needs a maintainer's review and is never merged automatically.\n\n")
		for _, c := range review {
			fmt.Fprintf(&b, "- **%s** %s → %s: %s.\n", c.Integration, c.From, c.link(), c.describe())
			b.WriteString(c.reviewSteps())
		}
	}
	if len(p.Problems) > 0 {
		b.WriteString("\n## Skipped (not updated)\n\n")
		b.WriteString("Each of these was left as it is; the rest of this pull request does not depend on it.\n\n")
		for _, pr := range p.Problems {
			fmt.Fprintf(&b, "- **%s** `%s`: %s\n  - [ ] %s\n", pr.Integration, pr.File, pr.Problem, pr.Fix)
		}
	}
	if len(p.Declined) > 0 {
		b.WriteString("\n## Declined (not proposed)\n\n")
		fmt.Fprintf(&b, "`declined` in `%s` keeps these out until a newer release appears; remove it to have one proposed again.\n\n", FilePath)
		for _, c := range p.Declined {
			fmt.Fprintf(&b, "- **%s** %s (%s)\n", c.Integration, c.link(), c.describe())
		}
	}
	if p.Empty() {
		b.WriteString("\nNo updates are pending.\n")
	}
	return b.String()
}

// reviewSteps is what a reviewer does about a change that is not applied, as a nested
// checklist: a proposal is in its own commit of the pull request; a new minor under
// maintained-minors is a coordinated change nobody edits in automatically.
func (c Change) reviewSteps() string {
	line := c.To
	if v, err := ParseVersion(c.To); err == nil {
		line = v.Line().String()
	}
	switch c.Kind {
	case KindProposed:
		if len(c.SchemaURLs) == 0 {
			return fmt.Sprintf("  - [ ] no schema URL of %s[`schema_urls`] reaches %s: add one, then the matrix entry, by hand\n", FilePath, c.To)
		}
		steps := fmt.Sprintf("  - [ ] review the commit of this pull request that moves the matrix of %s and %s to %s\n",
			FilePath, CookiecutterPath(c.Integration), c.To)
		steps += "  - [ ] " + c.declineHow() + "\n"
		if c.Policy == PolicyMaintainedLines {
			steps += fmt.Sprintf("  - [ ] support policy and cluster CI images: add the %s line", line)
			if len(c.Retires) > 0 {
				steps += ", retire " + strings.Join(c.Retires, ", ") + " (end of life)"
			}
			steps += "\n"
		}
		return steps
	case KindMigration:
		return fmt.Sprintf("  - [ ] migrate the template and the generator to Cloudcoil %s, then move `cloudcoil.minor` and `cloudcoil.version` in %s\n", line, FilePath)
	}
	return ""
}

// declineHow says how a proposal is declined so that it stays declined: every run rebuilds
// the pull request's branch, so a dropped commit comes back; the base branch's file keeps it.
func (c Change) declineHow() string {
	return fmt.Sprintf("to decline, set `\"declined\": \"%s\"` in `integrations.%s` of `%s` on the base branch: the proposal then stays out until a newer release appears",
		c.To, c.Integration, FilePath)
}

func (c Change) link() string {
	label := c.To
	if c.Tag != "" {
		label = c.Tag
	}
	// Tags come from upstream; keep Markdown table and link syntax intact whatever they hold.
	label = strings.NewReplacer(`|`, `\|`, `[`, `\[`, `]`, `\]`).Replace(label)
	return fmt.Sprintf("[%s](%s)", label, c.ReleaseURL)
}
