package upstreams

import (
	"testing"
	"time"
)

// SetPyPITimeout shortens the PyPI time bound for one test, so a stall fails fast.
func SetPyPITimeout(t testing.TB, d time.Duration) {
	old := pypiTimeout
	pypiTimeout = d
	t.Cleanup(func() { pypiTimeout = old })
}
