package engine

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// vfs is what the double knows of a directory tree. Paths are slash-separated, relative and
// clean ("a/b.txt"). A vfs is never modified once built: every operation returns a new one,
// so states can be shared between chains and goroutines.
type vfs struct {
	files map[string]vfile
	dirs  map[string]bool
	// complete is true when every file of the tree is known (host folders, files written by
	// the graph); images, git trees and anything an exec touched are not complete, and an
	// unknown path there is not an error.
	complete bool
	// origins say where unknown parts of the tree came from, so a rule written for the
	// producing container ("/out/app.whl" after the build exec) still answers once that
	// folder is mounted elsewhere.
	origins []origin
}

// origin maps the subtree at `at` to the folder `base` of the object `chain`; a removed
// origin says the subtree was taken out (withoutDirectory), so the rules of an origin
// that covers it no longer answer for it.
type origin struct {
	at, base, chain string
	removed         bool
}

// vfile holds known contents, or the host file to read them from when asked.
type vfile struct {
	data    *string
	host    string
	unknown bool // exists, contents unknown (produced by an exec or an image)
}

func emptyFS(complete bool) *vfs {
	return &vfs{files: map[string]vfile{}, dirs: map[string]bool{}, complete: complete}
}

func (v *vfs) clone() *vfs {
	out := &vfs{files: make(map[string]vfile, len(v.files)), dirs: make(map[string]bool, len(v.dirs)), complete: v.complete, origins: v.origins}
	for k, f := range v.files {
		out.files[k] = f
	}
	for k := range v.dirs {
		out.dirs[k] = true
	}
	return out
}

// rel cleans p into the vfs key form; "" is the root.
func rel(p string) string {
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}

func within(p, dir string) bool {
	return dir == "" || p == dir || strings.HasPrefix(p, dir+"/")
}

func (v *vfs) withFile(p string, f vfile) *vfs {
	out := v.clone()
	p = rel(p)
	out.removeInPlace(p)
	out.files[p] = f
	out.addParents(p)
	return out
}

func (v *vfs) withDir(p string) *vfs {
	out := v.clone()
	p = rel(p)
	if p != "" {
		out.dirs[p] = true
		out.addParents(p)
	}
	return out
}

func (v *vfs) addParents(p string) {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		v.dirs[d] = true
	}
}

func (v *vfs) without(paths ...string) *vfs {
	out := v.clone()
	for _, p := range paths {
		p = rel(p)
		out.removeInPlace(p)
		if p != "" {
			out.origins = append(out.origins, origin{at: p, removed: true})
		}
	}
	return out
}

func (v *vfs) removeInPlace(p string) {
	v.origins = slices.DeleteFunc(slices.Clone(v.origins), func(o origin) bool { return p != "" && within(o.at, p) })
	for k := range v.files {
		if within(k, p) {
			delete(v.files, k)
		}
	}
	for k := range v.dirs {
		if within(k, p) {
			delete(v.dirs, k)
		}
	}
}

// sub re-roots the tree at dir.
func (v *vfs) sub(dir string) *vfs {
	dir = rel(dir)
	if dir == "" {
		return v
	}
	out := emptyFS(v.complete)
	for _, o := range v.origins {
		switch {
		case within(o.at, dir):
			out.origins = append(out.origins, origin{at: strings.TrimPrefix(strings.TrimPrefix(o.at, dir), "/"), base: o.base, chain: o.chain, removed: o.removed})
		case within(dir, o.at):
			out.origins = append(out.origins, origin{base: joinBase(o.base, strings.TrimPrefix(strings.TrimPrefix(dir, o.at), "/")), chain: o.chain, removed: o.removed})
		}
	}
	for k, f := range v.files {
		if strings.HasPrefix(k, dir+"/") {
			out.files[strings.TrimPrefix(k, dir+"/")] = f
		}
	}
	for k := range v.dirs {
		if strings.HasPrefix(k, dir+"/") {
			out.dirs[strings.TrimPrefix(k, dir+"/")] = true
		}
	}
	return out
}

