package githubsim

import "strings"

// Refs returns the repository's branches and tags as full ref names (refs/heads/…,
// refs/tags/…), each with the commit it names (a tag peeled to its commit), for a server
// that offers the same history over git.
func (r *Repo) Refs() map[string]string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	out := map[string]string{}
	for name, sha := range r.branches {
		out["refs/heads/"+name] = sha
	}
	for name := range r.tags {
		if sha, ok := r.peelTag(name); ok {
			out["refs/tags/"+strings.TrimPrefix(name, "refs/tags/")] = sha
		}
	}
	return out
}

// DefaultBranch is the branch HEAD names.
func (r *Repo) DefaultBranch() string {
	r.s.mu.Lock()
	defer r.s.mu.Unlock()
	return r.defaultBranch
}
