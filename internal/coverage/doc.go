// Package coverage decides Codecov's patch gate on a laptop: which lines a change adds
// (from a unified diff) and which of those no test covers (from a Cobertura coverage.xml, as
// coverage.py writes it). Pure functions over the two files; the pipeline runs the tests and
// git to produce them.
package coverage
