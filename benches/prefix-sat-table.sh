#!/usr/bin/env bash
# The prefix + SAT check beside the stubborn search and QPOR, one markdown row per model:
# prefix events (cutoffs), SAT variables and clauses, prefix and SAT milliseconds, and each
# engine's verdict and seconds.
#
#   benches/prefix-sat-table.sh [-b QPOR] [-t SECONDS] MODEL…
#
# Needs python3 to read the JSON reports.
set -euo pipefail

qpor=target/release/qpor
limit=10
while getopts "b:t:" opt; do
    case $opt in
        b) qpor=$OPTARG ;;
        t) limit=$OPTARG ;;
        *) echo "usage: $0 [-b QPOR] [-t SECONDS] MODEL…" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ -x $qpor ]] || { echo "$qpor: not built (cargo build --release)" >&2; exit 2; }

# verdict (no answer: –) and seconds of one engine, then its stats as JSON.
run() {
    "$qpor" check -q --json --engine "$1" --time-limit "$limit" "$2" 2>/dev/null | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("error - {}")
    sys.exit()
short = {"deadlock": "deadlock", "no-deadlock": "no deadlock"}.get(r["verdict"], "–")
print(short.replace(" ", "_"), "%.2f" % r["stats"]["seconds"], json.dumps(r["stats"]))'
}

echo "| model | events (cutoffs) | variables | clauses | prefix ms | SAT ms | prefix-sat | s | stubborn | s | qpor | s |"
echo "|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|---:|"
for model in "$@"; do
    read -r ps ps_s ps_stats < <(run prefix-sat "$model")
    read -r st st_s _ < <(run stubborn "$model")
    read -r qp qp_s _ < <(run qpor "$model")
    sizes=$(printf '%s' "$ps_stats" | python3 -c '
import json, sys
s = json.load(sys.stdin)
g = lambda k: s.get(k, "-")
print("%s (%s) | %s | %s | %s | %s" % (g("events"), g("cutoffs"), g("variables"), g("clauses"), g("prefix_ms"), g("sat_ms")))')
    name=$(basename "$model")
    echo "| ${name%.*} | $sizes | ${ps//_/ } | $ps_s | ${st//_/ } | $st_s | ${qp//_/ } | $qp_s |"
done
