#!/usr/bin/env bash
# Module load on a real Dagger v0.21.8 engine: the time to Shipyard's first successful
# `dagger call` (the engine's codegen and build of the module), against a bare module
# (bench/baremodule: what `dagger init --sdk=go` writes, with its go.mod pinned as Shipyard's
# is) on the same engine in the same run, and the time of a warm
# call. It uses the engine kit beside the checkout (../shared/engine, or ENGINE_KIT): the kit's
# binaries and images, and its Go module proxy's cache, with an engine state of its own
# that it empties before each cold measure, so the real-engine suite's state is left as it
# was. The engine runs with the suite's garbage-collector settings (.ci/lib/engine-settings.sh):
# with Dagger's default, on a disk less than 80 % free, the engine empties its cache after
# every session, and the warm and upgrade measures would be cold ones.
#
# Every measure runs MODULELOAD_ROUNDS times (default 3), each round on new copies of the
# modules, and the table gives the medians; each round's times are printed too.
#
#   bash bench/moduleload.sh
#   MODULELOAD_LOGS=DIR bash bench/moduleload.sh   # also keep each call's --progress=plain log
#
# It prints the load average before and after: the ratios compare a build that is mostly
# compiling (Shipyard) with one that is mostly fixed costs (the bare module), so CPU taken by
# anything else on the machine inflates them. So it also looks, every two seconds, for a
# running process that is neither its own, the engine's nor the module proxy's, and refuses
# to report ratios when one was seen in more than 5 % of the looks (FOREIGN_LIMIT_PCT):
# the times are printed, with the processes seen, and the run should be made again.
#
# Three measures, each comparing the first call of a module whose code is not generated yet
# (so the engine runs codegen, then builds it):
#   cold: each module on a fresh engine state, as a new user or a fresh CI runner sees it;
#   warm: after a throwaway module has filled the engine's Go caches with the SDK the
#         engine's codegen uses, as on an engine that has loaded modules before. Shipyard
#         is moved onto that same SDK (the lib version) by codegen, like any module.
#   upgrade: on that engine, each module again after a one-line change (a constant added
#         to a leaf package: Shipyard's internal/conventional, the bare module's main.go),
#         as a persistent engine loads a new commit of a module it loaded before.
# And two jobs as a user's CI runs them, each on a fresh runner's engine:
#   PR job: the pull request's first call, `pr-title --title …`, which is the cold measure
#         itself (the same call on a fresh engine, so it is not run twice). Its lint and
#         images pull pinned images from public registries, which this engine cannot reach,
#         so their first calls are not measured.
#   release job: the load before release-push-platform runs, as `call --eager-runtime
#         release-push-platform --help`, since a release cannot run here. On v0.21.8 `--help`
#         alone loads only the typedefs (the engine's codegen reads them from the source);
#         --eager-runtime also builds the module, as a call would. The constructor does not
#         run, so it is less than a first call. Against the bare module's `greet --help`,
#         loaded the same way.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
kit=$(cd "${ENGINE_KIT:-../shared/engine}" && pwd)
. .ci/lib/engine-settings.sh
rounds=${MODULELOAD_ROUNDS:-3}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/moduleload.sh: MODULELOAD_ROUNDS=$rounds: a whole number of rounds, at least 1, was expected" >&2; exit 2; }
"$kit/build.sh" && "$kit/rootfs.sh" && "$kit/gosdk.sh"
built=${ENGINE_CACHE:-$HOME/.cache/shipyard-engine}
work=$(mktemp -d "${TMPDIR:-/tmp}/shipyard-moduleload.XXXXXX")
stop_engine() { CLEAN_STATE=1 "$kit/stop.sh" >/dev/null 2>&1 || true; }
trap 'stop_engine; rm -rf "$work"' EXIT
# The bench's own engine cache: the kit's builds and the proxy's downloads linked in, the
# state (and run/) its own. Exported, so the kit's scripts and the sampler below use it.
export ENGINE_CACHE=$work/engine
mkdir -p "$ENGINE_CACHE" "$built/goproxy-cache"
ln -s "$built/bin" "$built/rootfs" "$built/sdk" "$built/goproxy-cache" "$ENGINE_CACHE/"
echo '{}' >"$work/kit-settings.json"
engine_settings "$work/kit-settings.json" >"$work/engine.json"
fresh_engine() {
  stop_engine
  engine_start "$kit" "$work/engine.json" "$work/engine.env" >/dev/null
  eval "$(cat "$work/engine.env")"
}

