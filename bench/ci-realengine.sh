#!/usr/bin/env bash
# ci on tesk-core's real code on a real Dagger v0.21.8 engine (BenchmarkTeskCoreCI in
# internal/realengine): the wall time of a first ci against its longest job, then a second
# ci after a one-line change in src/, with each job's time in both runs, so the jobs that
# ran again show. It prepares and starts the engine kit as the real-engine suite does
# (.ci/realengine), so stop any engine of the kit first.
#
#   bash bench/ci-realengine.sh
#
# The load average is printed before and after: compare runs made on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bash .ci/realengine prepare >/dev/null
REALENGINE_BENCH='^BenchmarkTeskCoreCI$' bash .ci/realengine run 2>&1 |
  grep -E 'BenchmarkTeskCoreCI|first ci|^\s*\| |ok|FAIL|bench_ci_test' || true
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
