package engine

import (
	"bufio"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// maxIgnoreDepth bounds the walk of gitignoreFilter: a folder rule whose relative path
// matches as a suffix can describe a tree without end.
const maxIgnoreDepth = 32

// gitignoreFilter is Directory.filter(gitignore: true) as the engine's copier applies it
// (util/fsxutil's GitignoreMatcher, on go-git's gitignore package): it walks the tree,
// reads each folder's .gitignore on top of its parents' patterns, and leaves out every
// path they ignore, with all it holds. The tree's files come from what the double knows
// and, for an exec's output, from the folder-entries and file rules, for the folder as the
// receiver src names it (rules that name the exec's chain) or where it came from.
func (e *Engine) gitignoreFilter(src *dirState, fs *vfs, chainText string) *vfs {
	r := ruledTree{e: e, src: src, fs: fs, chain: chainText}
	out := fs
	var walk func(dir string, patterns []gitignore.Pattern, depth int)
	walk = func(dir string, patterns []gitignore.Pattern, depth int) {
		if depth > maxIgnoreDepth {
			return
		}
		patterns = append(patterns[:len(patterns):len(patterns)], r.ignorePatterns(dir)...)
		matcher := gitignore.NewMatcher(patterns)
		for _, entry := range r.knownEntries(dir) {
			isDir := strings.HasSuffix(entry, "/")
			p := path.Join(dir, strings.TrimSuffix(entry, "/"))
			switch {
			case matcher.Match(strings.Split(p, "/"), isDir):
				out = out.without(p)
			case isDir:
				walk(p, patterns, depth+1)
			}
		}
	}
	walk("", nil, 0)
	return out
}

// ruledTree is a folder as the double knows it and as its rules describe it.
type ruledTree struct {
	e     *Engine
	src   *dirState
	fs    *vfs
	chain string
}

// knownEntries lists folder dir: what the double holds, and what a rule gives for it.
func (r ruledTree) knownEntries(dir string) []string {
	seen := map[string]bool{}
	add := func(names []string, _ bool) {
		for _, n := range names {
			seen[n] = true
		}
	}
	add(r.fs.entries(dir))
	if ruled, ok := r.e.matchEntries(r.src.at(dir), dir == "", r.chain); ok {
		add(r.fs.present(dir, ruled), true)
	} else if op, oc, ok := r.fs.originOf(dir); ok {
		add(r.e.matchEntries(op, false, oc))
	}
	return sortedKeys(seen)
}

// ignorePatterns parses folder dir's .gitignore, if the double knows its contents, with
// the folder as the patterns' domain.
func (r ruledTree) ignorePatterns(dir string) []gitignore.Pattern {
	p := path.Join(dir, ".gitignore")
	data, ok := r.e.matchFile(r.src.at(p), r.chain)
	if f, found := r.fs.lookup(p); !ok && found && !f.unknown {
		if d, known, err := f.contents(); err == nil && known {
			data, ok = d, true
		}
	}
	if !ok {
		if op, oc, found := r.fs.originOf(p); found {
			data, ok = r.e.matchFile(op, oc)
		}
	}
	if !ok {
		return nil
	}
	var domain []string
	if dir != "" {
		domain = strings.Split(dir, "/")
	}
	var patterns []gitignore.Pattern
	sc := bufio.NewScanner(strings.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		patterns = append(patterns, gitignore.ParsePattern(line, domain))
	}
	return patterns
}
