// Command teskcoretree writes the real-engine suite's tesk-core project (the real package
// and tests of ../shared/corpus/tesk-core, placed as internal/testkit/teskreal places them)
// into a folder, so bench/moduleload.sh can time a first lint on the same code the suite
// lints.
//
//	go run ./bench/teskcoretree CORPUS_TREE OUT
package main

import (
	"fmt"
	"os"

	"dagger/shipyard/internal/testkit/teskreal"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "teskcoretree:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("want two arguments, the corpus's tesk-core tree and the folder to write, got %d", len(args))
	}
	files, err := teskreal.Build(args[0])
	if err != nil {
		return fmt.Errorf("building the project from %s: %w", args[0], err)
	}
	if err := teskreal.Write(args[1], files); err != nil {
		return fmt.Errorf("writing %s: %w", args[1], err)
	}
	return nil
}
