// Command demo-server serves the demo world of package demoserver: the GitHub API on
// -github-addr, PyPI's JSON API on -pypi-addr and the demo repository over git on
// -git-addr. Shipyard's --demo builds it from the
// module's source and runs it as a Dagger service.
package main

import (
	"errors"
	"flag"
	"log"
	"net/http"
	"time"

	"dagger/shipyard/internal/demoworld/demoserver"
	"dagger/shipyard/internal/demoworld/githubsim"
)

func main() {
	gh := flag.String("github-addr", "127.0.0.1:8080", "address of the GitHub API")
	pypi := flag.String("pypi-addr", "127.0.0.1:8081", "address of PyPI's JSON API")
	git := flag.String("git-addr", "127.0.0.1:8082", "address of the git host")
	flag.Parse()

	w := demoserver.New(demoserver.Program{}, githubsim.WithoutDescriptionCheck())
	servers := map[string]http.Handler{*gh: w.GitHubHandler(), *pypi: w.PyPI, *git: w.Git}
	errs := make(chan error, len(servers))
	for addr, h := range servers {
		srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- srv.ListenAndServe() }()
	}
	log.Printf("demo-server: GitHub API on %s, PyPI on %s, git on %s", *gh, *pypi, *git)
	log.Fatal(errors.Join(<-errs))
}
