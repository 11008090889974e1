module dagger/shipyard/internal/realengine/trivydb

go 1.26

require (
	github.com/aquasecurity/trivy-db v0.0.0-20260813095258-0e0340a01b57
	github.com/knqyf263/go-deb-version v0.0.0-20190517075300-09fca494f03d
	go.etcd.io/bbolt v1.5.0
)

require (
	github.com/VividCortex/ewma v1.2.0 // indirect
	github.com/briandowns/spinner v1.23.0 // indirect
	github.com/cheggaaa/pb/v3 v3.1.7 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/fatih/color v1.18.0 // indirect
	github.com/go-openapi/jsonpointer v0.21.0 // indirect
	github.com/go-openapi/swag v0.23.0 // indirect
	github.com/josephburnett/jd/v2 v2.3.0 // indirect
	github.com/josharian/intern v1.0.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/oklog/ulid/v2 v2.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/samber/lo v1.50.0 // indirect
	github.com/samber/oops v1.18.1 // indirect
	github.com/stretchr/objx v0.5.2 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	go.opentelemetry.io/otel v1.34.0 // indirect
	go.opentelemetry.io/otel/trace v1.34.0 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.3 // indirect
	golang.org/x/exp v0.0.0-20251125195548-87e1e737ad39 // indirect
	golang.org/x/sys v0.45.0 // indirect
	golang.org/x/term v0.26.0 // indirect
	golang.org/x/text v0.33.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
