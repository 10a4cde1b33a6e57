#!/usr/bin/env bash
# Runs `qpor check` on every net of a directory of MCC nets with published answers and
# compares the verdicts.
#
#   benches/mcc.sh [-b QPOR] [-t SECONDS] [-e OneSafe] DIR [extra check options…]
#
# DIR holds NAME.pnml files and a verdicts.tsv (columns: instance, deadlock, onesafe,
# bytes; deadlock TRUE when a deadlock is reachable), as models/mcc2023/ does (that
# folder holds 19 nets; larger sets of MCC nets with verdicts are not shipped).
# Prints per net: the published answer, qpor's answer (TRUE: a deadlock is reachable),
# the engine (or, for OneSafe, the first technique) that answered, the
# wall-clock time, what the engine counted (states stored by explicit and stubborn,
# maximal configurations by qpor, steps by walk, prefix events by prefix-sat, solver
# calls by lp; for auto, the
# answering engine's; when
# undecided, as far as it got), and a mark (ok, WRONG, -), then one line
# `decided N, wrong W, undecided U, late L` (late: runs that ended more than 0.5 s past
# the limit). Needs python3 to read the JSON reports.
#
# With -e OneSafe it asks the OneSafe examination instead, through `qpor mcc` in a
# scratch contest directory per net, and compares with the onesafe column.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=10
choice=ReachabilityDeadlock
bench_options "[-b QPOR] [-t SECONDS] DIR [check options…]" "$@"
shift "$consumed"
exam=$choice
dir=${1:?usage: $0 [-b QPOR] [-t SECONDS] DIR [check options…]}
shift
need_qpor
[[ -f $dir/verdicts.tsv ]] || { echo "$dir/verdicts.tsv: missing" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
decided=0 wrong=0 undecided=0 late=0
printf '%-42s %-9s %-13s %-9s %8s %10s  %s\n' net published answer engine seconds work mark
while IFS=$'\t' read -r name deadlock onesafe _bytes; do
    [[ $name == instance ]] && continue
    net=$dir/$name.pnml
    [[ -f $net ]] || { echo "$net: missing" >&2; continue; }
    start=$(date +%s.%N)
    if [[ $exam == OneSafe ]]; then
        published=$onesafe
        ln -sf "$(realpath "$net")" "$scratch/model.pnml"
        line=$("$qpor" mcc -q --examination OneSafe --time-limit "$limit" "$@" "$scratch" 2>/dev/null) || true
        # FORMULA <id> TRUE|FALSE TECHNIQUES <first technique> …
        read -r _ _ value _ engine _ <<< "$line"
        work=-
        case $value in
            TRUE) verdict=no-deadlock ;;
            FALSE) verdict=deadlock ;;
            *) verdict=inconclusive ;;
        esac
    else
        published=$deadlock
        json=$("$qpor" check -q --json --time-limit "$limit" "$@" "$net" 2>/dev/null) || true
        read -r verdict engine work < <(printf '%s' "$json" | python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    print("error -"); sys.exit()
by = r.get("answered_by") or r["engine"]
stats = next((e.get("stats", {}) for e in r.get("engines", []) if e["engine"] == by), r.get("stats", {}))
# What the engine counted: states stored, maximal configurations, steps walked, or
# solver calls of the state equation.
work = next((stats[k] for k in ("states", "max_configurations", "steps", "events", "solver_calls") if k in stats), "-")
print(r["verdict"], by, work)
')
    fi
    end=$(date +%s.%N)
    seconds=$(python3 -c "print(f'{$end - $start:.2f}')")
    if python3 -c "import sys; sys.exit(0 if $end - $start > $limit + 0.5 else 1)"; then
        late=$((late + 1))
    fi
    # The answer to the examination's question: deadlock reachable / every marking safe.
    case $exam:$verdict in
        ReachabilityDeadlock:deadlock | OneSafe:no-deadlock) answer=TRUE ;;
        ReachabilityDeadlock:no-deadlock | OneSafe:deadlock) answer=FALSE ;;
        *) answer= ;;
    esac
    if [[ -z $answer ]]; then
        mark=- undecided=$((undecided + 1)) engine=-
    elif [[ $answer == "$published" ]]; then
        mark=ok decided=$((decided + 1))
    else
        mark=WRONG wrong=$((wrong + 1)) decided=$((decided + 1))
    fi
    printf '%-42s %-9s %-13s %-9s %8s %10s  %s\n' "$name" "$published" "${answer:-?}" "$engine" "$seconds" "$work" "$mark"
done < "$dir/verdicts.tsv"
echo "decided $decided, wrong $wrong, undecided $undecided, late $late"
