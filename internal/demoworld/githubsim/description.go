package githubsim

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"dagger/shipyard/internal/demoworld/corpus"
)

// descriptionFile is GitHub's REST API description (OpenAPI 3.0.3, as packaged by octokit)
// in the shared corpus.
const (
	descriptionCorpus = "github-openapi"
	descriptionFile   = "api.github.com.json.gz"
)

// description is GitHub's REST API description, indexed for matching requests. Loading
// all of it into kin-openapi's types costs seconds of CPU (13 MB of JSON), so only the
// paths index is built up front; an operation is decoded, with the components it refers
// to, the first time a request reaches it.
type description struct {
	info       json.RawMessage
	paths      map[string]json.RawMessage
	components map[string]map[string]json.RawMessage // kind (schemas, parameters, …) → name → JSON
	templates  []*pathTemplate

	mu     sync.Mutex
	loaded map[string]*openapi3.T // path template → a document holding only that path
	errors map[string]error
}

// pathTemplate is one path of the description, matched against request paths.
type pathTemplate struct {
	path     string // as the description writes it: /repos/{owner}/{repo}/git/ref/{ref}
	re       *regexp.Regexp
	params   []string // names of the path parameters, in order
	literal  int      // characters outside parameters: the more, the more specific
	multiSeg int      // parameters that span several segments (x-multi-segment)
	methods  []string // upper-case methods that have an operation here
}

var (
	descriptionOnce   sync.Once
	loadedDescription *description
	descriptionErr    error
)

// locateDescription returns the description file and what to do about it, by the corpus
// locator's rule: use it when present, skip the check on a developer's machine without the
// corpus, fail in CI.
func locateDescription() (file string, verdict corpus.Verdict, why string) {
	root, err := corpus.FindRepoRoot()
	if err == nil {
		file = filepath.Join(root, "..", "shared", "corpus", descriptionCorpus, descriptionFile)
		_, err = os.Stat(file)
	}
	if err != nil {
		why = fmt.Sprintf("../shared/corpus/%s/%s is absent beside this checkout: %v", descriptionCorpus, descriptionFile, err)
	}
	return file, corpus.WhenMissing(os.Getenv("CI") != "", err == nil), why
}

// githubDescription loads the description once per process.
func githubDescription(file string) (*description, error) {
	descriptionOnce.Do(func() {
		loadedDescription, descriptionErr = readDescription(file)
	})
	return loadedDescription, descriptionErr
}

func readDescription(file string) (*description, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("GitHub's API description: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("GitHub's API description %s: %w", file, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("GitHub's API description %s: %w", file, err)
	}
	return parseDescription(data)
}

// parseDescription indexes an OpenAPI 3.0 description's paths and components, keeping
// their JSON undecoded.
func parseDescription(data []byte) (*description, error) {
	var top struct {
		OpenAPI    string                                `json:"openapi"`
		Info       json.RawMessage                       `json:"info"`
		Paths      map[string]json.RawMessage            `json:"paths"`
		Components map[string]map[string]json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("GitHub's API description: %w", err)
	}
	if !strings.HasPrefix(top.OpenAPI, "3.0.") || len(top.Paths) == 0 {
		return nil, fmt.Errorf("GitHub's API description: want an OpenAPI 3.0 document with paths, got openapi %q and %d paths", top.OpenAPI, len(top.Paths))
	}
	d := &description{
		info:       top.Info,
		paths:      top.Paths,
		components: top.Components,
		loaded:     map[string]*openapi3.T{},
		errors:     map[string]error{},
	}
	for p, raw := range top.Paths {
		t, err := d.template(p, raw)
		if err != nil {
			return nil, fmt.Errorf("GitHub's API description, paths[%q]: %w", p, err)
		}
		d.templates = append(d.templates, t)
	}
	// A fixed order keeps matching deterministic: specific paths first.
	slices.SortFunc(d.templates, func(a, b *pathTemplate) int {
		if a.literal != b.literal {
			return b.literal - a.literal
		}
		if a.multiSeg != b.multiSeg {
			return a.multiSeg - b.multiSeg
		}
		return strings.Compare(a.path, b.path)
	})
	return d, nil
}

