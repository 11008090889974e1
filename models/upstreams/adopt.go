package upstreams

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Adoption starts from a Cloudcoil repository without models/upstreams.json: everything
// the file needs is already in each models/<name>/cookiecutter.yaml (the release lines, the
// schema URLs of one version and the rewrite that derives the others) and in the
// template's requirement on Cloudcoil. ProposeFile writes the first file from them and
// names every field it had to guess or could not fill.

// Field is one field of the proposed file that a maintainer must look at.
type Field struct {
	// Path is the field in models/upstreams.json ("integrations.kubernetes.policy").
	Path string `json:"path"`
	// Why says what was inferred from where, or why nothing could be.
	Why string `json:"why"`
}

// Proposal is a first models/upstreams.json and what it rests on.
type Proposal struct {
	File *File `json:"-"`
	// Assumed are fields filled from a rule of thumb: right for the real repository's
	// integrations, but a maintainer's decision.
	Assumed []Field `json:"assumed"`
	// Unresolved are fields that could not be inferred at all; they are left empty, so
	// the file does not validate until a maintainer fills them in.
	Unresolved []Field `json:"unresolved"`
	// Migration is the one deliberate Cloudcoil migration adoption proposes, "" when the
	// template already stands on the current minor.
	Migration string `json:"migration,omitempty"`
}

