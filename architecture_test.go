package main

import (
	"os/exec"
	"strings"
	"testing"
)

// Neither system imports the other: tesk-core's pipelines and Cloudcoil's models share only
// the small packages under internal/ (pins, jobs, trust, pyproject, reponame, flow, …).
func TestSystemsDoNotImportEachOther(t *testing.T) {
	for pkgs, forbidden := range map[string]string{
		"./models/...":    "dagger/shipyard/pipelines/",
		"./pipelines/...": "dagger/shipyard/models/",
	} {
		out, err := exec.Command("go", "list", "-deps", "-test", pkgs).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkgs, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, forbidden) {
				t.Errorf("%s depends on %s", pkgs, dep)
			}
		}
	}
}
