// Package versions is the model-versions flow: it keeps Cloudcoil's upstream model
// versions current through one pull request from the branch automation/model-versions.
// The rules (tag mapping, policies, the plan, the file edits) live in models/upstreams;
// this package fetches their inputs from GitHub and PyPI and acts on the plan.
//
// A run is a declared list of steps (steps.go) run by internal/flow: fetch, decide, act.
// A failure is a *flow.Error naming the step and what to do next. Step by step (the work
// of each in its own file):
//
//   - sources: the head of the base branch, models/upstreams.json at that commit, and
//     models/<name>/cookiecutter.yaml of each integration the plan edits — everything read
//     at one commit, so the edits and the commit they are built on agree;
//   - discover: each upstream repository's releases, newest first, only as many pages as
//     it takes to reach every tracked version (see discover.go for why that suffices),
//     and Cloudcoil's versions from PyPI;
//   - plan and edits: upstreams.Plan, then the new bytes of every file it changes;
//   - with Check, the runner's dry run stops here, before the first writing step: the
//     plan is the output and not a single request more is sent;
//   - branch: compare the base head with the automation branch once; when the branch is
//     not exactly the base head plus the wanted files, write one commit on the base head
//     (tree, commit, ref) and force-move the branch, which only this flow writes;
//   - pull request: open it, or update its title and body; when nothing is left to apply,
//     close it (the branch stays).
//
// Every read is conditional through the client's ETag cache and every write is followed by
// the read that confirms it, which also leaves the cache holding the state the next run
// will see: an unchanged re-run is answered entirely by 304s, which GitHub does not count
// against the rate limit. Run takes its client as given: the client's owner keeps that
// cache between runs (the module's GitHub command, in a cache volume, when it holds a
// token: the token seals what is stored).
//
// A plan whose items all need a person (a Cloudcoil migration, a skipped integration) edits
// no file; GitHub opens no pull request without a commit, so the branch gets one commit
// without file changes that carries the checklist. An integration that cannot be updated
// never stops the others: it leaves the plan as an upstreams.Problem with its file and fix.
package versions
