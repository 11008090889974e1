package ci

import (
	"testing"

	"dagger/shipyard/internal/buildplatform"
)

func TestReportFile(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"filer", "filer"},
		{"taskmaster-latest", "taskmaster-latest"},
		{buildplatform.TargetName("filer", "linux/arm64"), "filer-linux-arm64"},
		{buildplatform.TargetName("taskmaster", "linux/arm/v7"), "taskmaster-linux-arm-v7"},
	} {
		if got := ReportFile(tc.name); got != tc.want {
			t.Errorf("ReportFile(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