// parameterHead is what matching needs of a parameter.
type parameterHead struct {
	Ref          string `json:"$ref"`
	Name         string `json:"name"`
	In           string `json:"in"`
	MultiSegment bool   `json:"x-multi-segment"`
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// template compiles a path of the description into a pattern. A path parameter matches
// one segment, or, where the description marks it x-multi-segment (a ref such as
// heads/main, a file path), one or more.
func (d *description) template(p string, raw json.RawMessage) (*pathTemplate, error) {
	var item map[string]json.RawMessage
	if err := json.Unmarshal(raw, &item); err != nil {
		return nil, err
	}
	t := &pathTemplate{path: p}
	multi := map[string]bool{}
	collect := func(raw json.RawMessage) error {
		var ps []parameterHead
		if len(raw) == 0 {
			return nil
		}
		if err := json.Unmarshal(raw, &ps); err != nil {
			return err
		}
		for _, prm := range ps {
			if prm.Ref != "" {
				var err error
				if prm, err = d.parameter(prm.Ref); err != nil {
					return err
				}
			}
			if prm.In == "path" && prm.MultiSegment {
				multi[prm.Name] = true
			}
		}
		return nil
	}
	if err := collect(item["parameters"]); err != nil {
		return nil, err
	}
	for _, m := range httpMethods {
		op, ok := item[m]
		if !ok {
			continue
		}
		t.methods = append(t.methods, strings.ToUpper(m))
		var head struct {
			Parameters json.RawMessage `json:"parameters"`
		}
		if err := json.Unmarshal(op, &head); err != nil {
			return nil, err
		}
		if err := collect(head.Parameters); err != nil {
			return nil, err
		}
	}
	var re strings.Builder
	re.WriteString("^")
	rest := p
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			break
		}
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			return nil, errors.New("unclosed { in the path")
		}
		name := rest[open+1 : open+end]
		re.WriteString(regexp.QuoteMeta(rest[:open]))
		t.literal += open
		if multi[name] {
			re.WriteString("(.+)")
			t.multiSeg++
		} else {
			re.WriteString("([^/]+)")
		}
		t.params = append(t.params, name)
		rest = rest[open+end+1:]
	}
	re.WriteString(regexp.QuoteMeta(rest))
	t.literal += len(rest)
	re.WriteString("$")
	var err error
	t.re, err = regexp.Compile(re.String())
	return t, err
}

// parameter reads a component parameter's head by its $ref.
func (d *description) parameter(ref string) (parameterHead, error) {
	kind, name, err := splitRef(ref)
	if err != nil {
		return parameterHead{}, err
	}
	raw, ok := d.components[kind][name]
	if !ok {
		return parameterHead{}, fmt.Errorf("%s: no such component", ref)
	}
	var prm parameterHead
	err = json.Unmarshal(raw, &prm)
	return prm, err
}

func splitRef(ref string) (kind, name string, err error) {
	rest, ok := strings.CutPrefix(ref, "#/components/")
	if !ok {
		return "", "", fmt.Errorf("%s: only references into #/components are supported", ref)
	}
	kind, name, ok = strings.Cut(rest, "/")
	if !ok {
		return "", "", fmt.Errorf("%s: no component name", ref)
	}
	return kind, strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~"), nil
}

// errNoOperation and errNoMethod say why a request matched no operation.
var (
	errNoOperation = errors.New("no path of GitHub's API description matches")
	errNoMethod    = errors.New("the description's path has no operation for this method")
)

