package upstreams

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// TemplatePyproject is where the Cloudcoil generator repository declares its requirement on
// Cloudcoil, besides cloudcoil.version in models/upstreams.json: the model template's
// pyproject.toml. In the real template the runtime requirement is "cloudcoil>=0.4.0" in
// [project].dependencies, with no upper bound, and the generation requirement is
// "cloudcoil[codegen,test]" in the dev dependency group, with no version at all.
const TemplatePyproject = "cookiecutter/models-{{ cookiecutter.model_name }}/pyproject.toml"

// Requirement is one requirement on a package, found where pyproject.toml declares
// requirements: [project].dependencies, [project].optional-dependencies.<extra> and
// [dependency-groups].<group>. Strings anywhere else (keywords, coverage paths, build
// settings) are not requirements, whatever they spell.
type Requirement struct {
	// Table is where it sits: "project.dependencies", "project.optional-dependencies.test",
	// "dependency-groups.dev".
	Table string `json:"table"`
	// Line is its 1-based line in the file.
	Line int `json:"line"`
	// Text is the requirement as written.
	Text string `json:"text"`

	start, end int // the string's content in the file, quotes excluded
}

// requirementOf splits a PEP 508 requirement into its name, extras ("[codegen]" or "")
// and version specifier.
var requirementOf = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*([^;]*?)\s*(;.*)?$`)

// jinjaTag is a Jinja statement or comment.
var jinjaTag = regexp.MustCompile(`(?s)\{%.*?%\}|\{#.*?#\}`)

// blankJinja makes a Jinja template of a TOML file read as TOML, keeping every byte offset
// and line, so positions found in it are positions in the file: statements and comments
// become spaces, and an expression ({{ … }}) outside a TOML string, as a key or a value,
// becomes a run of 1s, a bare key or an integer. Expressions inside strings stay as they
// are, since a string holds any text.
func blankJinja(data []byte) []byte {
	out := bytes.Clone(data)
	for _, m := range jinjaTag.FindAllIndex(data, -1) {
		fill(out, m[0], m[1], ' ')
	}
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '#':
			i = lineEnd(out, i) - 1
		case out[i] == '"' || out[i] == '\'':
			i = stringEnd(out, i)
		case out[i] == '{' && i+1 < len(out) && out[i+1] == '{':
			end := bytes.Index(out[i:], []byte("}}"))
			if end < 0 || bytes.IndexByte(out[i:i+end], '\n') >= 0 {
				continue
			}
			fill(out, i, i+end+2, '1')
			i += end + 1
		}
	}
	return out
}

// fill overwrites b[from:to] with c, newlines kept.
func fill(b []byte, from, to int, c byte) {
	for i := from; i < to; i++ {
		if b[i] != '\n' {
			b[i] = c
		}
	}
}

// stringEnd is the index of the closing quote of the TOML string opening at i: basic or
// literal, single- or multi-line (an unterminated one ends the text).
func stringEnd(b []byte, i int) int {
	q := b[i]
	if bytes.HasPrefix(b[i:], []byte{q, q, q}) {
		if n := bytes.Index(b[i+3:], []byte{q, q, q}); n >= 0 {
			return i + 3 + n + 2
		}
		return len(b) - 1
	}
	for j := i + 1; j < len(b); j++ {
		switch {
		case b[j] == '\\' && q == '"':
			j++
		case b[j] == q, b[j] == '\n':
			return j
		}
	}
	return len(b) - 1
}

// FindRequirements reads the requirements on pkg that data (the file at path, a
// pyproject.toml or the model template's Jinja text of one) declares, in file order. The
// file is read structurally, through a TOML parser, after blankJinja.
func FindRequirements(path string, data []byte, pkg string) ([]Requirement, error) {
	src := blankJinja(data)
	var p unstable.Parser
	p.Reset(src)
	var table []string
	var out []Requirement
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = keyParts(e.Key())
		case unstable.KeyValue:
			full := append(append([]string{}, table...), keyParts(e.Key())...)
			kind := requirementTable(full)
			if kind == "" {
				continue
			}
			value := e.Value()
			if value.Kind != unstable.Array {
				return nil, fmt.Errorf("%s:%d: %s: want an array of requirement strings", path, keyLine(&p, e), strings.Join(full, "."))
			}
			items := value.Children()
			for items.Next() {
				item := items.Node()
				if item.Kind != unstable.String {
					continue // {include-group = "…"} in a dependency group
				}
				raw := item.Raw
				text := string(item.Data)
				start, end := int(raw.Offset)+1, int(raw.Offset+raw.Length)-1
				parts := requirementOf.FindStringSubmatch(text)
				if parts == nil || NormalizeName(parts[1]) != NormalizeName(pkg) {
					continue
				}
				if start < 0 || end > len(data) || end < start || string(data[start:end]) != text {
					line := 1 + bytes.Count(data[:min(int(raw.Offset), len(data))], []byte("\n"))
					return nil, fmt.Errorf("%s:%d: %q: write the requirement as a plain \"…\" string without escapes, so it can be edited in place", path, line, text)
				}
				out = append(out, Requirement{
					Table: strings.Join(full, "."), Line: 1 + bytes.Count(data[:start], []byte("\n")),
					Text: text, start: start, end: end,
				})
			}
		}
	}
	if err := p.Error(); err != nil {
		var perr *unstable.ParserError
		if errors.As(err, &perr) {
			line, col := p.Shape(p.Range(perr.Highlight)).Start.Line, p.Shape(p.Range(perr.Highlight)).Start.Column
			return nil, fmt.Errorf("%s:%d:%d: not TOML once its Jinja is set aside: %s; fix the file so its requirements can be read", path, line, col, perr.Message)
		}
		return nil, fmt.Errorf("%s: not TOML once its Jinja is set aside: %w", path, err)
	}
	return out, nil
}

