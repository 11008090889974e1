# slowest LOG: the ten slowest tests of a `go test -v` log, top-level and subtests.
#
# awk keeps the first ten lines and reads the rest: with `head -10`, sort is killed by
# SIGPIPE once its output outgrows the pipe, and under pipefail that failed a passing CI
# with exit 141.
slowest() {
  echo "== the suite's ten slowest tests"
  sed -n 's/^ *--- \(PASS\|FAIL\|SKIP\): \([^ ]*\) (\([0-9.]*\)s)$/\3 \2 \1/p' "$1" | sort -rn |
    awk 'NR <= 10 { printf "  %8.1f s  %s%s\n", $1, $2, ($3 == "PASS") ? "" : " (" $3 ")" }'
}