// match finds the operation of a request path (as sent, still escaped) and method. The
// most specific path wins, as /releases/latest wins over /releases/{release_id}.
func (d *description) match(method, escapedPath string) (*routers.Route, map[string]string, error) {
	var pathOnly *pathTemplate
	for _, t := range d.templates {
		m := t.re.FindStringSubmatch(escapedPath)
		if m == nil {
			continue
		}
		if !slices.Contains(t.methods, method) {
			if pathOnly == nil {
				pathOnly = t
			}
			continue
		}
		doc, err := d.document(t.path)
		if err != nil {
			return nil, nil, err
		}
		values := map[string]string{}
		for i, name := range t.params {
			values[name] = unescapePath(m[i+1])
		}
		item := doc.Paths.Value(t.path)
		return &routers.Route{
			Spec:      doc,
			Path:      t.path,
			PathItem:  item,
			Method:    method,
			Operation: item.GetOperation(method),
		}, values, nil
	}
	if pathOnly != nil {
		return nil, nil, fmt.Errorf("%w (%s has %s)", errNoMethod, pathOnly.path, strings.Join(pathOnly.methods, ", "))
	}
	return nil, nil, errNoOperation
}

// document returns a description holding one path and the components it refers to,
// decoded and resolved on first use.
func (d *description) document(path string) (*openapi3.T, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.loaded[path]; ok {
		return doc, nil
	}
	if err, ok := d.errors[path]; ok {
		return nil, err
	}
	doc, err := d.subset(map[string]json.RawMessage{path: d.paths[path]}, nil)
	if err != nil {
		err = fmt.Errorf("GitHub's API description, paths[%q]: %w", path, err)
		d.errors[path] = err
		return nil, err
	}
	d.loaded[path] = doc
	return doc, nil
}

// schema returns one component schema, resolved, for answers the description gives no
// operation for (authentication and rate limits, which apply to every endpoint).
func (d *description) schema(name string) (*openapi3.Schema, error) {
	key := "#/components/schemas/" + name
	d.mu.Lock()
	doc, ok := d.loaded[key]
	d.mu.Unlock()
	if !ok {
		var err error
		doc, err = d.subset(nil, []string{key})
		if err != nil {
			return nil, err
		}
		d.mu.Lock()
		d.loaded[key] = doc
		d.mu.Unlock()
	}
	ref := doc.Components.Schemas[name]
	if ref == nil || ref.Value == nil {
		return nil, fmt.Errorf("GitHub's API description has no schema %q", name)
	}
	return ref.Value, nil
}

var refPattern = regexp.MustCompile(`"\$ref":\s*"(#/components/[^"]+)"`)

// subset builds a document of the given paths and the transitive closure of the
// components they (and the extra refs) refer to, and resolves it with kin-openapi.
func (d *description) subset(paths map[string]json.RawMessage, refs []string) (*openapi3.T, error) {
	components := map[string]map[string]json.RawMessage{}
	queue := slices.Clone(refs)
	for _, raw := range paths {
		for _, m := range refPattern.FindAllSubmatch(raw, -1) {
			queue = append(queue, string(m[1]))
		}
	}
	for len(queue) > 0 {
		ref := queue[0]
		queue = queue[1:]
		kind, name, err := splitRef(ref)
		if err != nil {
			return nil, err
		}
		if _, done := components[kind][name]; done {
			continue
		}
		raw, ok := d.components[kind][name]
		if !ok {
			return nil, fmt.Errorf("%s: no such component", ref)
		}
		if components[kind] == nil {
			components[kind] = map[string]json.RawMessage{}
		}
		components[kind][name] = raw
		for _, m := range refPattern.FindAllSubmatch(raw, -1) {
			queue = append(queue, string(m[1]))
		}
	}
	if paths == nil {
		paths = map[string]json.RawMessage{}
	}
	data, err := json.Marshal(map[string]any{
		"openapi":    "3.0.3",
		"info":       d.info,
		"paths":      paths,
		"components": components,
	})
	if err != nil {
		return nil, err
	}
	var doc openapi3.T
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if err := openapi3.NewLoader().ResolveRefsIn(&doc, nil); err != nil {
		return nil, err
	}
	return &doc, nil
}

// unescapePath decodes a path segment's %XX escapes; a malformed escape stays as sent.
func unescapePath(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	out, err := url.PathUnescape(s)
	if err != nil {
		return s
	}
	return out
}
