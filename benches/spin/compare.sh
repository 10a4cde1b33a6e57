#!/usr/bin/env bash
# SPIN (partial-order reduction on, its default) against qpor on the same programs, in one
# run: states stored / maximal configurations, time, peak memory. Needs `spin` and `gcc`
# (Debian package `spin`) and a release build of qpor (`cargo build --release`).
# Usage: benches/spin/compare.sh [QPOR_BINARY]   (prints a Markdown table)
# QPOR_SPIN_LIST replaces the list of runs at the end (same line format).
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
qpor="${1:-$root/target/release/qpor}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

spin_run() { # model define value
  cp "$root/benches/spin/$1.pml" "$work/m.pml"
  (cd "$work" && spin -D"$2=$3" -a m.pml >/dev/null && gcc -O2 -DSAFETY -DMEMLIM=8000 -o pan pan.c \
    && /usr/bin/time -f "TIME %e %M" ./pan -m10000000 >out 2>&1 || true)
  local states errors t
  states=$(grep -o '[0-9]* states, stored' "$work/out" | head -1 | cut -d' ' -f1)
  errors=$(grep -o 'errors: [0-9]*' "$work/out" | head -1 | cut -d' ' -f2)
  t=$(grep '^TIME' "$work/out" | cut -d' ' -f2-3)
  echo "${states:-?} ${errors:-?} $t"
}

qpor_run() { # model define value extra-args
  /usr/bin/time -f "TIME %e %M" "$qpor" check "$root/models/proc/$1.proc" -D "$2=$3" $4 --json -q \
    >"$work/q.json" 2>"$work/q.err" || true
  local configs verdict t
  configs=$(grep -o '"max_configurations":[0-9]*' "$work/q.json" | cut -d: -f2)
  verdict=$(grep -o '"verdict":"[a-z-]*"' "$work/q.json" | cut -d'"' -f4)
  t=$(grep '^TIME' "$work/q.err" | cut -d' ' -f2-3)
  echo "${configs:-?} $verdict $t"
}

echo "| model | SPIN states | SPIN errors | SPIN s | SPIN MB | qpor configurations | qpor verdict | qpor s | qpor MB |"
echo "|---|---|---|---|---|---|---|---|---|"
# Each line: model, parameter, qpor's extra arguments (comma-separated, `-` for none), values.
while read -r model def extra values; do
  [ "$extra" = "-" ] && extra=""
  for v in $values; do
    read -r ss se st sm < <(spin_run "$model" "$def" "$v")
    read -r qc qv qt qm < <(qpor_run "$model" "$def" "$v" "${extra//,/ }")
    echo "| $model($def=$v) | $ss | $se | $st | $((${sm:-0} / 1024)) | $qc | $qv | $qt | $((${qm:-0} / 1024)) |"
  done
done <<LIST
${QPOR_SPIN_LIST:-ssbexp K --cutoff,none 4 6 8
mpat K - 3 4 5 6 7
pi T - 4 5 6 7 8 9
philosophers N - 5 8 10 12 14}
LIST
