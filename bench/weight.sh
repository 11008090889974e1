#!/usr/bin/env bash
# Module weight: Dagger compiles the module on a user's first call and on every fresh engine
# (every CI runner). This measures a cold `go build` (fresh GOCACHE, warm module cache) of
# Shipyard's module binary against a bare program that only imports dagger.io/dagger, one
# after the other in one run, and prints both times, the ratio and both binary sizes. Then
# it builds the module once more on the bare program's build cache and lists, by Go module,
# what that build compiled: what Shipyard adds to a bare module's load (bench/weight/compiles).
#
#   bash bench/weight.sh
set -euo pipefail
cd "$(dirname "$0")/.."

go mod download
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cold_build NAME ARGS...: prints the wall seconds of a build with an empty build cache.
cold_build() {
  local name=$1; shift
  local start end
  start=$(date +%s.%N)
  GOCACHE="$work/cache-$name" go build -o "$work/$name" "$@"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }'
}

bare=$(cold_build bare ./bench/weight/bare)
module=$(cold_build shipyard -overlay=internal/testkit/daggerstandin/overlay.json .)
bare_size=$(stat -c %s "$work/bare")
module_size=$(stat -c %s "$work/shipyard")

printf 'bare dagger.io/dagger program: %6.1f s  %5.1f MB\n' "$bare" "$(awk -v b="$bare_size" 'BEGIN{print b/1e6}')"
printf 'shipyard module binary:        %6.1f s  %5.1f MB\n' "$module" "$(awk -v b="$module_size" 'BEGIN{print b/1e6}')"
printf 'cold-build ratio (shipyard / bare): %.2f (goal: at most 1.5)\n' "$(awk -v m="$module" -v b="$bare" 'BEGIN{print m/b}')"

# What Shipyard adds to a bare module's build, by Go module: the bare program's cache serves
# the SDK and the standard library it uses, as the engine's warmed Go caches do.
echo
echo "compiled on top of the bare program's build cache (compile seconds summed per module):"
GOCACHE="$work/cache-bare" go build -debug-actiongraph="$work/actions.json" -o /dev/null \
  -overlay=internal/testkit/daggerstandin/overlay.json .
go run ./bench/weight/compiles "$work/actions.json"
