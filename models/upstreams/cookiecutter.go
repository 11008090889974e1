package upstreams

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"dagger/shipyard/internal/quote"
)

// CookiecutterPath is where an integration's generator configuration lives.
func CookiecutterPath(name string) string { return "models/" + name + "/cookiecutter.yaml" }

// The keys ApplyToCookiecutter reads and edits, under the top-level default_context mapping:
//
//	default_context:
//	  crd_urls: <schema files of one version>
//	  versions: <the release lines: the generation matrix>
//	  version_replacement_sed: <what precedes the version in crd_urls>
//
// This is Cloudcoil's contract: each model repository's update_releases.yml builds each
// line of versions from crd_urls by rewriting, in each URL, the first
// "<version_replacement_sed>X.Y.Z/" to that line's version. So crd_urls may name an
// older version than versions holds (cert-manager: crd_urls at 1.16.3, versions 1.17.1),
// and only the derived URLs have to be right.
//
// crd_urls and versions may be scalars, as Cloudcoil writes them — crd_urls comma-joined
// ("https://…/a.yaml,https://…/b.yaml") and versions as a quoted list
// ("'1.31.5', '1.32.1'") — or YAML sequences of scalars. Every other key, comment and
// blank line is left byte for byte as it was.
const (
	cookiecutterContextKey = "default_context"
	cookiecutterURLsKey    = "crd_urls"
	cookiecutterMatrixKey  = "versions"
	cookiecutterSedKey     = "version_replacement_sed"
)

// DeriveSchemaURLs is what update_releases.yml makes of crd_urls for one line: in each
// URL, the first "<sed>X.Y.Z/" becomes "<sed><version>/"; a URL without it stays as it is.
func DeriveSchemaURLs(crdURLs []string, sed string, v Version) []string {
	out := make([]string, len(crdURLs))
	if sed == "" {
		copy(out, crdURLs)
		return out
	}
	re := regexp.MustCompile(regexp.QuoteMeta(sed) + `[0-9]+\.[0-9]+\.[0-9]+/`)
	for i, u := range crdURLs {
		done := false
		out[i] = re.ReplaceAllStringFunc(u, func(m string) string {
			if done {
				return m
			}
			done = true
			return sed + v.String() + "/"
		})
	}
	return out
}

// TemplateMigrationError says the template's one crd_urls cannot give every line its
// schema URLs through version_replacement_sed: the template itself has to change (for
// example to one URL list per line), which is a maintainer's proposal, not an edit.
type TemplateMigrationError struct {
	Path    string
	Version string
	Derived []string
	Want    []string
}

func (e *TemplateMigrationError) Error() string {
	return fmt.Sprintf("%s: %s.%s through %s gives %s the schema URLs %v, but %s names %v",
		e.Path, cookiecutterContextKey, cookiecutterURLsKey, cookiecutterSedKey, e.Version, e.Derived, FilePath, e.Want)
}

// Fix is the template migration to propose.
func (e *TemplateMigrationError) Fix() string {
	return "the template derives every line's URLs from one crd_urls; migrate it to list the schema URLs per line " +
		"(or the URLs' layout to keep the version once, after " + cookiecutterSedKey + "), then update this integration by hand"
}

// ApplyToCookiecutter applies the plan's patch changes of one integration to the bytes of its
// models/<name>/cookiecutter.yaml: the matrix entries in versions and, only when the
// template could not derive the new lines' schema URLs from it, crd_urls (then rendered for
// the newest line). The YAML is read as a yaml.v3 node tree, which locates each value;
// only those values' characters are replaced, so comments, key order and formatting stay.
// Before editing it checks that the file agrees with integration (same lines, and each
// line's URLs derived as update_releases.yml derives them): a file that drifted from
// models/upstreams.json is an error, not something to guess about. A plan without
// patches for this integration returns b unchanged.
func ApplyToCookiecutter(b []byte, integration Integration, plan Updates) ([]byte, error) {
	path := CookiecutterPath(integration.Name)
	var patches []Change
	for _, c := range plan.Applied() {
		if c.Kind == KindPatch && c.Integration == integration.Name {
			patches = append(patches, c)
		}
	}
	if len(patches) == 0 {
		return b, nil
	}
	// The new matrix: each patch replaces its entry where it stands.
	return editCookiecutter(b, integration, func(matrix []string) ([]string, error) {
		for _, c := range patches {
			i := slices.Index(matrix, c.From)
			if i < 0 {
				return nil, fmt.Errorf("%s: %s.%s: %s is not in %v", path, cookiecutterContextKey, cookiecutterMatrixKey, c.From, matrix)
			}
			matrix[i] = c.To
		}
		return matrix, nil
	})
}

