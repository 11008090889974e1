// Package engine is an in-process double of the Dagger engine for tests: an HTTP GraphQL
// server that the real dagger.io/dagger SDK connects to, so the project's Dagger graphs run
// in `go test` without an engine.
//
//	e := engine.New(t)
//	e.OnExec(engine.ExecRule{ArgsContain: "pytest", Stdout: "3 passed"})
//	c := e.Client(ctx)
//	out, err := c.Container().From("python:3.12").WithExec([]string{"pytest"}).Stdout(ctx)
//	execs := e.Graph().Execs() // what ran, with image, env, mounts and secret names
//
// Every query is validated against the pinned engine schema (an invalid one is answered
// with HTTP 422 and fails the test at cleanup). IDs encode the chain of calls that made an
// object, so objects passed by ID resolve back to the same graph. A selected scalar other
// than id evaluates its object: the execs and builds it depends on run once each, and are
// recorded with the container state they saw. Results are programmed with rules (OnExec,
// OnFile, OnEntries, OnField); without one an exec exits 0 with empty output (or, with
// StrictExecs, fails and fails the test, as tests of whole flows want), and files
// written by the graph or read from the host (Host().Directory) read as their real
// contents. Secret values given to setSecret never reach an ID or a record.
//
// A checkout's own history (Directory.asGit) answers HEAD and looks ref names up among its
// .git refs as the engine's lookup does, failing where it fails.
//
// Not modelled: what a command does to the filesystem (use rules), the contents of images
// and git trees, merge bases, modules, LLM, interactive terminals, and services actually running (up
// returns at once). Unmodelled leaves answer the zero value of their type.
package engine
