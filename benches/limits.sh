#!/usr/bin/env bash
# Runs qpor on the hostile inputs of issue 18 and prints, per run, the wall-clock time,
# the peak resident memory, the exit status and the last line of output: every run must
# end within its limit plus 0.5 s, under its memory cap, with exit 3 (a limit) or 2 (a
# clear error), never 101 (panic) or 134 (abort).
#
#   benches/limits.sh [-b QPOR] [-t SECONDS] [GPPP.pnml]
#
# -t is the --time-limit given to each run (default 3). The inputs are written to a
# scratch directory by benches/hostile-inputs.py; with an MCC net (the dev set's
# GPPP-PT-C0001N0000100000.pnml) it also runs that net with its marking × 10 000.
# Every run is killed from outside after 60 s, and shows as exit 137 then.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=3
bench_options "[-b QPOR] [-t SECONDS] [GPPP.pnml]" "$@"
shift "$consumed"
need_qpor
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 "$(dirname "$0")/hostile-inputs.py" "$dir" "$@" >/dev/null
proc=models/proc/philosophers.proc

run() {
    local status secs kb
    # time's own status is the command's, 128 + the signal when one ended it.
    /usr/bin/time -o "$dir/time" -f "%e %M" timeout 60 "$qpor" "$@" >"$dir/stdout" 2>"$dir/stderr" \
        && status=0 || status=$?
    read -r secs kb < <(tail -1 "$dir/time")
    local last
    last=$(cat "$dir/stdout" "$dir/stderr" | grep -v '^\s*$' | tail -1 | cut -c1-90)
    printf '%-70s %6ss %7s MB  exit %-3s %s\n' "qpor ${*//$dir\//}" "$secs" "$((kb / 1024))" "$status" "$last"
}

t=$limit
run check --time-limit 1e20 models/nets/philosophers-5.pnml
run unfold --time-limit 1e19 models/nets/philosophers-5.pnml
run unfold --max-memory 500 "$dir/tokens-4294967295.pnml"
run dot --view prefix --time-limit "$t" "$dir/tokens-4294967295.pnml"
run check --time-limit "$t" "$dir/tokens-4294967295.pnml"
run check --time-limit "$t" "$dir/tokens-100000000.pnml"
run unfold --max-memory 500 --time-limit "$t" "$dir/tokens-100000000.pnml"
[[ -f $dir/gppp-x10000.pnml ]] && run check --time-limit "$t" "$dir/gppp-x10000.pnml"
run check --engine explicit --time-limit "$t" -D N=300 "$proc"
run check --engine explicit --time-limit "$t" "$dir/cycles-4000.pnml"
run check --engine explicit --time-limit "$t" "$dir/cycles-50000.pnml"
for e in auto qpor stubborn lp walk prefix-sat; do
    run check --engine "$e" --time-limit "$t" "$dir/cycles-50000.pnml"
done
run info "$dir/cycles-4000.pnml"
run info "$dir/cycles-50000.pnml"
run check --engine qpor --time-limit "$t" "$dir/cycles-100000.ll_net"
run unfold --time-limit "$t" "$dir/cycles-100000.ll_net"
run reduce "$dir/vars-100000.cnf" --to pes
run reduce "$dir/vars-1000000.cnf" --to net
run convert -D N=60000 "$proc" --to pnml
