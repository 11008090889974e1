// Command shipyard-release checks and prepares Shipyard's own releases; the forge tags
// them (.github/workflows/release.yml), never a maintainer's machine:
//
//	shipyard-release repin vX.Y.Z RELEASE  pin every example, template and doc to RELEASE (a
//	                                       commit of main) as vX.Y.Z, and name it in CHANGELOG.md
//	shipyard-release check vX.Y.Z [HEAD]   the gates of releasing vX.Y.Z, read at HEAD (the
//	                                       working tree when omitted); CI is the forge's to read
//	shipyard-release next --commit SHA --ci-evidence FILE
//	                                       the release workflow's gates: the newest release of
//	                                       CHANGELOG.md at SHA, with the forge's check runs
//
// Every subcommand fetches main from origin first. scripts/shipyard-release runs it;
// docs/releasing-shipyard.md tells the steps.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"dagger/shipyard/internal/selfrelease"
)

const usage = `usage: shipyard-release repin vX.Y.Z RELEASE
       shipyard-release check vX.Y.Z [HEAD]
       shipyard-release next --commit SHA --ci-evidence FILE`

func main() {
	if err := run(".", os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "shipyard-release:", err)
		os.Exit(1)
	}
}

// run runs one subcommand on the clone at dir, printing to out.
func run(dir string, args []string, out io.Writer) error {
	repo := selfrelease.Repo{Dir: dir}
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "check":
		if len(rest) < 1 || len(rest) > 2 {
			return errors.New(usage)
		}
		head := ""
		if len(rest) == 2 {
			head = rest[1]
		}
		return check(repo, rest[0], head, out)
	case "repin":
		if len(rest) != 2 {
			return errors.New(usage)
		}
		return repin(repo, rest[0], rest[1], out)
	case "next":
		return next(repo, rest, out)
	}
	return errors.New(usage)
}

func validTag(tag string) error {
	if !selfrelease.IsReleaseTag(tag) {
		return fmt.Errorf("%q is not a release tag (vMAJOR.MINOR.PATCH, optionally -PRERELEASE)", tag)
	}
	return nil
}

// check prints the gates' verdict on releasing tag as read at head; the forge's evidence
// of CI is not read here.
func check(repo selfrelease.Repo, tag, head string, out io.Writer) error {
	if err := validTag(tag); err != nil {
		return err
	}
	if err := repo.FetchMain(); err != nil {
		return err
	}
	f, err := repo.Gather(tag, head)
	if err != nil {
		return err
	}
	if err := verdict(f, selfrelease.Evaluate(f), out); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: ci-passed is read by the release workflow, from the forge's %q check run\n", tag, selfrelease.CICheck)
	return nil
}

// verdict prints that every gate passed, or returns every violation as the error.
func verdict(f selfrelease.Facts, vs []selfrelease.Violation, out io.Writer) error {
	at := f.Head
	if at == "" {
		at = "the working tree"
	}
	if len(vs) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s read at %s fails %d gate(s):\n", f.Tag, at, len(vs))
		for _, v := range vs {
			b.WriteString("  " + strings.ReplaceAll(v.String(), "\n", "\n  ") + "\n")
		}
		return errors.New(strings.TrimSuffix(b.String(), "\n"))
	}
	fmt.Fprintf(out, "%s (release commit %s) read at %s passes the gates\n", f.Tag, f.Release, at)
	return nil
}

