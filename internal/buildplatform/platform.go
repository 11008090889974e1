// Package buildplatform reads and names the platforms images are built for (os/arch[/variant]),
// for the systems that build images and for publishing alike.
package buildplatform

import (
	"fmt"
	"strings"

	"dagger.io/dagger"
)

// Parse reads --platform values, os/arch[/variant] (linux/amd64, linux/arm64/v8),
// refusing malformed or repeated ones.
func Parse(values []string) ([]dagger.Platform, error) {
	seen := map[string]bool{}
	out := make([]dagger.Platform, 0, len(values))
	for _, v := range values {
		parts := strings.Split(v, "/")
		ok := len(parts) == 2 || len(parts) == 3
		for _, part := range parts {
			ok = ok && part != "" && strings.Trim(part, "abcdefghijklmnopqrstuvwxyz0123456789_") == ""
		}
		if !ok {
			return nil, fmt.Errorf("--platform %q: want os/arch or os/arch/variant in lower case, e.g. linux/arm64", v)
		}
		if seen[v] {
			return nil, fmt.Errorf("--platform %q is given twice", v)
		}
		seen[v] = true
		out = append(out, dagger.Platform(v))
	}
	return out, nil
}

// TargetName names one platform's image of a multi-platform image in a scan, a verdict
// or a report: "filer (linux/arm64)".
func TargetName(image string, p dagger.Platform) string {
	return image + " (" + string(p) + ")"
}