// ProposeToCookiecutter writes a proposal of a new line (KindProposed) into the bytes of
// the integration's cookiecutter.yaml: the version joins the end of the matrix and the
// versions it retires leave it. It checks the file against integration (the entry before
// the proposal) as ApplyToCookiecutter does.
func ProposeToCookiecutter(b []byte, integration Integration, c Change) ([]byte, error) {
	if c.Kind != KindProposed || c.Integration != integration.Name {
		return nil, fmt.Errorf("%s: %s %s of %s is not a proposal of this integration", CookiecutterPath(integration.Name), c.Kind, c.To, c.Integration)
	}
	return editCookiecutter(b, integration, func(matrix []string) ([]string, error) {
		if slices.Contains(matrix, c.To) {
			return nil, fmt.Errorf("%s: %s.%s already holds %s", CookiecutterPath(integration.Name), cookiecutterContextKey, cookiecutterMatrixKey, c.To)
		}
		return proposedMatrix(matrix, c), nil
	})
}

// editCookiecutter rewrites the matrix with edit and, when the template could not derive
// the new lines from crd_urls as it stands, crd_urls with the schema URLs of the newest
// line, in place, failing closed when the result parses to anything but the intended tree.
func editCookiecutter(b []byte, integration Integration, editMatrix func(matrix []string) ([]string, error)) ([]byte, error) {
	path := CookiecutterPath(integration.Name)
	doc, err := readCookiecutter(b, path)
	if err != nil {
		return nil, err
	}
	if err := doc.check(integration); err != nil {
		return nil, err
	}
	matrix, err := editMatrix(slices.Clone(doc.versions.items))
	if err != nil {
		return nil, err
	}
	newest, err := newestOf(matrix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	urls := doc.urls.items
	if err := doc.derives(integration, urls, matrix); err != nil {
		// crd_urls as it stands does not reach the new lines: name the newest line's
		// URLs, the shape real practice moves it to, if the template derives every line
		// from those.
		if urls, err = integration.SchemaURLsFor(newest); err != nil {
			return nil, err
		}
		if err := doc.derives(integration, urls, matrix); err != nil {
			return nil, err
		}
	}

	var edits []edit
	for _, l := range []struct {
		list  *valueList
		items []string
	}{{doc.versions, matrix}, {doc.urls, urls}} {
		e, err := l.list.rewrite(doc.src, l.items)
		if err != nil {
			return nil, fmt.Errorf("%s: %s.%s: %w", path, cookiecutterContextKey, l.list.key, err)
		}
		edits = append(edits, e...)
	}
	out := splice(doc.src, edits)

	// Fail closed: the result must parse to exactly the intended tree, comments included.
	var got yaml.Node
	if err := yaml.Unmarshal(out, &got); err != nil {
		return nil, fmt.Errorf("%s: the edited file does not parse: %w", path, err)
	}
	if err := sameTree(&got, doc.root, "$"); err != nil {
		return nil, fmt.Errorf("%s: editing in place changed more than the values: %w", path, err)
	}
	return out, nil
}

// CheckCookiecutter reports whether the cookiecutter.yaml bytes agree with the integration's
// entry in models/upstreams.json: the same lines, each deriving its schema URLs from
// crd_urls through version_replacement_sed as update_releases.yml does. A
// *TemplateMigrationError says the template cannot express the entry at all.
func CheckCookiecutter(b []byte, integration Integration) error {
	doc, err := readCookiecutter(b, CookiecutterPath(integration.Name))
	if err != nil {
		return err
	}
	return doc.check(integration)
}

type cookiecutter struct {
	path     string
	src      []byte
	root     *yaml.Node // mutated by rewrite into the tree the edited file must parse to
	versions *valueList
	urls     *valueList
	sed      string // version_replacement_sed
}

// templateDefaultSed is version_replacement_sed in the template's cookiecutter.json, which
// cookiecutter uses when an integration's file leaves the key out.
const templateDefaultSed = "releases/download/v"

func readCookiecutter(b []byte, path string) (*cookiecutter, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping at the top level", path)
	}
	ctx := mappingValue(root.Content[0], cookiecutterContextKey)
	if ctx == nil || ctx.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: %s: want a mapping", path, cookiecutterContextKey)
	}
	doc := &cookiecutter{path: path, src: b, root: &root}
	var err error
	if doc.versions, err = readList(ctx, cookiecutterMatrixKey, ", "); err != nil {
		return nil, fmt.Errorf("%s: %s.%w", path, cookiecutterContextKey, err)
	}
	if doc.urls, err = readList(ctx, cookiecutterURLsKey, ","); err != nil {
		return nil, fmt.Errorf("%s: %s.%w", path, cookiecutterContextKey, err)
	}
	doc.sed = templateDefaultSed
	if n := mappingValue(ctx, cookiecutterSedKey); n != nil {
		if n.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%s: %s.%s: want a scalar", path, cookiecutterContextKey, cookiecutterSedKey)
		}
		doc.sed = n.Value
	}
	for i, s := range doc.versions.items {
		if _, err := ParseVersion(s); err != nil {
			return nil, fmt.Errorf("%s: %s.%s[%d]: %w", path, cookiecutterContextKey, cookiecutterMatrixKey, i, err)
		}
	}
	return doc, nil
}

