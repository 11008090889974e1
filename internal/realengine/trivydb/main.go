package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	status := flag.String("status", "", "the image's dpkg status file (var/lib/dpkg/status of its root filesystem)")
	set := flag.String("set", "pass", "the advisory set: pass or gate")
	out := flag.String("out", "", "the Trivy cache directory to write db/ under")
	flag.Parse()
	if err := run(*status, *set, *out); err != nil {
		fmt.Fprintln(os.Stderr, "trivydb:", err)
		os.Exit(1)
	}
}

func run(status, set, out string) error {
	if status == "" || out == "" {
		return fmt.Errorf("-status and -out are required")
	}
	f, err := os.Open(status)
	if err != nil {
		return err
	}
	defer f.Close()
	installed, err := InstalledSources(f)
	if err != nil {
		return fmt.Errorf("%s: %w", status, err)
	}
	advisories, err := Advisories(set, installed)
	if err != nil {
		return fmt.Errorf("%s: %w", status, err)
	}
	if err := Write(out, advisories, time.Now()); err != nil {
		return err
	}
	for _, a := range advisories {
		fmt.Printf("%s %s %s installed %s fixed %q\n", a.ID, a.Severity, a.Source, a.Installed, a.Fixed)
	}
	return nil
}
