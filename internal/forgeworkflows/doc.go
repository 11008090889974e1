// Package forgeworkflows holds the tests of Shipyard's own GitHub Actions workflows
// (.github/workflows): CI, which runs .ci/run and whose "CI passed" check is the proof the
// release reads, and Release, which tags a release of main with gitsign. The tests lint
// both with actionlint and hold them to the rules the release path rests on; each rule is
// also run on broken copies of the files, which it must refuse. The package has no code.
package forgeworkflows
