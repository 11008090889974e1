//go:build shipyard_codegen

// This file is never built. It names the packages the engine's codegen imports in the code
// it generates for the module (Dagger v0.21.8's cmd/codegen/generator/go/templates), so that
// go.mod requires their modules at the versions Dagger v0.21.8 itself is built with, and a
// local `go mod tidy` keeps them. Without these requirements the engine's `go mod tidy`
// resolves them at the day's @latest on every fresh load: on 2026-12-06 that was otel-go
// v1.47.1, whose OpenTelemetry v1.47 forms an import cycle with the SDK's
// `replace go.opentelemetry.io/otel/log => v0.16.0`, and no module loaded.
// TestEngineCodegenResolvesNothing holds this list to the templates.

package main

import (
	_ "github.com/Khan/genqlient/graphql"
	_ "github.com/dagger/otel-go"
	_ "github.com/dagger/querybuilder"
	_ "github.com/vektah/gqlparser/v2/gqlerror"
	_ "go.opentelemetry.io/otel"
	_ "go.opentelemetry.io/otel/propagation"
	_ "go.opentelemetry.io/otel/sdk/resource"
	_ "go.opentelemetry.io/otel/semconv/v1.40.0"
	_ "go.opentelemetry.io/otel/trace"
)
