#!/usr/bin/env bash
# Runs several engines of `qpor check` on each model given and prints one Markdown table
# row per model: per engine the verdict, what it counted and its time.
#
#   benches/engines-table.sh [-b QPOR] [-t SECONDS] [-e "ENGINE …"] MODEL… [-- check options…]
#
# Defaults: target/release/qpor, 30 s per run, engines "stubborn explicit qpor". What an
# engine counted: states stored (explicit, stubborn), maximal configurations (qpor),
# steps (walk). Needs python3 to read the JSON reports.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=30
choice="stubborn explicit qpor"
bench_options "[-b QPOR] [-t SECONDS] [-e ENGINES] MODEL… [-- check options…]" "$@"
shift "$consumed"
engines=$choice
models=()
while [[ $# -gt 0 && $1 != -- ]]; do
    models+=("$1")
    shift
done
[[ $# -gt 0 ]] && shift
need_qpor

header="| model |"
rule="|---|"
for e in $engines; do
    header+=" $e verdict | $e count | $e s |"
    rule+="---|---:|---:|"
done
echo "$header"
echo "$rule"
for model in "${models[@]}"; do
    row="| $(basename "$model") |"
    for e in $engines; do
        json=$("$qpor" check -q --json --engine "$e" --time-limit "$limit" "$@" "$model" 2>/dev/null) || true
        row+=$(printf '%s' "$json" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print(" error | - | - |"); sys.exit()
s = r["stats"]
count = next((s[k] for k in ("states", "max_configurations", "steps") if k in s), "-")
print(" %s | %s | %.3f |" % (r["verdict"], count, s["seconds"]))
')
    done
    echo "$row"
done
