#!/usr/bin/env bash
# The table of bench/cloudcoil-generators.sh from a real-engine suite's log (file or stdin):
# one row per integration and version, in order, a column per step, each "result seconds",
# from the CLOUDCOIL-GENERATOR-STEP lines TestCloudcoilRealGenerator logs.
set -euo pipefail
steps="gen-repo models validate-models model-ci model-release update-repos"
printf '| integration | version |'; for s in $steps; do printf ' %s |' "$s"; done; echo
printf '|---|---|'; for s in $steps; do printf -- '---|'; done; echo
grep -ho 'CLOUDCOIL-GENERATOR-STEP|[^[:space:]]*' "${1:--}" | awk -F'|' -v steps="$steps" '
  BEGIN { n = split(steps, step, " ") }
  { key = $2 "|" $3; seen[key] = 1; cell[key, $4] = $5 " " $6 "s" }
  END {
    for (key in seen) {
      split(key, k, "|"); printf "| %s | %s |", k[1], k[2]
      for (i = 1; i <= n; i++) printf " %s |", ((key, step[i]) in cell ? cell[key, step[i]] : "-")
      print ""
    }
  }' | sort -t'|' -k2,2 -k3,3V
