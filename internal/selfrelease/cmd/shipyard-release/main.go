// Command shipyard-release releases Shipyard itself, from a clone of its repository:
//
//	shipyard-release check vX.Y.Z [REF]   the release gates of tagging REF (default HEAD)
//	shipyard-release ci                   run .ci/run on HEAD (clean tree) and record the pass
//	shipyard-release tag vX.Y.Z [REF]     the gates, then an annotated tag (signed with -s)
//	shipyard-release repin vX.Y.Z [REF]   point every pin of the examples and docs at REF (HEAD) as vX.Y.Z
//
// scripts/shipyard-release runs it; docs/releasing-shipyard.md tells the steps.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"dagger/shipyard/internal/selfrelease"
)

const usage = `usage: shipyard-release check vX.Y.Z [REF]
       shipyard-release ci
       shipyard-release tag [-s] vX.Y.Z [REF]
       shipyard-release repin vX.Y.Z [REF]`

func main() {
	if err := run(".", os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "shipyard-release:", err)
		os.Exit(1)
	}
}

// run runs one subcommand on the clone at dir.
func run(dir string, args []string) error {
	repo := selfrelease.Repo{Dir: dir}
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "check":
		tag, ref, err := tagAndRef(rest)
		if err != nil {
			return err
		}
		_, err = gates(repo, tag, ref)
		return err
	case "ci":
		return recordCI(repo)
	case "tag":
		sign := len(rest) > 0 && rest[0] == "-s"
		if sign {
			rest = rest[1:]
		}
		tag, ref, err := tagAndRef(rest)
		if err != nil {
			return err
		}
		return createTag(repo, tag, ref, sign)
	case "repin":
		tag, ref, err := tagAndRef(rest)
		if err != nil {
			return err
		}
		if !selfrelease.IsReleaseTag(tag) {
			return fmt.Errorf("%q is not a release tag (vMAJOR.MINOR.PATCH, optionally -PRERELEASE)", tag)
		}
		changed, err := repo.RepinFiles(tag, ref)
		if err != nil {
			return err
		}
		fmt.Printf("re-pinned to %s at %s: %d file(s) changed\n", tag, ref, len(changed))
		for _, f := range changed {
			fmt.Println("  " + f)
		}
		return nil
	}
	return errors.New(usage)
}

func tagAndRef(args []string) (string, string, error) {
	switch len(args) {
	case 1:
		return args[0], "HEAD", nil
	case 2:
		return args[0], args[1], nil
	}
	return "", "", errors.New(usage)
}

// gates prints the gates' verdict on tagging ref as tag and fails on any violation.
func gates(repo selfrelease.Repo, tag, ref string) (selfrelease.Facts, error) {
	f, err := repo.Gather(tag, ref)
	if err != nil {
		return f, err
	}
	vs := selfrelease.Evaluate(f)
	if len(vs) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s at %s fails %d gate(s):\n", tag, f.Commit, len(vs))
		for _, v := range vs {
			b.WriteString("  " + strings.ReplaceAll(v.String(), "\n", "\n  ") + "\n")
		}
		return f, errors.New(strings.TrimSuffix(b.String(), "\n"))
	}
	fmt.Printf("%s at %s passes every gate (release-tag, not-moved, changelog, release-notes, pins, ci-passed)\n", tag, f.Commit)
	return f, nil
}

// recordCI runs .ci/run on a clean checkout of HEAD and, when it passes, records the pass
// on the commit: a tag then needs no other proof that CI passed for exactly that commit.
func recordCI(repo selfrelease.Repo) error {
	clean, err := repo.Clean()
	if err != nil {
		return err
	}
	if !clean {
		return errors.New("the working tree has changes: CI must run on the commit itself (commit or stash them)")
	}
	commit, err := repo.Commit("HEAD")
	if err != nil {
		return err
	}
	start := time.Now()
	cmd := exec.Command("bash", ".ci/run")
	cmd.Dir, cmd.Stdout, cmd.Stderr = repo.Dir, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf(".ci/run failed on %s: nothing recorded: %w", commit, err)
	}
	if clean, err := repo.Clean(); err != nil || !clean {
		return fmt.Errorf(".ci/run left changes in the working tree: nothing recorded (%v)", err)
	}
	note := fmt.Sprintf("passed .ci/run on %s in %s", time.Now().UTC().Format(time.RFC3339), time.Since(start).Round(time.Second))
	if err := repo.RecordCI(commit, note); err != nil {
		return err
	}
	fmt.Printf("recorded on %s (%s): %s\n", commit, selfrelease.CINotesRef, note)
	return nil
}

// createTag tags ref as tag, annotated (and signed with sign), once every gate passes.
func createTag(repo selfrelease.Repo, tag, ref string, sign bool) error {
	f, err := gates(repo, tag, ref)
	if err != nil {
		return err
	}
	if f.TagCommit == f.Commit {
		fmt.Printf("%s is on %s already: nothing to do\n", tag, f.Commit)
		return nil
	}
	flag := "-a"
	if sign {
		flag = "-s"
	}
	if _, err := repo.Git("tag", flag, "-m", "Shipyard "+tag, tag, f.Commit); err != nil {
		return err
	}
	fmt.Printf("tagged %s at %s; push the tag and %s: git push origin %s %s\n", tag, f.Commit, selfrelease.CINotesRef, tag, selfrelease.CINotesRef)
	return nil
}
