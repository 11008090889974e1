#!/usr/bin/env bash
# Cloudcoil's real generator for every integration the corpus holds real inputs for, at every
# version it generates, on a real Dagger v0.21.8 engine (TestCloudcoilRealGenerator in
# internal/realengine with SHIPYARD_CLOUDCOIL_GENERATORS=all): per integration and version,
# gen-repo, every CRD kind checked as a class (models), validate-models, model-ci --python
# 3.13, model-release --dry-run and update-repos --dry-run. The real-engine suite runs only a
# fixed few of these (ciGeneratorCases); run this on demand and before a release. It prepares
# and starts the engine kit as the suite does (.ci/realengine), so stop any engine of the kit
# first. About a minute per step; two cases at a time.
#
#   bash bench/cloudcoil-generators.sh                         every case
#   CASES=keda@2.16.1,kyverno@1.13.4 bash bench/cloudcoil-generators.sh
#   SHIPYARD_UPDATE_MODEL_SHAPES=1 bash bench/cloudcoil-generators.sh   # write the cases'
#       shape fixtures (internal/realengine/testdata/modelshapes) anew, to review and commit
#       when a change to generation is meant; the models step compares with them otherwise
#
# Prints a table: integration, version, each step's result (pass, fail or skip after a failed
# gen-repo) and seconds. The suite's whole log is kept at $LOG (default
# ${TMPDIR:-/tmp}/cloudcoil-generators.log). Exits non-zero when a step failed.
set -euo pipefail
cd "$(dirname "$0")/.."
log=${LOG:-${TMPDIR:-/tmp}/cloudcoil-generators.log}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
bash .ci/realengine prepare >/dev/null
rc=0
SHIPYARD_CLOUDCOIL_GENERATORS=${CASES:-all} REALENGINE_FRESH_CALL=0 REALENGINE_TIMEOUT=${TIMEOUT:-120m} \
  REALENGINE_RUN='^TestCloudcoilRealGenerator$' bash .ci/realengine run > "$log" 2>&1 || rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
bench/cloudcoil-generators-table.sh "$log"
[ "$rc" = 0 ] || echo "the suite failed (exit $rc); its log: $log"
exit "$rc"