// keyLine is the line of a key-value expression's first key.
func keyLine(p *unstable.Parser, e *unstable.Node) int {
	it := e.Key()
	if !it.Next() {
		return 0
	}
	return p.Shape(it.Node().Raw).Start.Line
}

// requirementTable says whether a key path holds requirements: it returns the path's name
// or "" when it does not.
func requirementTable(key []string) string {
	switch {
	case len(key) == 2 && key[0] == "project" && key[1] == "dependencies":
		return "dependencies"
	case len(key) == 3 && key[0] == "project" && key[1] == "optional-dependencies":
		return "optional-dependencies"
	case len(key) == 2 && key[0] == "dependency-groups":
		return "dependency-groups"
	}
	return ""
}

func keyParts(it unstable.Iterator) []string {
	var parts []string
	for it.Next() {
		parts = append(parts, string(it.Node().Data))
	}
	return parts
}

// RaiseRequirement moves the lower bound of every requirement on pkg in data (the file at
// path) to version, a final release of minor, keeping everything else byte for byte: the
// requirement advances within its own minor. A requirement without a lower bound
// ("cloudcoil[codegen,test]") has nothing to move; an upper bound, when there is one, must
// admit version. A lower bound of another minor, or a clause other than >= and <, is an
// error naming the file, line and fix: moving to another minor is a migration, which a
// maintainer makes. A bound already at or above version stays. It returns the
// requirements it found.
func RaiseRequirement(path string, data []byte, pkg string, minor Line, version string) (out []byte, found []Requirement, err error) {
	to, ok := parseFinalPy(version)
	if !ok || to.line() != minor {
		return nil, nil, fmt.Errorf("%s: cannot raise %s to %q: not a final release of its minor %s", path, pkg, version, minor)
	}
	reqs, err := FindRequirements(path, data, pkg)
	if err != nil {
		return nil, nil, err
	}
	var edits []edit
	for _, r := range reqs {
		parts := requirementOf.FindStringSubmatch(r.Text)
		spec := parts[3]
		lower, lowerAt, err := lowerBound(spec, minor, to)
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %s %q: %w", path, r.Line, r.Table, r.Text, err)
		}
		if lowerAt < 0 || lower.compare(to) >= 0 {
			continue
		}
		specStart := r.start + strings.Index(r.Text, spec)
		edits = append(edits, edit{start: specStart + lowerAt, end: specStart + lowerAt + len(lower.text), text: version})
	}
	if len(edits) == 0 {
		return data, reqs, nil
	}
	return splice(data, edits), reqs, nil
}

// RequirementMinor reads the minor of the lower bound of the requirements on pkg in data:
// the minor the template currently stands on. ok is false when no requirement has a lower
// bound; requirements whose lower bounds name different minors are an error.
func RequirementMinor(path string, data []byte, pkg string) (Line, bool, error) {
	reqs, err := FindRequirements(path, data, pkg)
	if err != nil {
		return Line{}, false, err
	}
	var minor Line
	ok := false
	for _, r := range reqs {
		spec := requirementOf.FindStringSubmatch(r.Text)[3]
		for _, clause := range strings.Split(spec, ",") {
			c := strings.TrimSpace(clause)
			text, isLower := strings.CutPrefix(c, ">=")
			if !isLower {
				continue
			}
			v, final := parseFinalPy(strings.TrimSpace(text))
			if !final {
				return Line{}, false, fmt.Errorf("%s:%d: %q: the lower bound is not a final release X.Y[.Z]", path, r.Line, r.Text)
			}
			if ok && v.line() != minor {
				return Line{}, false, fmt.Errorf("%s:%d: %q: its minor %s differs from %s of another requirement on %s; make them agree", path, r.Line, r.Text, v.line(), minor, pkg)
			}
			minor, ok = v.line(), true
		}
	}
	return minor, ok, nil
}