seconds() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.1f", e - s }'; }
# median N...: the middle value (the mean of the two middle ones for an even count).
median() {
  printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.1f", v[(NR + 1) / 2]; else printf "%.1f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bare_module DIR NAME: bench/baremodule named NAME: the module `dagger init --sdk=go` writes,
# with the generated code's modules pinned at Dagger v0.21.8's versions as Shipyard pins
# them, so it loads the same way every day (an init's own go.mod takes the day's @latest).
bare_module() {
  local type
  type=$(echo "${2:0:1}" | tr a-z A-Z)${2:1}
  mkdir -p "$1"
  cp "$root/bench/baremodule/"* "$1/" # follows the link: the root's engine_codegen_imports.go
  sed -i "s/\"name\": \"bare\"/\"name\": \"$2\"/" "$1/dagger.json"
  sed -i "s|^module dagger/bare\$|module dagger/$2|" "$1/go.mod"
  sed -i "s/\bBare\b/$type/g" "$1/main.go"
}
# modules DIR: a round's copies of the three modules under DIR: warmup, bare and shipyard.
modules() {
  bare_module "$1/warmup" warmup
  bare_module "$1/bare" bare
  mkdir -p "$1/shipyard"
  git -C "$root" ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$1/shipyard")
}

# first_call MODULE ARGS...: seconds of one call; its log goes to $MODULELOAD_LOGS, if set.
first_call() {
  local s e log=/dev/null
  if [ -n "${MODULELOAD_LOGS:-}" ]; then
    mkdir -p "$MODULELOAD_LOGS"
    log=$MODULELOAD_LOGS/$(date +%H%M%S)-$(basename "$1").log
  fi
  s=$(date +%s.%N)
  "$DAGGER" --progress=plain -m "$@" >"$log" 2>&1 || { echo "bench/moduleload.sh: dagger -m $* failed" >&2; exit 1; }
  e=$(date +%s.%N)
  seconds "$s" "$e"
}
# foreign_sampler FILE: every two seconds, one line in FILE: the names of the running
# processes that are neither this script's descendants nor the engine's or the module
# proxy's (an empty line when there are none).
foreign_sampler() {
  local ours
  set +e # a look that fails (the engine between a stop and a start) must not end the looking
  while :; do
    ours="$$ $(cat "$ENGINE_CACHE/run/engine.pid" "$ENGINE_CACHE/run/modserve.pid" 2>/dev/null | tr '\n' ' ')"
    ps -eo pid=,ppid=,stat=,comm= | awk -v ours="$ours" '
      BEGIN { n = split(ours, o, " "); for (i = 1; i <= n; i++) mine[o[i]] = 1 }
      { parent[$1] = $2; state[$1] = $3; name[$1] = $4 }
      END {
        line = ""
        for (p in state) {
          if (state[p] !~ /^R/ || p == 2 || parent[p] == 2) continue
          q = p; own = 0
          for (d = 0; d < 64 && q > 1; d++) { if (q in mine) { own = 1; break }; q = parent[q] }
          if (!own) line = line (line == "" ? "" : " ") name[p]
        }
        print line
      }' >>"$1"
    sleep 2
  done
}
samples=$work/foreign.samples
: >"$samples"
foreign_sampler "$samples" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true; stop_engine; rm -rf "$work"' EXIT

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

cold_bare=() cold_shipyard=() release_bare=() release_shipyard=() warm_bare=() warm_shipyard=() warm=() upgrade_bare=() upgrade_shipyard=()
for round in $(seq "$rounds"); do
  dir=$work/round-$round
  modules "$dir"

  fresh_engine
  cold_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  fresh_engine
  cold_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")

  fresh_engine
  release_bare+=("$(first_call "$dir/bare" call --eager-runtime greet --help)")
  fresh_engine
  release_shipyard+=("$(first_call "$dir/shipyard" call --eager-runtime release-push-platform --help)")

  fresh_engine
  first_call "$dir/warmup" call greet --name=x >/dev/null
  warm_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  warm_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")
  warm+=("$(first_call "$dir/shipyard" call pr-title --title "fix: y")")

  printf '\n// A constant added since the last load.\nconst benchUpgrade = 1\n' >>"$dir/bare/main.go"
  printf '\n// A constant added since the last load.\nconst benchUpgrade = 1\n' >>"$dir/shipyard/internal/conventional/conventional.go"
  upgrade_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  upgrade_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")

  printf 'round %d: cold bare %s s, shipyard %s s; warm bare %s s, shipyard %s s, call %s s; upgrade bare %s s, shipyard %s s; release load bare %s s, shipyard %s s\n' \
    "$round" "${cold_bare[-1]}" "${cold_shipyard[-1]}" "${warm_bare[-1]}" "${warm_shipyard[-1]}" "${warm[-1]}" \
    "${upgrade_bare[-1]}" "${upgrade_shipyard[-1]}" "${release_bare[-1]}" "${release_shipyard[-1]}"
done

if ! kill "$sampler" 2>/dev/null; then
  echo "bench/moduleload.sh: the look for other processes stopped early: no ratio is reported" >&2
  exit 1
fi
wait "$sampler" 2>/dev/null || true
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
looks=$(wc -l <"$samples")
busy=$(grep -c . "$samples" || true)
if [ "$looks" -eq 0 ] || [ $((busy * 100)) -gt $((looks * ${FOREIGN_LIMIT_PCT:-5})) ]; then
  echo "something else was running in $busy of $looks looks (most seen: $(tr ' ' '\n' <"$samples" | grep . | sort | uniq -c | sort -rn | head -5 | awk '{printf "%s%s ×%s", (NR>1?", ":""), $2, $1}')): no ratio is reported; run it again on an idle machine"
  exit 1
fi
echo "nothing else was running: $busy of $looks looks saw another process"
# Each name now holds its measure's median (as the array's first element).
cold_bare=$(median "${cold_bare[@]}") cold_shipyard=$(median "${cold_shipyard[@]}")
warm_bare=$(median "${warm_bare[@]}") warm_shipyard=$(median "${warm_shipyard[@]}") warm=$(median "${warm[@]}")
upgrade_bare=$(median "${upgrade_bare[@]}") upgrade_shipyard=$(median "${upgrade_shipyard[@]}")
release_bare=$(median "${release_bare[@]}") release_shipyard=$(median "${release_shipyard[@]}")
ratio() { awk -v m="$1" -v b="$2" 'BEGIN{printf "%.2f", m/b}'; }
echo "medians of $rounds rounds:"
printf 'cold engine:    bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.2)\n' "$cold_bare" "$cold_shipyard" "$(ratio "$cold_shipyard" "$cold_bare")"
printf 'warm engine:    bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.5)\n' "$warm_bare" "$warm_shipyard" "$(ratio "$warm_shipyard" "$warm_bare")"
printf 'upgrade:        bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.2)\n' "$upgrade_bare" "$upgrade_shipyard" "$(ratio "$upgrade_shipyard" "$upgrade_bare")"
printf 'warm call of shipyard: %.1f s (goal: at most 1 s)\n' "$warm"
printf 'PR job:         bare %5.1f s, shipyard %5.1f s, ratio %s (first pr-title call: the cold engine measure)\n' "$cold_bare" "$cold_shipyard" "$(ratio "$cold_shipyard" "$cold_bare")"
printf 'release job:    bare %5.1f s, shipyard %5.1f s, ratio %s (load to release-push-platform, not a release)\n' "$release_bare" "$release_shipyard" "$(ratio "$release_shipyard" "$release_bare")"