// githubAsset and githubRaw are the two URL shapes the real integrations use; both name the
// upstream repository.
var (
	githubAsset = regexp.MustCompile(`^https://github\.com/([^/]+)/([^/]+)/releases/download/`)
	githubRaw   = regexp.MustCompile(`^https://raw\.githubusercontent\.com/([^/]+)/([^/]+)/refs/tags/`)
	semverAt    = regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)/`)
)

// ProposeFile proposes models/upstreams.json from the integrations' cookiecutter.yaml files
// (by integration name) and the model template's pyproject.toml. Each integration gets its
// release lines, its repository and tag prefix (read from the URL and
// version_replacement_sed), schema_urls (crd_urls with its version turned into
// {version}) and a policy (one line: newest-minor; several: maintained-lines keeping that
// many). A file that does not read is an error; a field that cannot be inferred is named.
func ProposeFile(cookiecutters map[string][]byte, templatePyproject []byte, pkg string, evidence CloudcoilEvidence) (*Proposal, error) {
	p := &Proposal{File: &File{Integrations: map[string]*Integration{}}, Assumed: []Field{}, Unresolved: []Field{}}
	p.proposeCloudcoil(templatePyproject, pkg, evidence)
	names := make([]string, 0, len(cookiecutters))
	for name := range cookiecutters {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		doc, err := readCookiecutter(cookiecutters[name], CookiecutterPath(name))
		if err != nil {
			return nil, err
		}
		p.File.Integrations[name] = p.proposeIntegration(name, doc)
	}
	return p, nil
}

func (p *Proposal) assume(path, format string, args ...any) {
	p.Assumed = append(p.Assumed, Field{Path: path, Why: fmt.Sprintf(format, args...)})
}

func (p *Proposal) unresolved(path, format string, args ...any) {
	p.Unresolved = append(p.Unresolved, Field{Path: path, Why: fmt.Sprintf(format, args...)})
}

// CloudcoilEvidence is what adoption reads besides the template: Cloudcoil's versions on
// PyPI (none when PyPI was not read) and VERSIONING.md (nil when absent).
type CloudcoilEvidence struct {
	Releases   []string
	Versioning []byte
}

// proposeCloudcoil decides the current minor (CurrentMinor) from the template's runtime
// requirement, Cloudcoil's releases and VERSIONING.md, and proposes the newest release of
// that minor as the version: the one notion of "current" every Cloudcoil function then
// reads from the file. Where the requirement's lower bound names an older minor, the
// migration is named with its reasons.
func (p *Proposal) proposeCloudcoil(template []byte, pkg string, evidence CloudcoilEvidence) {
	p.File.Cloudcoil.Package = pkg
	if template == nil {
		p.unresolved("cloudcoil.version", "%s is absent: nothing says which Cloudcoil the models need", TemplatePyproject)
		p.unresolved("cloudcoil.minor", "%s is absent", TemplatePyproject)
		return
	}
	reqs, err := FindRequirements(TemplatePyproject, template, pkg)
	if err != nil {
		p.unresolved("cloudcoil.version", "%v", err)
		return
	}
	e := MinorEvidence{Releases: evidence.Releases, Recommended: RecommendedSpecifier(evidence.Versioning)}
	for _, r := range reqs {
		if r.Table == "project.dependencies" && e.Requirement == "" {
			e.Requirement, e.At = r.Text, fmt.Sprintf("%s:%d", TemplatePyproject, r.Line)
		}
	}
	d, err := CurrentMinor(e)
	if err != nil {
		p.unresolved("cloudcoil.version", "%v", err)
		p.unresolved("cloudcoil.minor", "follows cloudcoil.version")
		return
	}
	p.File.Cloudcoil.Version, p.File.Cloudcoil.Minor = d.Version, d.Minor.String()
	if len(evidence.Releases) == 0 {
		p.assume("cloudcoil.version", "PyPI was not read: the requirement's lower bound %s, not the newest release of %s", d.Version, d.Minor)
	}
	p.assume("cloudcoil.minor", "%s: updates stay within it, a newer minor is a migration", strings.Join(d.Reasons, "; "))
	p.Migration = d.Migration
}

func (p *Proposal) proposeIntegration(name string, doc *cookiecutter) *Integration {
	at := "integrations." + name
	in := &Integration{Name: name, Versions: []string{}, SchemaURLs: []SchemaURL{}}
	matrix := slices.Clone(doc.versions.items)
	slices.SortFunc(matrix, func(a, b string) int {
		va, _ := ParseVersion(a) // readCookiecutter checked each
		vb, _ := ParseVersion(b)
		return va.Compare(vb)
	})
	in.Versions = matrix

	// The version crd_urls names, where the template's rewrite finds it.
	var crdVersion string
	for _, u := range doc.urls.items {
		if i := strings.Index(u, doc.sed); doc.sed != "" && i >= 0 {
			if m := semverAt.FindStringSubmatch(u[i+len(doc.sed):]); m != nil {
				crdVersion = m[1]
				break
			}
		}
	}
	if crdVersion == "" {
		p.unresolved(at+".schema_urls", "no URL of %s holds %q followed by X.Y.Z/, so the template cannot derive the lines' URLs either", CookiecutterPath(name), doc.sed)
	} else {
		for _, u := range doc.urls.items {
			// Every occurrence: an asset name may repeat the version (KEDA).
			in.SchemaURLs = append(in.SchemaURLs, SchemaURL{URL: strings.ReplaceAll(u, crdVersion, VersionPlaceholder)})
		}
	}

	// Repository and tag prefix: the URL's repository, and what version_replacement_sed
	// puts before the version in the tag.
	first := ""
	if len(doc.urls.items) > 0 {
		first = doc.urls.items[0]
	}
	if m := githubAsset.FindStringSubmatch(first); m != nil {
		in.Repository = m[1] + "/" + m[2]
	} else if m := githubRaw.FindStringSubmatch(first); m != nil {
		in.Repository = m[1] + "/" + m[2]
	} else {
		p.unresolved(at+".repository", "%s does not name a GitHub repository (github.com/<owner>/<name>/releases/download/… or raw.githubusercontent.com/<owner>/<name>/refs/tags/…)", first)
	}
	for _, path := range []string{"releases/download/", "refs/tags/"} {
		if prefix, ok := strings.CutPrefix(doc.sed, path); ok {
			in.TagPrefix = &prefix
		}
	}
	if in.TagPrefix == nil {
		p.unresolved(at+".tag_prefix", "version_replacement_sed %q does not start with releases/download/ or refs/tags/: set tag_prefix or tag_pattern", doc.sed)
	}

	if len(matrix) > 1 {
		in.Policy, in.MaintainedLines = PolicyMaintainedLines, len(matrix)
		p.assume(at+".policy", "%s keeps %d lines: %s with maintained_lines %d (a new minor is added, the oldest retired)", CookiecutterPath(name), len(matrix), PolicyMaintainedLines, len(matrix))
	} else {
		in.Policy = PolicyNewestMinor
		p.assume(at+".policy", "%s keeps one line: %s (a new minor replaces it)", CookiecutterPath(name), PolicyNewestMinor)
	}
	return in
}

// Text is the proposal for people: what to confirm and what to fill in, then the file.
func (p *Proposal) Text() (string, error) {
	raw, err := p.File.Marshal()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Proposed %s (%d integrations), from models/*/cookiecutter.yaml and %s.\n", FilePath, len(p.File.Integrations), TemplatePyproject)
	if len(p.Unresolved) > 0 {
		b.WriteString("\nCould not infer (left empty; fill in before committing):\n")
		for _, f := range p.Unresolved {
			fmt.Fprintf(&b, "- %s: %s\n", f.Path, f.Why)
		}
	}
	if len(p.Assumed) > 0 {
		b.WriteString("\nInferred by a rule of thumb (confirm):\n")
		for _, f := range p.Assumed {
			fmt.Fprintf(&b, "- %s: %s\n", f.Path, f.Why)
		}
	}
	if p.Migration != "" {
		fmt.Fprintf(&b, "\nCloudcoil migration (part of the adoption):\n- %s\n", p.Migration)
	}
	fmt.Fprintf(&b, "\n%s:\n", FilePath)
	b.Write(raw)
	return b.String(), nil
}