// lowerBound reads a specifier's clauses: at most one lower bound ">=A" (A a final
// release of minor) and upper bounds "<B" that admit to. It returns A and where A's text
// starts in spec, or -1 when there is no lower bound.
func lowerBound(spec string, minor Line, to pyVersion) (pyVersion, int, error) {
	var lower pyVersion
	lowerAt := -1
	if strings.TrimSpace(spec) == "" {
		return lower, -1, nil
	}
	for _, cl := range specClauses(spec) {
		c, clauseAt := cl.text, cl.at
		switch {
		case strings.HasPrefix(c, ">="):
			text := strings.TrimSpace(c[2:])
			v, ok := parseFinalPy(text)
			if !ok {
				return lower, 0, fmt.Errorf("the lower bound %q is not a final release X.Y[.Z]; write >=X.Y.Z", text)
			}
			if v.line() != minor {
				return lower, 0, fmt.Errorf("the lower bound %s is not in the minor %s that Cloudcoil advances within; moving to another minor is a migration: edit the template and %s by hand", text, minor, FilePath)
			}
			if lowerAt >= 0 {
				return lower, 0, errors.New("two lower bounds; keep one >=X.Y.Z")
			}
			lower, lowerAt = v, clauseAt+strings.Index(c, text)
		case strings.HasPrefix(c, "<") && !strings.HasPrefix(c, "<="):
			text := strings.TrimSpace(c[1:])
			v, ok := parseFinalPy(text)
			if !ok {
				return lower, 0, fmt.Errorf("the upper bound %q is not a final release X.Y[.Z]", text)
			}
			if to.compare(v) >= 0 {
				return lower, 0, fmt.Errorf("the upper bound <%s excludes %s; raising it is a migration: edit it by hand", text, to.text)
			}
		default:
			return lower, 0, fmt.Errorf("the clause %q is neither >=X.Y.Z nor <X.Y; write the requirement as >=X.Y.Z (optionally ,<X.Y)", c)
		}
	}
	return lower, lowerAt, nil
}

// BoundRequirement bounds each requirement on pkg in table ("project.dependencies") that has
// a lower bound and no upper bound below the minor after minor: "cloudcoil>=0.4.2" becomes
// "cloudcoil>=0.4.2,<0.5", so a lock refresh stays within minor. A lower bound on an older
// minor is raised to floor when one is given (the migration onto minor: ">=0.4.0" becomes
// ">=0.5.8,<0.6"). A requirement with an upper bound, or without a version, stays as
// written. A lower bound beyond minor is an error naming the file and line: the bound would
// admit nothing.
func BoundRequirement(path string, data []byte, pkg, table string, minor Line, floor string) ([]byte, error) {
	if floor != "" {
		if v, ok := parseFinalPy(floor); !ok || v.line() != minor {
			return nil, fmt.Errorf("%s: cannot raise %s to %q: not a final release of %s", path, pkg, floor, minor)
		}
	}
	reqs, err := FindRequirements(path, data, pkg)
	if err != nil {
		return nil, err
	}
	next := Line{Major: minor.Major, Minor: minor.Minor + 1}
	var edits []edit
	for _, r := range reqs {
		if r.Table != table {
			continue
		}
		spec := requirementOf.FindStringSubmatch(r.Text)[3]
		specStart := r.start + strings.Index(r.Text, spec)
		hasLower, hasUpper := false, false
		var raise *edit
		for _, cl := range specClauses(spec) {
			c, clauseAt := cl.text, cl.at
			switch {
			case strings.HasPrefix(c, ">="):
				hasLower = true
				text := strings.TrimSpace(c[2:])
				v, ok := parseFinalPy(text)
				if ok && v.line().Compare(minor) > 0 {
					return nil, fmt.Errorf("%s:%d: %s %q: the lower bound is beyond Cloudcoil's minor %s, so <%s would admit nothing; move cloudcoil.minor in %s first",
						path, r.Line, r.Table, r.Text, minor, next, FilePath)
				}
				if ok && floor != "" && v.line().Compare(minor) < 0 {
					at := specStart + clauseAt + strings.Index(c, text)
					raise = &edit{start: at, end: at + len(text), text: floor}
				}
			case strings.HasPrefix(c, "<"), strings.HasPrefix(c, "=="), strings.HasPrefix(c, "~="):
				hasUpper = true
			}
		}
		if !hasLower || hasUpper {
			continue
		}
		if raise != nil {
			edits = append(edits, *raise)
		}
		end := specStart + len(spec)
		edits = append(edits, edit{start: end, end: end, text: ",<" + next.String()})
	}
	return splice(data, edits), nil
}

// specClause is one clause of a version specifier, trimmed, with where it starts in the
// specifier, so an edit can replace its version in place.
type specClause struct {
	text string
	at   int
}

// specClauses splits a specifier at its commas.
func specClauses(spec string) []specClause {
	var out []specClause
	offset := 0
	for _, clause := range strings.Split(spec, ",") {
		c := strings.TrimSpace(clause)
		out = append(out, specClause{text: c, at: offset + strings.Index(clause, c)})
		offset += len(clause) + 1
	}
	return out
}
