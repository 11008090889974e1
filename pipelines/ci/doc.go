// Package ci builds tesk-core's CI graph with the Dagger SDK: the PR-title check, lint, the
// test matrix, the end-to-end tests on k3s, the docs, the two images and their Trivy scan,
// and the "CI passed" gate that runs them all.
//
// Every rule (the Python matrix, image discovery, the image version, the scan policy, the
// summary) is a pure function here or in internal/; the functions that take a
// *dagger.Client only assemble containers from those decisions. Inputs are filtered per job
// so that, in a real engine, a change under docs/ leaves every other job cached.
package ci
