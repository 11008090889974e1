# Stage timing for .ci/run and .ci/realengine (sourced, not run).
#
# Each stage of CI runs through `stage` (in the foreground) or `stage_bg` and `stage_wait`
# (in the background, while other stages run), which record its wall time, the CPU time of
# everything it ran (user + system, so that two stages sharing the two cores of a runner
# show it) and its outcome. `stages_report`, called on exit whether CI passed or failed,
# prints the table and the budget: every stage has a share of CI's budget, fresh (nothing
# cached: Go's caches, the engine kit, the suite's tools, the Python image) and warm, and a
# stage over its share is named with what it took. Going over a share is a warning, never
# a failure: only a test fails CI.
#
# The records go to $STAGES_FILE, which .ci/run exports so that .ci/realengine (its own
# script, also run alone) adds its stages to the same table.

# The budget of a whole CI run, in seconds: 45 minutes on a fresh machine, 15 with the
# caches of an earlier run on the same machine.
STAGES_BUDGET_FRESH=${STAGES_BUDGET_FRESH:-2700}
STAGES_BUDGET_WARM=${STAGES_BUDGET_WARM:-900}

# stages_init: start the table unless a calling script already did.
stages_init() {
  if [ -z "${STAGES_FILE:-}" ]; then
    STAGES_FILE=$(mktemp "${TMPDIR:-/tmp}/shipyard-stages.XXXXXX")
    STAGES_OWNER=$$
    STAGES_T0=$SECONDS
    # Fresh or warm is decided once, from what was cached when CI started.
    STAGES_KIND=${STAGES_KIND:-warm}
    export STAGES_FILE STAGES_KIND
  fi
}

# stages_fresh REASON: this run counts against the fresh budget (something it needs was not
# cached when it started).
stages_fresh() {
  if [ "$STAGES_KIND" != fresh ]; then
    STAGES_KIND=fresh
    export STAGES_KIND
    echo "== fresh run: $1"
  fi
}

# stage NAME FRESH_SHARE WARM_SHARE CMD...: run CMD as the stage NAME. Its exit status is
# the stage's, so `set -e` stops CI at a failed stage (after recording it).
stage() {
  local name=$1 fresh=$2 warm=$3 t0=$SECONDS rc cpu opts=$-
  shift 3
  echo "== $name"
  cpu=$(mktemp)
  _stage_timed "$cpu" "$@"
  rc=$?
  case $opts in *e*) set -e ;; esac
  _stage_record "$name" "$fresh" "$warm" "$((SECONDS - t0))" "$(cat "$cpu")" "$rc" fg
  rm -f "$cpu"
  return "$rc"
}

# stage_bg NAME FRESH_SHARE WARM_SHARE CMD...: start CMD as the stage NAME in the
# background, its output kept in a log until stage_wait NAME prints it.
stage_bg() {
  local name=$1 fresh=$2 warm=$3 dir
  shift 3
  dir=$(_stage_dir "$name")
  mkdir -p "$dir"
  echo "== $name (in the background)"
  printf '%s %s %s\n' "$fresh" "$warm" "$SECONDS" > "$dir/start"
  ( _stage_timed "$dir/cpu" "$@" > "$dir/log" 2>&1; echo "$?" > "$dir/rc"; echo "$SECONDS" > "$dir/end" ) &
  echo $! > "$dir/pid"
}

# stage_wait NAME: wait for a background stage, print its output and record it; its status
# is the stage's.
stage_wait() {
  local name=$1 dir fresh warm start rc waited=$SECONDS
  dir=$(_stage_dir "$name")
  wait "$(cat "$dir/pid")" 2>/dev/null || true
  read -r fresh warm start < "$dir/start"
  rc=$(cat "$dir/rc" 2>/dev/null || echo 1)
  echo "== $name (waited $((SECONDS - waited)) s for it)"
  cat "$dir/log"
  _stage_record "$name" "$fresh" "$warm" "$(($(cat "$dir/end" 2>/dev/null || echo "$SECONDS") - start))" \
    "$(cat "$dir/cpu" 2>/dev/null || echo 0)" "$rc" bg
  return "$rc"
}

# stages_report: the table, the total and the budget; on exit of the script that started
# the table.
stages_report() {
  local rc=$?
  [ "${STAGES_OWNER:-}" = "$$" ] || return "$rc"
  local total=$((SECONDS - STAGES_T0)) budget
  budget=$STAGES_BUDGET_WARM
  [ "$STAGES_KIND" = fresh ] && budget=$STAGES_BUDGET_FRESH
  echo
  echo "== CI stages ($STAGES_KIND run; budget $budget s)"
  awk -F'|' -v kind="$STAGES_KIND" '
    BEGIN { printf "%-44s %7s %7s %7s  %s\n", "stage", "wall s", "CPU s", "share", "outcome" }
    {
      share = (kind == "fresh") ? $2 : $3
      note = ($7 == "bg") ? " (background)" : ""
      out = ($6 == 0) ? "passed" : "FAILED (exit " $6 ")"
      over = ($4 > share) ? "  OVER ITS SHARE by " ($4 - share) " s" : ""
      printf "%-44s %7d %7d %7d  %s%s\n", $1 note, $4, $5, share, out, over
    }' "$STAGES_FILE"
  if [ "$total" -gt "$budget" ]; then
    echo "== budget: CI took $total s, over the $STAGES_KIND budget of $budget s (a warning: only a test failure fails CI)"
  else
    echo "== budget: CI took $total s of the $STAGES_KIND budget of $budget s"
  fi
  awk -F'|' -v kind="$STAGES_KIND" '{ share = (kind == "fresh") ? $2 : $3; if ($4 > share) print "== warning: stage \"" $1 "\" took " $4 " s, over its share of " share " s" }' "$STAGES_FILE"
  rm -f "$STAGES_FILE"
  rm -rf "${STAGES_FILE}.d"
  return "$rc"
}

# _stage_timed CPUFILE CMD...: run CMD in a subshell with `set -e` (a shell function's
# failed command stops it), writing the CPU seconds of everything it ran to CPUFILE, and
# return its status with the caller's `set -e` turned off (the caller turns it back on
# once it has the status). It must not be called as the condition of an if, || or &&:
# bash would then ignore `set -e` inside it. The subshell's `times`, on its way out, is
# its own CPU time and that of every process it waited for.
_stage_timed() {
  local cpufile=$1 rc
  shift
  set +e
  ( set -eo pipefail; trap 'times > "$cpufile.t"' EXIT; "$@" )
  rc=$?
  awk '{ for (i = 1; i <= NF; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } } END { printf "%d", t + 0.5 }' \
    "$cpufile.t" > "$cpufile" 2>/dev/null || echo 0 > "$cpufile"
  rm -f "$cpufile.t"
  return "$rc"
}

_stage_dir() { echo "${STAGES_FILE}.d/${1//[^A-Za-z0-9_.-]/_}"; }

_stage_record() {
  printf '%s|%s|%s|%s|%s|%s|%s\n' "$1" "$2" "$3" "$4" "${5:-0}" "$6" "$7" >> "$STAGES_FILE"
}
