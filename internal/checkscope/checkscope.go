// Package checkscope decides which system's checks apply to a caller's tree. Shipyard
// serves two systems, and installed as a toolchain its `+check` functions all run in the
// installing repository: a check of one system must not fail the other system's
// `dagger check` for want of files it never has.
package checkscope

import (
	"fmt"
	"regexp"
	"strings"

	"dagger/shipyard/internal/pyproject"
)

// modelPackage is the distribution name of a generated Cloudcoil model package, as the
// template writes it (cloudcoil.models.<module>), in any spelling PEP 503 normalises to
// cloudcoil-models-<module>.
var modelPackage = regexp.MustCompile(`^cloudcoil[-_.]+models[-_.]+[a-z0-9]`)

// ModelRepository says whether a tree whose pyproject.toml holds data (nil when the tree has
// none) is a generated Cloudcoil model repository, and if not, why, for the skipped check to
// print. A pyproject.toml that does not parse is an error: the tree claims to be a Python
// project, and guessing would hide a broken file.
func ModelRepository(data []byte) (bool, string, error) {
	if data == nil {
		return false, "the tree has no pyproject.toml", nil
	}
	doc, err := pyproject.Parse("pyproject.toml", data)
	if err != nil {
		return false, "", err
	}
	name, found, err := doc.String("project", "name")
	if err != nil {
		return false, "", err
	}
	if !found {
		return false, "pyproject.toml names no [project] name", nil
	}
	if modelPackage.MatchString(strings.ToLower(name)) {
		return true, "", nil
	}
	return false, fmt.Sprintf("pyproject.toml names the project %q, not a model package cloudcoil.models.<name>", name), nil
}

// TeskSkipped is the message of tesk-core's check named check on a tree whose
// pyproject.toml holds data (nil when it has none): the check skips on a Cloudcoil model
// repository, saying why, and "" means it runs. A pyproject.toml that does not parse runs
// the check, which reports it.
func TeskSkipped(check string, data []byte) string {
	if model, _, err := ModelRepository(data); err != nil || !model {
		return ""
	}
	return check + " skipped: the source is a Cloudcoil model repository, not tesk-core; tesk-core's checks have nothing to check here"
}

// ModelSkipped is the message of the Cloudcoil model check named check on a tree whose
// pyproject.toml holds data (nil when it has none): the check skips outside a generated
// model repository, saying why, and "" means it runs. A pyproject.toml that does not parse
// is an error, as ModelRepository says.
func ModelSkipped(check string, data []byte) (string, error) {
	ok, why, err := ModelRepository(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", check, err)
	}
	if ok {
		return "", nil
	}
	return check + " skipped: the source is not a generated Cloudcoil model repository (" + why +
		"); this check builds a model package, so it has nothing to check in another project's repository", nil
}
