package realengine

// DocumentedRuns are the commands of the README and docs/ that the suite runs on the real
// engine exactly as printed (the command's words, as modsurface reads them), each with
// the test that runs it. The docs' test requires every other documented command to be
// one the engine here cannot run (GitHub, Docker Hub, PyPI, k3s, a terminal), and says
// which.
func DocumentedRuns() map[string]string {
	return map[string]string{
		"dagger call --demo release-plan --tag v0.11.0":                        "TestReadmeQuickStart",
		"dagger call --demo release --tag v0.11.0 --dry-run":                   "TestReadmeQuickStart",
		"dagger call --demo --repo cloudcoil/cloudcoil model-versions --check": "TestReadmeQuickStart",
		"dagger call shipyard pr-title --title fix(filer): retry uploads":      "TestShipyardAsAToolchain",
		"dagger call shipyard python-versions":                                 "TestShipyardAsAToolchain",
		"dagger call shipyard images --version 0.11.0":                         "TestShipyardAsAToolchain",
	}
}
