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
#         itself (the same call on a fresh engine, so it is not run twice); and its first
#         `lint` on tesk-core's real code (the real-engine suite's project, written by
#         bench/teskcoretree from ../shared/corpus), with the pins the suite uses: the
#         Python toolchain image (.ci/python-toolchain) served from a local registry in the
#         engine's network, as the suite serves it. Lint stops where the suite's
#         TestTeskCoreRealLint stops, at cffconvert (not packaged in Debian), after
#         pre-commit and the lock check passed; that stop is checked, so a lint that failed
#         earlier is not timed. Its ratio is the first lint against what a bare module would
#         pay for the same work: the bare module's cold load plus the lint's own work, timed
#         as a second lint on the same engine after a one-line change in src/ (the module
#         loaded, the lint not in the cache).
#   dependency: a bare module that installs Shipyard as a module dependency and calls only
#         its own function, on a warm engine of its own, against the bare module's warm
#         load: what a dependency costs a module's load when none of its functions is called,
#         so what splitting Shipyard into dependency modules could gain.
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
# The lint row's tools and image, as the real-engine suite built them in the kit's cache.
tools=$(.ci/realengine-tools --cached 2>/dev/null) || { echo "bench/moduleload.sh: the suite's tools are not built: run .ci/realengine prepare" >&2; exit 1; }
eval "$tools"
toolchain=$(ENGINE_KIT=$kit .ci/python-toolchain 2>/dev/null) || { echo "bench/moduleload.sh: the Python toolchain image is not built: run .ci/realengine prepare" >&2; exit 1; }
eval "$toolchain"
registry_pid=
registry_down() {
  [ -z "$registry_pid" ] || { kill "$registry_pid" 2>/dev/null || true; wait "$registry_pid" 2>/dev/null || true; }
  registry_pid=
}
work=$(mktemp -d "${TMPDIR:-/tmp}/shipyard-moduleload.XXXXXX")
stop_engine() { CLEAN_STATE=1 "$kit/stop.sh" >/dev/null 2>&1 || true; }
trap 'registry_down 2>/dev/null; stop_engine; rm -rf "$work"' EXIT
# The bench's own engine cache: the kit's builds and the proxy's downloads linked in, the
# state (and run/) its own. Exported, so the kit's scripts and the sampler below use it.
export ENGINE_CACHE=$work/engine
mkdir -p "$ENGINE_CACHE" "$built/goproxy-cache"
ln -s "$built/bin" "$built/rootfs" "$built/sdk" "$built/goproxy-cache" "$ENGINE_CACHE/"
# The kit's local-registry settings: the lint row pulls its pins from a registry in the
# engine's network (the other measures pull nothing).
engine_settings "$kit/extras/engine-local-registry.json" >"$work/engine.json"
fresh_engine() {
  registry_down
  stop_engine
  engine_start "$kit" "$work/engine.json" "$work/engine.env" >/dev/null
  eval "$(cat "$work/engine.env")"
}

