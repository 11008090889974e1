package ci

import "testing"

func TestReportFile(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"filer", "filer"},
		{"taskmaster-latest", "taskmaster-latest"},
		{PlatformTargetName("filer", "linux/arm64"), "filer-linux-arm64"},
		{PlatformTargetName("taskmaster", "linux/arm/v7"), "taskmaster-linux-arm-v7"},
	} {
		if got := ReportFile(tc.name); got != tc.want {
			t.Errorf("ReportFile(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := PlatformTargetName("filer", "linux/arm64"); got != "filer (linux/arm64)" {
		t.Errorf("PlatformTargetName = %q", got)
	}
}