func (doc *cookiecutter) check(in Integration) error {
	got := slices.Sorted(slices.Values(doc.versions.items))
	want := slices.Sorted(slices.Values(in.Versions))
	if !slices.Equal(got, want) {
		return fmt.Errorf("%s: %s.%s %v differs from %s integrations.%s.versions %v: make them the same release lines",
			doc.path, cookiecutterContextKey, cookiecutterMatrixKey, doc.versions.items, FilePath, in.Name, in.Versions)
	}
	return doc.derives(in, doc.urls.items, doc.versions.items)
}

// derives checks that crd_urls gives every line of matrix the schema URLs the integration
// names for it.
func (doc *cookiecutter) derives(in Integration, crdURLs, matrix []string) error {
	for _, s := range matrix {
		v, err := ParseVersion(s)
		if err != nil {
			return fmt.Errorf("%s: %s.%s: %w", doc.path, cookiecutterContextKey, cookiecutterMatrixKey, err)
		}
		want, err := in.SchemaURLsFor(v)
		if err != nil {
			return err
		}
		if derived := DeriveSchemaURLs(crdURLs, doc.sed, v); !slices.Equal(derived, want) {
			return &TemplateMigrationError{Path: doc.path, Version: s, Derived: derived, Want: want}
		}
	}
	return nil
}

func newestOf(versions []string) (Version, error) {
	var newest Version
	for i, s := range versions {
		v, err := ParseVersion(s)
		if err != nil {
			return Version{}, fmt.Errorf("%s.%s: %w", cookiecutterContextKey, cookiecutterMatrixKey, err)
		}
		if i == 0 || v.Compare(newest) > 0 {
			newest = v
		}
	}
	if len(versions) == 0 {
		return Version{}, fmt.Errorf("%s.%s: empty", cookiecutterContextKey, cookiecutterMatrixKey)
	}
	return newest, nil
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	var found *yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Kind == yaml.ScalarNode && m.Content[i].Value == key {
			found = m.Content[i+1]
		}
	}
	return found
}

// valueList is one list-valued key: either a scalar holding a separated list, or a sequence.
type valueList struct {
	key   string
	node  *yaml.Node
	sep   string     // separator used when the scalar form must be rebuilt
	items []string   // the values, unquoted
	spans []itemSpan // scalar form: where each item sits inside node.Value
}

type itemSpan struct {
	start, end int    // byte range of the item inside the scalar's value, quotes included
	quote      string // "'" or `"` or ""
}

func readList(ctx *yaml.Node, key, sep string) (*valueList, error) {
	n := mappingValue(ctx, key)
	if n == nil {
		return nil, fmt.Errorf("%s: missing", key)
	}
	l := &valueList{key: key, node: n, sep: sep}
	switch n.Kind {
	case yaml.ScalarNode:
		l.items, l.spans = splitScalarList(n.Value)
		if len(l.items) == 0 {
			return nil, fmt.Errorf("%s: empty", key)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("%s[%d]: want a scalar", key, i)
			}
			l.items = append(l.items, item.Value)
		}
	default:
		return nil, fmt.Errorf("%s: want a scalar or a sequence of scalars", key)
	}
	return l, nil
}

