#!/usr/bin/env bash
# How soon `qpor check` answers the deadlock question on every net of an MCC directory:
# wall time per net, the time read and reductions took before the engines, and how long
# the answer waited beside the work of the engine that gave it.
#
#   benches/latency.sh [-b QPOR] [-t SECONDS] [-e BASE] DIR [extra check options…]
#
# DIR holds NAME.pnml files and a verdicts.tsv, as for benches/mcc.sh. With -e BASE, a
# second binary (e.g. main before a change) runs on each net right after QPOR, so that
# both see the same machine; the summary then has a line for each.
#
# Prints per net and binary: the published answer, qpor's, the engine that answered, the
# wall time (measured around the process), read_seconds, reduce_seconds, the answering
# engine's own time (end_seconds − start_seconds) and the wait (wall − own: reading,
# reductions, a late start, the process's start and exit), and a mark. Then per binary:
# `decided N, wrong W, median M s, total T s, waited > 0.1 s: K` over the decided nets.
# Needs python3.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=10
choice=
bench_options "[-b QPOR] [-t SECONDS] [-e BASE] DIR [check options…]" "$@"
shift "$consumed"
dir=${1:?usage: $0 [-b QPOR] [-t SECONDS] [-e BASE] DIR [check options…]}
shift
need_qpor
[[ -f $dir/verdicts.tsv ]] || { echo "$dir/verdicts.tsv: missing" >&2; exit 2; }
binaries=("$qpor")
if [[ -n $choice ]]; then
    [[ -x $choice ]] || { echo "$choice: not an executable" >&2; exit 2; }
    binaries+=("$choice")
fi

exec python3 - "$dir" "$limit" "${binaries[@]}" -- "$@" <<'EOF'
import json, os, statistics, subprocess, sys, time

args = sys.argv[1:]
split = args.index("--")
directory, limit, binaries, extra = args[0], args[1], args[2:split], args[split + 1:]
rows = {b: [] for b in binaries}
print(f"{'net':<42} {'binary':<6} {'published':<9} {'answer':<6} {'engine':<14} "
      f"{'wall':>7} {'read':>7} {'reduce':>7} {'own':>7} {'wait':>7}  mark")
for line in open(os.path.join(directory, "verdicts.tsv")):
    fields = line.rstrip("\n").split("\t")
    if fields[0] == "instance":
        continue
    name, published = fields[0], fields[1]
    net = os.path.join(directory, name + ".pnml")
    if not os.path.exists(net):
        print(f"{net}: missing", file=sys.stderr)
        continue
    for k, binary in enumerate(binaries):
        start = time.perf_counter()
        run = subprocess.run([binary, "check", "-q", "--json", "--time-limit", limit, *extra, net],
                             capture_output=True, text=True)
        wall = time.perf_counter() - start
        try:
            report = json.loads(run.stdout)
        except ValueError:
            report = {}
        verdict = report.get("verdict")
        answer = {"deadlock": "TRUE", "no-deadlock": "FALSE"}.get(verdict)
        by = report.get("answered_by") or report.get("engine", "-")
        member = next((e for e in report.get("engines", []) if e["engine"] == by), None)
        # A binary from before the members' times were reported: the member's own seconds.
        if member and "start_seconds" in member and "end_seconds" in member:
            own = member["end_seconds"] - member["start_seconds"]
        elif member:
            own = member.get("stats", {}).get("seconds", 0.0)
        else:
            own = report.get("stats", {}).get("seconds", 0.0)
        mark = "-" if answer is None else ("ok" if answer == published else "WRONG")
        rows[binary].append((answer is not None, mark == "WRONG", wall, wall - own))
        print(f"{name:<42} {'base' if k else 'new':<6} {published:<9} {answer or '?':<6} {by:<14} "
              f"{wall:7.3f} {report.get('read_seconds', 0):7.3f} {report.get('reduce_seconds', 0):7.3f} "
              f"{own:7.3f} {wall - own:7.3f}  {mark}", flush=True)
for k, binary in enumerate(binaries):
    decided = [r for r in rows[binary] if r[0]]
    walls = [r[2] for r in decided]
    waited = sum(1 for r in decided if r[3] > 0.1)
    wrong = sum(1 for r in decided if r[1])
    median = statistics.median(walls) if walls else 0.0
    print(f"{'base' if k else 'new'} ({binary}): decided {len(decided)}, wrong {wrong}, "
          f"median {median:.3f} s, total {sum(walls):.2f} s, waited > 0.1 s: {waited}")
EOF