// merge copies src (filtered) under dir.
func (v *vfs) merge(dir string, src *vfs, include, exclude []string) *vfs {
	out := v.clone()
	dir = rel(dir)
	if dir != "" {
		out.dirs[dir] = true
		out.addParents(dir)
	}
	src = src.filter(include, exclude)
	for _, o := range src.origins {
		out.origins = append(out.origins, origin{at: path.Join(dir, o.at), base: o.base, chain: o.chain, removed: o.removed})
	}
	for k, f := range src.files {
		p := path.Join(dir, k)
		out.removeInPlace(p)
		out.files[p] = f
		out.addParents(p)
	}
	for k := range src.dirs {
		out.dirs[path.Join(dir, k)] = true
	}
	out.complete = v.complete && src.complete
	return out
}

func (v *vfs) filter(include, exclude []string) *vfs {
	if len(include) == 0 && len(exclude) == 0 {
		return v
	}
	out := emptyFS(v.complete)
	out.origins = v.origins
	for k, f := range v.files {
		if selected(k, false, include, exclude) {
			out.files[k] = f
			out.addParents(k)
		}
	}
	for k := range v.dirs {
		if selected(k, true, include, exclude) {
			out.dirs[k] = true
		}
	}
	return out
}

// withOrigin marks the whole tree as coming from folder base of chain.
func (v *vfs) withOrigin(base, chain string) *vfs {
	out := v.clone()
	out.origins = append(slices.Clone(v.origins), origin{base: base, chain: chain})
	return out
}

// originOf translates p to where it sits in the object that produced it.
func (v *vfs) originOf(p string) (string, string, bool) {
	p = rel(p)
	best := -1
	for i, o := range v.origins {
		if within(p, o.at) && (best < 0 || len(o.at) >= len(v.origins[best].at)) {
			best = i
		}
	}
	if best < 0 {
		return "", "", false
	}
	o := v.origins[best]
	if o.removed {
		return "", "", false
	}
	return joinBase(o.base, strings.TrimPrefix(strings.TrimPrefix(p, o.at), "/")), o.chain, true
}

// present keeps the entries of folder dir that a rule gives and the graph has not taken
// out since (withoutDirectory, a gitignore filter).
func (v *vfs) present(dir string, entries []string) []string {
	dir = rel(dir)
	var out []string
	for _, n := range entries {
		p := path.Join(dir, strings.TrimSuffix(n, "/"))
		if !slices.ContainsFunc(v.origins, func(o origin) bool { return o.removed && within(p, o.at) }) {
			out = append(out, n)
		}
	}
	return out
}

// joinBase joins keeping the base's style: absolute for container paths, relative for
// directory paths.
func joinBase(base, p string) string {
	if base == "" {
		return rel(p)
	}
	return path.Join(base, p)
}

func (v *vfs) incomplete() *vfs {
	if !v.complete {
		return v
	}
	out := v.clone()
	out.complete = false
	return out
}

func (v *vfs) lookup(p string) (vfile, bool) {
	f, ok := v.files[rel(p)]
	return f, ok
}

func (v *vfs) isDir(p string) bool {
	p = rel(p)
	return p == "" || v.dirs[p]
}

// entries lists the children of dir as the engine does: names, directories with a
// trailing slash, sorted.
func (v *vfs) entries(dir string) ([]string, bool) {
	dir = rel(dir)
	if !v.isDir(dir) {
		return nil, false
	}
	seen := map[string]bool{}
	add := func(k string, isDir bool) {
		if !strings.HasPrefix(k, dir+"/") && dir != "" {
			return
		}
		rest := strings.TrimPrefix(strings.TrimPrefix(k, dir), "/")
		if rest == "" {
			return
		}
		name, _, deeper := strings.Cut(rest, "/")
		if deeper || isDir {
			name += "/"
		}
		seen[name] = true
	}
	for k := range v.files {
		add(k, false)
	}
	for k := range v.dirs {
		add(k, true)
	}
	return sortedKeys(seen), true
}

func (v *vfs) glob(pattern string) []string {
	var out []string
	for k := range v.files {
		if matchPattern(pattern, k) {
			out = append(out, k)
		}
	}
	for k := range v.dirs {
		if matchPattern(pattern, k) {
			out = append(out, k+"/")
		}
	}
	sort.Strings(out)
	return out
}

func (f vfile) contents() (string, bool, error) {
	switch {
	case f.data != nil:
		return *f.data, true, nil
	case f.host != "":
		b, err := os.ReadFile(f.host)
		if err != nil {
			return "", false, fmt.Errorf("read host file: %w", err)
		}
		return string(b), true, nil
	}
	return "", false, nil
}