// splitScalarList splits "'a', 'b'" or "a,b" on commas, unquoting items quoted with ' or ".
func splitScalarList(v string) ([]string, []itemSpan) {
	var items []string
	var spans []itemSpan
	pos := 0
	for _, part := range strings.Split(v, ",") {
		start := pos + len(part) - len(strings.TrimLeft(part, " \t"))
		trimmed := strings.TrimSpace(part)
		pos += len(part) + 1
		if trimmed == "" {
			continue
		}
		s := itemSpan{start: start, end: start + len(trimmed)}
		item := trimmed
		if len(trimmed) >= 2 && (trimmed[0] == '\'' || trimmed[0] == '"') && trimmed[len(trimmed)-1] == trimmed[0] {
			s.quote = trimmed[:1]
			item = trimmed[1 : len(trimmed)-1]
		}
		items = append(items, item)
		spans = append(spans, s)
	}
	return items, spans
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// rewrite returns the edits that give the list the new items, and updates the node tree to
// what the edited file must parse to.
func (l *valueList) rewrite(src []byte, items []string) ([]edit, error) {
	if slices.Equal(l.items, items) {
		return nil, nil
	}
	if l.node.Kind == yaml.ScalarNode {
		value := l.scalarValue(items)
		e, err := scalarEdit(src, l.node, value)
		if err != nil {
			return nil, err
		}
		l.node.Value = value
		return []edit{e}, nil
	}
	if len(items) == len(l.node.Content) {
		var edits []edit
		for i, item := range l.node.Content {
			if item.Value == items[i] {
				continue
			}
			e, err := scalarEdit(src, item, items[i])
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			item.Value = items[i]
			edits = append(edits, e)
		}
		return edits, nil
	}
	return l.resizeBlockSequence(src, items)
}

// scalarValue is the scalar form holding items: in place of the old items when the count
// is unchanged (keeping separators and quotes as written), rebuilt otherwise.
func (l *valueList) scalarValue(items []string) string {
	old := l.node.Value
	if len(items) == len(l.spans) {
		var b strings.Builder
		prev := 0
		for i, s := range l.spans {
			b.WriteString(old[prev:s.start])
			b.WriteString(s.quote + items[i] + s.quote)
			prev = s.end
		}
		b.WriteString(old[prev:])
		return b.String()
	}
	quote := ""
	if len(l.spans) > 0 {
		quote = l.spans[0].quote
	}
	quoted := make([]string, len(items))
	for i, it := range items {
		quoted[i] = quote + it + quote
	}
	return strings.Join(quoted, l.sep)
}

// resizeBlockSequence rewrites the lines of a block sequence whose length changes (a schema
// file added or dropped at a version). It only does so when the items are one per line on
// consecutive lines with the same "- " lead, so no comment can sit in between.
func (l *valueList) resizeBlockSequence(src []byte, items []string) ([]edit, error) {
	seq := l.node
	if seq.Style&yaml.FlowStyle != 0 || len(seq.Content) == 0 {
		return nil, errors.New("the number of entries changes; only a non-empty block sequence can be resized in place, edit it by hand")
	}
	starts := lineStarts(src)
	var lead string
	var first, last int
	for i, item := range seq.Content {
		e, err := scalarEdit(src, item, item.Value)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", i, err)
		}
		ls := starts[item.Line-1]
		le := lineEnd(src, ls)
		if item.Line != seq.Content[0].Line+i || strings.TrimSpace(string(src[e.end:le])) != "" {
			return nil, errors.New("the number of entries changes and the entries are not one per consecutive line; edit it by hand")
		}
		if i == 0 {
			lead, first = string(src[ls:e.start]), ls
		} else if string(src[ls:e.start]) != lead {
			return nil, errors.New("the number of entries changes and the entries are not indented alike; edit it by hand")
		}
		last = le
	}
	if strings.TrimSpace(lead) != "-" {
		return nil, errors.New("the number of entries changes and the entries do not start their lines with \"- \"; edit it by hand")
	}
	style := seq.Content[0].Style
	var b strings.Builder
	content := make([]*yaml.Node, len(items))
	for i, it := range items {
		b.WriteString(lead + encodeScalar(it, style) + "\n")
		content[i] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: it, Style: style}
	}
	end := last
	if end < len(src) && src[end] == '\n' {
		end++
	}
	text := b.String()
	if end == last { // the last item ended the file without a newline
		text = strings.TrimSuffix(text, "\n")
	}
	seq.Content = content
	return []edit{{start: first, end: end, text: text}}, nil
}

