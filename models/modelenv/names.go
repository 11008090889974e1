package modelenv

import (
	"regexp"
	"strings"
)

// CloudcoilPackage is the runtime every model package depends on.
const CloudcoilPackage = "cloudcoil"

var (
	// RequirementName splits a PEP 508 requirement into its name, its extras and the rest.
	RequirementName = regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$`)
	nameSeparators  = regexp.MustCompile(`[-_.]+`)
)

// NormaliseName is the PEP 503 form of a project name.
func NormaliseName(s string) string {
	return strings.ToLower(nameSeparators.ReplaceAllString(s, "-"))
}