# The local registry of the lint row: crane's, in the engine's network namespace, as the
# suite serves one (blobs kept on disk between engines, manifests pushed again to each).
# registry_up: serve the registry in the running engine's network and push the Python
# toolchain image to it; python_image is its pinned reference, as containers reach it.
registry_up() {
  local i pushed
  mkdir -p "$work/registry"
  nsenter -t "$ENGINE_PID" -n "$SHIPYARD_CRANE" registry serve --address 0.0.0.0:5000 --disk "$work/registry" 2>/dev/null &
  registry_pid=$!
  for i in $(seq 50); do
    nsenter -t "$ENGINE_PID" -n curl -fsS -o /dev/null http://127.0.0.1:5000/v2/ 2>/dev/null && break
    sleep 0.2
  done
  pushed=$(nsenter -t "$ENGINE_PID" -n "$SHIPYARD_CRANE" push --insecure "$SHIPYARD_PYTHON_TOOLCHAIN" 127.0.0.1:5000/bench/python-toolchain:latest 2>/dev/null) ||
    { echo "bench/moduleload.sh: pushing the Python toolchain image to the local registry failed" >&2; exit 1; }
  python_image=10.87.0.1:5000/bench/python-toolchain@${pushed##*@}
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
# shipyard_copy DIR: Shipyard's source, as the checkout holds it, in DIR.
shipyard_copy() {
  mkdir -p "$1"
  git -C "$root" ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 cp --parents -t "$1")
}
# modules DIR: a round's copies of the modules under DIR: warmup, bare and shipyard, and
# dep/ (a git repository, since a local dependency must sit in its dependant's context
# directory): dep/bare, a bare module with dep/shipyard installed as its dependency.
modules() {
  bare_module "$1/warmup" warmup
  bare_module "$1/bare" bare
  shipyard_copy "$1/shipyard"
  bare_module "$1/dep/bare" bare
  shipyard_copy "$1/dep/shipyard"
  sed -i 's|^  "sdk": {|  "dependencies": [{ "name": "shipyard", "source": "../shipyard" }],\n  "sdk": {|' "$1/dep/bare/dagger.json"
  git -C "$1/dep" init -q
}

# call_log MODULE: where a call's log goes: a new file in $MODULELOAD_LOGS, if set.
call_log() {
  if [ -n "${MODULELOAD_LOGS:-}" ]; then
    mkdir -p "$MODULELOAD_LOGS"
    mktemp "$MODULELOAD_LOGS/$(date +%H%M%S)-$(basename "$1").XXXX.log"
  else
    mktemp "$work/call.XXXXXX.log"
  fi
}

# first_call MODULE ARGS...: seconds of one call, which must succeed.
first_call() {
  local s e log
  log=$(call_log "$1")
  s=$(date +%s.%N)
  "$DAGGER" --progress=plain -m "$@" >"$log" 2>&1 || { echo "bench/moduleload.sh: dagger -m $* failed; the end of its log:" >&2; tail -30 "$log" >&2; exit 1; }
  e=$(date +%s.%N)
  seconds "$s" "$e"
}

# lint_call SOURCE: seconds of Shipyard's lint of SOURCE with the toolchain pins, which must
# stop at cffconvert, as the suite's TestTeskCoreRealLint checks.
lint_call() {
  local s e log rc=0
  log=$(call_log lint)
  s=$(date +%s.%N)
  "$DAGGER" --progress=plain -m "$dir/shipyard" call --source "$1" --pin "python-3.13=$python_image" --pin "uv=$python_image" \
    --pin "go=$python_image" lint >"$log" 2>&1 || rc=$?
  e=$(date +%s.%N)
  if [ "$rc" = 0 ] || ! grep -qF 'cffconvert==2.0.0: not installed' "$log" || grep -qE '\.\.\.Failed' "$log"; then
    echo "bench/moduleload.sh: lint did not stop at cffconvert after pre-commit and the lock check passed (exit $rc); the end of its log:" >&2
    tail -30 "$log" >&2
    exit 1
  fi
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
trap 'kill "$sampler" 2>/dev/null || true; registry_down; stop_engine; rm -rf "$work"' EXIT

# The lint row's project: the suite's tesk-core, locked once in the toolchain image (as the
# suite's fixture is) before anything is timed.
go run ./bench/teskcoretree "$root/../shared/corpus/tesk-core/tree" "$work/tesk"
fresh_engine
registry_up
"$DAGGER" --progress=plain core container from --address "$python_image" with-directory --path /src --source "$work/tesk" \
  with-workdir --path /src with-exec --args uv,lock file --path /src/uv.lock export --path "$work/tesk/uv.lock" >"$work/lock.log" 2>&1 ||
  { echo "bench/moduleload.sh: locking the project in the toolchain image failed:" >&2; tail -30 "$work/lock.log" >&2; exit 1; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

cold_bare=() cold_shipyard=() lint_first=() lint_work=() release_bare=() release_shipyard=() warm_bare=() warm_shipyard=() warm=() upgrade_bare=() upgrade_shipyard=() dep_bare=()
for round in $(seq "$rounds"); do
  dir=$work/round-$round
  modules "$dir"

  fresh_engine
  cold_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  fresh_engine
  cold_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")

  fresh_engine
  registry_up
  cp -r "$work/tesk" "$dir/tesk"
  lint_first+=("$(lint_call "$dir/tesk")")
  printf '# A line changed since the last lint.\n' >>"$dir/tesk/src/tesk_core/path.py"
  lint_work+=("$(lint_call "$dir/tesk")")

  fresh_engine
  release_bare+=("$(first_call "$dir/bare" call --eager-runtime greet --help)")
  fresh_engine
  release_shipyard+=("$(first_call "$dir/shipyard" call --eager-runtime release-push-platform --help)")

  fresh_engine
  first_call "$dir/warmup" call greet --name=x >/dev/null
  warm_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  warm_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")
  warm+=("$(first_call "$dir/shipyard" call pr-title --title "fix: y")")

  # The dependency row on an engine of its own: a load of Shipyard on the same engine
  # would fill the Go build cache with the packages the dependency's codegen compiles.
  fresh_engine
  first_call "$dir/warmup" call greet --name=x >/dev/null
  dep_bare+=("$(first_call "$dir/dep/bare" call greet --name=x)")

  printf '\n// A constant added since the last load.\nconst benchUpgrade = 1\n' >>"$dir/bare/main.go"
  printf '\n// A constant added since the last load.\nconst benchUpgrade = 1\n' >>"$dir/shipyard/internal/conventional/conventional.go"
  upgrade_bare+=("$(first_call "$dir/bare" call greet --name=x)")
  upgrade_shipyard+=("$(first_call "$dir/shipyard" call pr-title --title "feat: x")")

  printf 'round %d: cold bare %s s, shipyard %s s; warm bare %s s, shipyard %s s, call %s s, bare with Shipyard as a dependency %s s; upgrade bare %s s, shipyard %s s; release load bare %s s, shipyard %s s; first lint %s s, its work %s s\n' \
    "$round" "${cold_bare[-1]}" "${cold_shipyard[-1]}" "${warm_bare[-1]}" "${warm_shipyard[-1]}" "${warm[-1]}" "${dep_bare[-1]}" \
    "${upgrade_bare[-1]}" "${upgrade_shipyard[-1]}" "${release_bare[-1]}" "${release_shipyard[-1]}" "${lint_first[-1]}" "${lint_work[-1]}"
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
warm_bare=$(median "${warm_bare[@]}") warm_shipyard=$(median "${warm_shipyard[@]}") warm=$(median "${warm[@]}") dep_bare=$(median "${dep_bare[@]}")
upgrade_bare=$(median "${upgrade_bare[@]}") upgrade_shipyard=$(median "${upgrade_shipyard[@]}")
release_bare=$(median "${release_bare[@]}") release_shipyard=$(median "${release_shipyard[@]}")
lint_first=$(median "${lint_first[@]}") lint_work=$(median "${lint_work[@]}")
lint_bare=$(awk -v b="$cold_bare" -v w="$lint_work" 'BEGIN { printf "%.1f", b + w }')
ratio() { awk -v m="$1" -v b="$2" 'BEGIN{printf "%.2f", m/b}'; }
echo "medians of $rounds rounds:"
printf 'cold engine:    bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.2)\n' "$cold_bare" "$cold_shipyard" "$(ratio "$cold_shipyard" "$cold_bare")"
printf 'warm engine:    bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.5)\n' "$warm_bare" "$warm_shipyard" "$(ratio "$warm_shipyard" "$warm_bare")"
printf 'upgrade:        bare %5.1f s, shipyard %5.1f s, ratio %s (goal: at most 1.2)\n' "$upgrade_bare" "$upgrade_shipyard" "$(ratio "$upgrade_shipyard" "$upgrade_bare")"
printf 'warm call of shipyard: %.1f s (goal: at most 1 s)\n' "$warm"
printf 'PR job:         bare %5.1f s, shipyard %5.1f s, ratio %s (first pr-title call: the cold engine measure)\n' "$cold_bare" "$cold_shipyard" "$(ratio "$cold_shipyard" "$cold_bare")"
printf 'PR job, lint:   bare %5.1f s, shipyard %5.1f s, ratio %s (first lint on a cold engine; bare: its cold load + the lint'"'"'s work, %.1f s)\n' "$lint_bare" "$lint_first" "$(ratio "$lint_first" "$lint_bare")" "$lint_work"
printf 'dependency:     bare %5.1f s, with Shipyard as an uncalled dependency %5.1f s, ratio %s (warm engine; Shipyard alone: %.1f s)\n' "$warm_bare" "$dep_bare" "$(ratio "$dep_bare" "$warm_bare")" "$warm_shipyard"
printf 'release job:    bare %5.1f s, shipyard %5.1f s, ratio %s (load to release-push-platform, not a release)\n' "$release_bare" "$release_shipyard" "$(ratio "$release_shipyard" "$release_bare")"