// readHostDir lists a real folder: file contents are read only when a query asks for them.
func readHostDir(root string, include, exclude []string) (*vfs, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: not a directory", root)
	}
	out := emptyFS(true)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, err := filepath.Rel(root, p)
		if err != nil || r == "." {
			return err
		}
		r = filepath.ToSlash(r)
		if d.IsDir() {
			if excluded(r, exclude) {
				return fs.SkipDir
			}
			out.dirs[r] = true
			return nil
		}
		out.files[r] = vfile{host: p}
		return nil
	})
	if err != nil {
		return nil, err
	}
	filtered := out.filter(include, exclude)
	// Folders emptied by the filter disappear, as in the engine's filtered copy.
	pruned := emptyFS(true)
	for k, f := range filtered.files {
		pruned.files[k] = f
		pruned.addParents(k)
	}
	for k := range filtered.dirs {
		if len(include) == 0 || pruned.dirs[k] {
			pruned.dirs[k] = true
		}
	}
	return pruned, nil
}

// selected applies include/exclude lists the way the engine's filters do: a path is
// selected when it (or a parent folder) matches an include pattern, if any are given, and
// is not excluded.
func selected(p string, isDir bool, include, exclude []string) bool {
	if len(include) > 0 && !includedBy(p, isDir, include) {
		return false
	}
	return !excluded(p, exclude)
}

func includedBy(p string, isDir bool, include []string) bool {
	in := false
	for _, pat := range include {
		neg := strings.HasPrefix(pat, "!")
		if matchesOrParent(strings.TrimPrefix(pat, "!"), p) {
			in = !neg
		}
	}
	if in || !isDir {
		return in
	}
	// A folder on the way to an included path stays, so the path can be reached.
	for _, pat := range include {
		if !strings.HasPrefix(pat, "!") && isPatternParent(p, pat) {
			return true
		}
	}
	return false
}

// excluded follows .dockerignore semantics: the last matching pattern wins and "!" re-adds.
func excluded(p string, exclude []string) bool {
	ex := false
	for _, pat := range exclude {
		neg := strings.HasPrefix(pat, "!")
		if matchesOrParent(strings.TrimPrefix(pat, "!"), p) {
			ex = !neg
		}
	}
	return ex
}

func matchesOrParent(pattern, p string) bool {
	for q := p; q != "." && q != ""; q = path.Dir(q) {
		if matchPattern(pattern, q) {
			return true
		}
		if !strings.Contains(q, "/") {
			break
		}
	}
	return false
}

// isPatternParent reports whether dir could hold a path the pattern matches.
func isPatternParent(dir, pattern string) bool {
	pattern = strings.Trim(path.Clean("/"+pattern), "/")
	ds := strings.Split(dir, "/")
	ps := strings.Split(pattern, "/")
	for i, d := range ds {
		if i >= len(ps)-1 {
			return false
		}
		if ps[i] == "**" {
			return true
		}
		if ok, _ := path.Match(ps[i], d); !ok {
			return false
		}
	}
	return true
}

// matchPattern matches a slash path against a glob where "**" spans any number of folders.
func matchPattern(pattern, p string) bool {
	pattern = strings.Trim(path.Clean("/"+pattern), "/")
	return matchSegments(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func matchSegments(ps, ss []string) bool {
	for len(ps) > 0 {
		if ps[0] == "**" {
			// A trailing "**" matches what is inside a folder, not the folder itself.
			first := 0
			if len(ps) == 1 {
				first = 1
			}
			for i := first; i <= len(ss); i++ {
				if matchSegments(ps[1:], ss[i:]) {
					return true
				}
			}
			return false
		}
		if len(ss) == 0 {
			return false
		}
		if ok, _ := path.Match(ps[0], ss[0]); !ok {
			return false
		}
		ps, ss = ps[1:], ss[1:]
	}
	return len(ss) == 0
}

// contentDigest hashes the tree's paths and file contents, or reports false when some
// contents are unknown (made by an exec, or from an image), where only the chain can say.
func (v *vfs) contentDigest() (string, bool) {
	if !v.complete {
		return "", false
	}
	var parts []string
	for p := range v.dirs {
		parts = append(parts, "d\x00"+p)
	}
	for p, f := range v.files {
		data, known, err := f.contents()
		if !known || err != nil || f.unknown {
			return "", false
		}
		parts = append(parts, "f\x00"+p+"\x00"+digestOf(data))
	}
	sort.Strings(parts)
	return digestOf(strings.Join(parts, "\x00")), true
}
