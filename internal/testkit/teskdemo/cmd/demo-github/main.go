// Command demo-github serves the demo tesk-core repository (package teskdemo) with the
// GitHub simulator, answering reads without a token, for the README's quick start. It runs
// beside a Dagger engine, in the engine's network namespace, so the module reaches it at
// the engine's gateway:
//
//	demo-github -addr 0.0.0.0:8080 -public-url http://10.87.0.1:8080
package main

import (
	"flag"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"testing"
	"time"

	"dagger/shipyard/internal/testkit/githubsim"
	"dagger/shipyard/internal/testkit/teskdemo"
)

// program lets the simulator, written for tests, run as a program: failures end it.
type program struct{ testing.TB }

func (program) Helper()                           {}
func (program) Cleanup(func())                    {}
func (program) Name() string                      { return "demo-github" }
func (program) Fatalf(format string, args ...any) { log.Fatalf(format, args...) }
func (program) Fatal(args ...any)                 { log.Fatal(args...) }
func (program) Errorf(format string, args ...any) { log.Printf(format, args...) }
func (program) Logf(format string, args ...any)   { log.Printf(format, args...) }

func main() {
	addr := flag.String("addr", "0.0.0.0:8080", "address to listen on")
	public := flag.String("public-url", "http://10.87.0.1:8080", "the base URL clients use (links in answers)")
	flag.Parse()

	sim := githubsim.New(program{}, githubsim.WithAnonymousReads(), githubsim.WithoutDescriptionCheck())
	teskdemo.Seed(sim, teskdemo.Notes)
	// The simulator listens on a loopback port of its own; -addr forwards to it.
	target, err := url.Parse(sim.URL)
	if err != nil {
		log.Fatal(err)
	}
	sim.URL = *public
	srv := &http.Server{Addr: *addr, Handler: httputil.NewSingleHostReverseProxy(target), ReadHeaderTimeout: 10 * time.Second}
	log.Printf("demo-github: %s/%s on %s (as %s)", teskdemo.Owner, teskdemo.Name, *addr, *public)
	if err := srv.ListenAndServe(); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}
