// Package gitserve offers repositories of the GitHub simulator over git's smart HTTP
// protocol, as GitHub serves them to `git fetch`: the same commits the REST API answers
// with, under the same SHAs, so Dagger's git API can fetch a tagged commit that
// release-plan checked. Commit makes a commit whose simulator SHA is its git object ID;
// Handler serves such commits (fetch only: ref advertisement and upload-pack, protocol
// version 0, shallow fetches, fetches by SHA).
package gitserve

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dagger/shipyard/internal/demoworld/githubsim"
)

// identity is the author and committer of every commit Commit makes, with a fixed time: a
// commit's object ID depends on both, and the server rebuilds each commit to serve it.
const identity = "Release Admin <admin@example.org> 1793577600 +0000"

// Commit adds a commit on top of branch (a root commit when the branch does not exist)
// with files added or replaced, under the object ID git gives that commit, moves the
// branch to it and returns the ID. Handler serves such commits.
func Commit(repo *githubsim.Repo, branch, message string, files map[string]string) string {
	var parents []string
	tree := map[string]string{}
	if head := repo.Branch(branch); head != "" {
		parents = []string{head}
		tree = repo.Files(head)
	}
	maps.Copy(tree, files)
	sha := encodeCommit(tree, nil, parents, message, nil)
	repo.ImportCommit(sha, message, parents, files)
	repo.SetBranch(branch, sha)
	return sha
}

// Object types as a pack file numbers them.
const (
	typeCommit = 1
	typeTree   = 2
	typeBlob   = 3
)

var typeNames = map[int]string{typeCommit: "commit", typeTree: "tree", typeBlob: "blob"}

type object struct {
	typ  int
	data []byte
}

// objectID is git's SHA-1 of an object: its type, size and content.
func objectID(typ int, data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "%s %d\x00", typeNames[typ], len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// add records an object in objs (when not nil) and returns its ID.
func add(objs map[string]object, typ int, data []byte) string {
	id := objectID(typ, data)
	if objs != nil {
		objs[id] = object{typ, data}
	}
	return id
}

// encodeCommit encodes a commit of files (path → content; modes other than 100644 by
// path) with Commit's identity, records it and its tree's objects in objs, and returns its
// ID.
func encodeCommit(files, modes map[string]string, parents []string, message string, objs map[string]object) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", encodeTree(files, modes, "", objs))
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s", identity, identity, message)
	if !strings.HasSuffix(message, "\n") {
		b.WriteString("\n") // git ends every message with a newline
	}
	return add(objs, typeCommit, []byte(b.String()))
}

// encodeTree encodes the folder dir ("" for the root) of files, its subfolders first
// recorded, and returns its ID. Entries are in git's order: by name, a folder's name
// compared as if it ended in a slash.
func encodeTree(files, modes map[string]string, dir string, objs map[string]object) string {
	type entry struct{ mode, name, id string }
	var entries []entry
	subdirs := map[string]bool{}
	for p, content := range files {
		rest, ok := strings.CutPrefix(p, dir)
		if !ok {
			continue
		}
		if name, _, nested := strings.Cut(rest, "/"); nested {
			subdirs[name] = true
			continue
		}
		mode := "100644"
		if m, ok := modes[p]; ok {
			mode = m
		}
		entries = append(entries, entry{mode, rest, add(objs, typeBlob, []byte(content))})
	}
	for name := range subdirs {
		entries = append(entries, entry{"40000", name, encodeTree(files, modes, dir+name+"/", objs)})
	}
	sortKey := func(e entry) string {
		if e.mode == "40000" {
			return e.name + "/"
		}
		return e.name
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(sortKey(a), sortKey(b)) })
	var data []byte
	for _, e := range entries {
		raw, _ := hex.DecodeString(e.id)
		data = append(data, e.mode+" "+e.name+"\x00"...)
		data = append(data, raw...)
	}
	return add(objs, typeTree, data)
}
