// Command demo-server serves the demo world of package demoserver: the GitHub API on
// -github-addr and PyPI's JSON API on -pypi-addr. Shipyard's --demo builds it from the
// module's source and runs it as a Dagger service.
package main

import (
	"errors"
	"flag"
	"log"
	"net/http"
	"time"

	"dagger/shipyard/internal/testkit/demoserver"
	"dagger/shipyard/internal/testkit/githubsim"
)

func main() {
	gh := flag.String("github-addr", "127.0.0.1:8080", "address of the GitHub API")
	pypi := flag.String("pypi-addr", "127.0.0.1:8081", "address of PyPI's JSON API")
	flag.Parse()

	w := demoserver.New(demoserver.Program{}, githubsim.WithoutDescriptionCheck())
	errs := make(chan error, 2)
	for addr, h := range map[string]http.Handler{*gh: w.GitHubHandler(), *pypi: w.PyPI} {
		srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- srv.ListenAndServe() }()
	}
	log.Printf("demo-server: GitHub API on %s, PyPI on %s", *gh, *pypi)
	log.Fatal(errors.Join(<-errs))
}
