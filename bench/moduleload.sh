#!/usr/bin/env bash
# Module load on a real Dagger v0.21.8 engine: the time to Shipyard's first successful
# `dagger call` (the engine's codegen and build of the module), against a bare
# `dagger init --sdk=go` module on the same engine in the same run, and the time of a warm
# call. It uses the engine kit beside the checkout (../shared/engine, or ENGINE_KIT), and
# starts its engine on a fresh state (CLEAN_STATE), so stop any engine of the kit first.
#
#   bash bench/moduleload.sh
#
# Order: a throwaway module first (it fills the engine's Go module and build caches with
# the SDK, as any earlier module on a user's engine would), then the bare module, then
# Shipyard. Both measured modules are loaded without generated code, so both first calls
# include codegen.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kit=$(cd "${ENGINE_KIT:-../shared/engine}" && pwd)
"$kit/build.sh" && "$kit/rootfs.sh" && "$kit/gosdk.sh"
CLEAN_STATE=1 "$kit/stop.sh" >/dev/null 2>&1 || true
work=$(mktemp -d "${TMPDIR:-/tmp}/shipyard-moduleload.XXXXXX")
trap 'CLEAN_STATE=1 "$kit/stop.sh" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
eval "$("$kit/start.sh")"

seconds() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'; }

# bare_module DIR NAME: a `dagger init --sdk=go` module without its generated code.
bare_module() {
  mkdir -p "$1"
  (cd "$1" && "$DAGGER" init --sdk=go --name="$2" --progress=plain >/dev/null 2>&1)
  rm -rf "$1/internal" "$1/dagger.gen.go"
  cat > "$1/main.go" <<GO
// A bare module, to compare module loads with.
package main

type $(echo "${2:0:1}" | tr a-z A-Z)${2:1} struct{}

// Greet returns a greeting.
func (m *$(echo "${2:0:1}" | tr a-z A-Z)${2:1}) Greet(name string) string { return "hello, " + name }
GO
}

bare_module "$work/warmup" warmup
bare_module "$work/bare" bare
mkdir "$work/shipyard"
git -C "$root" ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$work/shipyard")

"$DAGGER" -m "$work/warmup" call greet --name=x >/dev/null 2>&1

s=$(date +%s.%N); "$DAGGER" -m "$work/bare" call greet --name=x >/dev/null 2>&1; e=$(date +%s.%N)
bare=$(seconds "$s" "$e")
s=$(date +%s.%N); "$DAGGER" -m "$work/shipyard" call pr-title --title "feat: x" >/dev/null 2>&1; e=$(date +%s.%N)
shipyard=$(seconds "$s" "$e")
s=$(date +%s.%N); "$DAGGER" -m "$work/shipyard" call pr-title --title "fix: y" >/dev/null 2>&1; e=$(date +%s.%N)
warm=$(seconds "$s" "$e")

printf 'first call, bare module:      %6.1f s\n' "$bare"
printf 'first call, shipyard:         %6.1f s\n' "$shipyard"
printf 'module-load ratio (shipyard / bare): %.2f (goal: at most 1.3)\n' "$(awk -v m="$shipyard" -v b="$bare" 'BEGIN{print m/b}')"
printf 'warm call, shipyard:          %6.1f s\n' "$warm"
