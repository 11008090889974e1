package doctor

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// dependabotConfig is the part of .github/dependabot.yml the check reads.
type dependabotConfig struct {
	Version int `yaml:"version"`
	Updates []struct {
		Ecosystem    string `yaml:"package-ecosystem"`
		TargetBranch string `yaml:"target-branch"`
	} `yaml:"updates"`
}

// dependabotEcosystems are what tesk-core's seed has Dependabot update: the Python
// dependencies (uv, or pip), the workflows' actions and the images of containers/. Each
// entry lists accepted ecosystem names.
var dependabotEcosystems = [][]string{{"uv", "pip"}, {"github-actions"}, {"docker"}}

// dependabot: the configuration exists, is version 2, updates each ecosystem, to dev.
func dependabot(repo string, file File) Finding {
	const check = "dependabot"
	why := "Dependabot keeps the locked dependencies, the pinned actions and the base images current, in pull requests to dev that CI checks"
	if file.Denied {
		return cannot(check, file.Path, permContents, why)
	}
	fix := "add .github/dependabot.yml (version: 2) with an update entry for uv, github-actions and docker, each with target-branch: dev and a monthly schedule, in a pull request to dev"
	if !file.Found {
		return fail(check, "there is no .github/dependabot.yml", why, fix)
	}
	var cfg dependabotConfig
	if err := yaml.Unmarshal([]byte(file.Content), &cfg); err != nil {
		return fail(check, fmt.Sprintf("%s does not parse: %v", file.Path, err), why, "fix the YAML of "+file.Path)
	}
	var problems []string
	if cfg.Version != 2 {
		problems = append(problems, fmt.Sprintf("version is %d, not 2", cfg.Version))
	}
	for _, want := range dependabotEcosystems {
		found := false
		for _, u := range cfg.Updates {
			if slices.Contains(want, u.Ecosystem) {
				found = true
				if u.TargetBranch != "dev" {
					problems = append(problems, fmt.Sprintf("the %s updates go to %s, not dev", u.Ecosystem, orDefault(u.TargetBranch)))
				}
			}
		}
		if !found {
			problems = append(problems, "no "+strings.Join(want, " or ")+" updates")
		}
	}
	if len(problems) > 0 {
		return fail(check, file.Path+": "+strings.Join(problems, "; "), why, fix)
	}
	return pass(check, file.Path+" updates the Python dependencies, actions and images, to dev")
}

func orDefault(branch string) string {
	if branch == "" {
		return "the default branch"
	}
	return branch
}
