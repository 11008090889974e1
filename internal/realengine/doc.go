// Package realengine holds the real-engine suite: Shipyard loaded by a real Dagger v0.21.8
// engine and driven with the real `dagger` CLI, the way users call it, with the project's
// GitHub and PyPI simulators, a local OCI registry and the test Sigstore served inside the
// engine's network.
//
// The tests carry the build tag realengine and expect an engine: .ci/realengine builds one
// with the engine kit beside the checkout, starts it, runs the compiled tests inside the
// engine's network namespace (so servers the tests start are reachable from containers at
// the bridge gateway) and stops it on any exit. See README.md, "Development".
//
// The engine keeps its state between runs, so a run reuses what the run before it built
// when the inputs are the same: the fixtures' commits have a fixed date (gitIdentity), and
// in the tests that release, the GitHub simulator and the git server listen on a port fixed
// per test (serveStable), as a release call's cache volumes are named after the GitHub API
// it writes to. Elsewhere the simulator is on a new port every run, so the tests that count
// what a cache volume held find it empty on their first call.
package realengine