// scalarEdit locates a single-line scalar in src through its node position and returns the
// edit that gives it value in the same quoting style.
func scalarEdit(src []byte, n *yaml.Node, value string) (edit, error) {
	if n.Anchor != "" || n.Style&(yaml.TaggedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return edit{}, fmt.Errorf("line %d: anchored, tagged or block scalars are not edited in place", n.Line)
	}
	starts := lineStarts(src)
	if n.Line < 1 || n.Line > len(starts) {
		return edit{}, fmt.Errorf("line %d: out of range", n.Line)
	}
	ls := starts[n.Line-1]
	le := lineEnd(src, ls)
	start := ls
	for col := 1; col < n.Column; col++ { // columns count characters, not bytes
		if start >= le {
			return edit{}, fmt.Errorf("line %d: column %d out of range", n.Line, n.Column)
		}
		_, size := utf8.DecodeRune(src[start:le])
		start += size
	}
	line := src[start:le]
	var end int
	switch {
	case n.Style&yaml.SingleQuotedStyle != 0:
		end = quotedEnd(line, '\'')
	case n.Style&yaml.DoubleQuotedStyle != 0:
		end = quotedEnd(line, '"')
	default:
		if !bytes.HasPrefix(line, []byte(n.Value)) {
			return edit{}, fmt.Errorf("line %d: the plain value does not fit on one line", n.Line)
		}
		end = len(n.Value)
		if rest := strings.TrimLeft(string(line[end:]), " \t"); rest != "" && !strings.ContainsAny(rest[:1], "#,]}") {
			return edit{}, fmt.Errorf("line %d: the plain value does not end where expected", n.Line)
		}
	}
	if end < 0 {
		return edit{}, fmt.Errorf("line %d: the quoted value does not fit on one line", n.Line)
	}
	return edit{start: start, end: start + end, text: encodeScalar(value, n.Style)}, nil
}

// quotedEnd returns the length of the quoted scalar at the start of line, or -1 when it
// does not close on this line.
func quotedEnd(line []byte, q byte) int {
	if len(line) == 0 || line[0] != q {
		return -1
	}
	for i := 1; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++
		case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++
		case line[i] == q:
			return i + 1
		}
	}
	return -1
}

// encodeScalar writes value in the given style; the caller verifies the result by parsing.
func encodeScalar(value string, style yaml.Style) string {
	switch {
	case style&yaml.SingleQuotedStyle != 0:
		return "'" + strings.ReplaceAll(value, "'", "''") + "'"
	case style&yaml.DoubleQuotedStyle != 0:
		return quote.YAML(value)
	}
	return value
}

func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 <= len(src) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineEnd is the index of the newline ending the line that starts at ls (or len(src)),
// leaving a carriage return of CRLF files outside the line's text.
func lineEnd(src []byte, ls int) int {
	i := bytes.IndexByte(src[ls:], '\n')
	if i < 0 {
		return len(src)
	}
	if i > 0 && src[ls+i-1] == '\r' {
		return ls + i - 1
	}
	return ls + i
}

// splice applies non-overlapping edits to a copy of src.
func splice(src []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out bytes.Buffer
	prev := 0
	for _, e := range edits {
		out.Write(src[prev:e.start])
		out.WriteString(e.text)
		prev = e.end
	}
	out.Write(src[prev:])
	return out.Bytes()
}

// sameTree compares two node trees by content and comments, ignoring positions and quoting.
func sameTree(got, want *yaml.Node, path string) error {
	switch {
	case got.Kind != want.Kind:
		return fmt.Errorf("%s: kind %v, want %v", path, got.Kind, want.Kind)
	case got.Value != want.Value:
		return fmt.Errorf("%s: value %q, want %q", path, got.Value, want.Value)
	case got.Tag != want.Tag && want.Tag != "":
		return fmt.Errorf("%s: tag %q, want %q", path, got.Tag, want.Tag)
	case got.HeadComment != want.HeadComment || got.LineComment != want.LineComment || got.FootComment != want.FootComment:
		return fmt.Errorf("%s: comments changed", path)
	case len(got.Content) != len(want.Content):
		return fmt.Errorf("%s: %d children, want %d", path, len(got.Content), len(want.Content))
	}
	for i := range got.Content {
		if err := sameTree(got.Content[i], want.Content[i], fmt.Sprintf("%s/%d", path, i)); err != nil {
			return err
		}
	}
	return nil
}

// CookiecutterLines reads an integration's release lines from its cookiecutter.yaml: the
// versions matrix, and version_replacement_sed (the template's default when the file
// leaves it out), which precedes the version in the schema URLs.
func CookiecutterLines(b []byte, name string) (versions []string, sed string, err error) {
	doc, err := readCookiecutter(b, CookiecutterPath(name))
	if err != nil {
		return nil, "", err
	}
	return doc.versions.items, doc.sed, nil
}
