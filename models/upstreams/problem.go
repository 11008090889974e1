package upstreams

import "fmt"

// Problem is something that kept one part of a run from being updated: an integration
// skipped (its entry in models/upstreams.json, its cookiecutter.yaml, its upstream) or
// Cloudcoil's requirement left as it was, or a change to the template itself that a
// maintainer has to make. The run goes on without it, and the pull request body and the
// output name it with its file and its fix.
type Problem struct {
	// Integration is the integration's name, or the PyPI package for Cloudcoil.
	Integration string `json:"integration"`
	// File is the file to fix.
	File string `json:"file"`
	// Problem says what is wrong.
	Problem string `json:"problem"`
	// Fix says what to do about it.
	Fix string `json:"fix"`
}

func (p Problem) String() string {
	return fmt.Sprintf("%s: %s: %s; fix: %s", p.Integration, p.File, p.Problem, p.Fix)
}
