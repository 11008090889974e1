// Command bare is the yardstick of bench/weight.sh: a program that only imports the Dagger
// SDK, as a module with no code of its own would. Shipyard's module build is compared to it.
package main

import (
	"context"
	"fmt"
	"os"

	"dagger.io/dagger"
)

func main() {
	client, err := dagger.Connect(context.Background())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer client.Close()
}