// repin points every pin at release as tag, on a clean checkout of main as the forge
// holds it, and leaves the change uncommitted for the re-pin pull request. Anything
// refused, before or after the rewrite, leaves the tree as it was.
func repin(repo selfrelease.Repo, tag, ref string, out io.Writer) error {
	if err := validTag(tag); err != nil {
		return err
	}
	clean, err := repo.Clean()
	if err != nil {
		return err
	}
	if !clean {
		return errors.New("the working tree has changes: re-pin on a clean checkout of origin/main (commit, stash or drop them)")
	}
	if err := repo.FetchMain(); err != nil {
		return err
	}
	release, err := repo.Commit(ref)
	if err != nil {
		return err
	}
	// The refusals that need no rewrite come first, so nothing is written for them.
	f := selfrelease.Facts{Tag: tag, Release: release}
	if f.Main, err = repo.Main(release, ""); err != nil {
		return err
	}
	if existing, err := repo.Commit("refs/tags/" + tag); err == nil {
		f.TagCommit = existing
	}
	for _, v := range selfrelease.Evaluate(f) {
		if v.Gate == selfrelease.GateOnMain || v.Gate == selfrelease.GateNotMoved {
			return fmt.Errorf("nothing re-pinned: %s", v)
		}
	}
	changed, err := repo.RepinFiles(tag, release)
	if err != nil {
		return errors.Join(err, restore(repo, changed))
	}
	after, err := repo.Gather(tag, "")
	if err == nil {
		err = verdict(after, selfrelease.Evaluate(after), io.Discard)
	}
	if err != nil {
		return errors.Join(fmt.Errorf("nothing re-pinned: %w", err), restore(repo, changed))
	}
	fmt.Fprintf(out, "re-pinned to %s at %s: %d file(s) changed\n", tag, release, len(changed))
	for _, c := range changed {
		fmt.Fprintln(out, "  "+c)
	}
	fmt.Fprintf(out, "commit them alone (git commit -am \"release: pin %s\") and open the pull request; once it merges and CI passes on main, the release workflow tags %s\n", tag, release)
	return nil
}

// restore puts back the files a refused re-pin wrote: the tree was clean before it.
func restore(repo selfrelease.Repo, files []string) error {
	if len(files) == 0 {
		return nil
	}
	_, err := repo.Git(append([]string{"checkout", "--"}, files...)...)
	return err
}

// next is the release workflow's step: the newest release CHANGELOG.md names at commit,
// judged with the forge's check runs. It prints tag= and commit= for $GITHUB_OUTPUT;
// tag= is empty when there is nothing to tag: the newest release is not re-pinned yet,
// or is tagged already on its commit.
func next(repo selfrelease.Repo, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("next", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	commit := fs.String("commit", "", "the commit of main CI passed on")
	evidence := fs.String("ci-evidence", "", "GitHub's check runs of that commit, as JSON")
	if err := fs.Parse(args); err != nil || *commit == "" || *evidence == "" || fs.NArg() > 0 {
		return errors.New(usage)
	}
	runs, err := os.ReadFile(*evidence)
	if err != nil {
		return fmt.Errorf("reading the CI evidence: %w", err)
	}
	checks, err := selfrelease.ParseCheckRuns(runs)
	if err != nil {
		return fmt.Errorf("%s: %w", *evidence, err)
	}
	if err := repo.FetchMain(); err != nil {
		return err
	}
	head, err := repo.Commit(*commit)
	if err != nil {
		return err
	}
	changelog, err := repo.Git("show", head+":"+selfrelease.ChangelogFile)
	if err != nil {
		return err
	}
	c, problems := selfrelease.ParseChangelog([]byte(changelog))
	if len(problems) > 0 {
		return fmt.Errorf("%s at %s: %s", selfrelease.ChangelogFile, head, problems[0].Message)
	}
	newest, ok := c.Section(c.Newest())
	if !ok || newest.Commit == "" {
		fmt.Fprintln(out, "tag=")
		return nil
	}
	tag := "v" + newest.Version
	f, err := repo.Gather(tag, head)
	if err != nil {
		return err
	}
	if f.TagCommit != "" && f.TagCommit == f.Release {
		fmt.Fprintln(out, "tag=")
		return nil
	}
	f.CI = &checks
	if err := verdict(f, selfrelease.Evaluate(f), io.Discard); err != nil {
		return err
	}
	fmt.Fprintf(out, "tag=%s\ncommit=%s\n", tag, f.Release)
	return nil
}
