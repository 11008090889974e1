package modelrelease

import (
	"dagger/shipyard/internal/testkit/fixtures"
)

const pkg = fixtures.ModelRepoPackageDir
