#!/usr/bin/env bash
# Asks every net of an MCC directory the contest's questions about the whole net and its
# bounds through `qpor mcc`, and compares the answers with the published ones.
#
#   benches/net-questions.sh [-b QPOR] [-t SECONDS] [-e EXAMS] DIR [extra mcc options…]
#
# DIR holds NAME.pnml files, properties/NAME/UpperBounds.xml and an answers.tsv (columns:
# instance, examination, property, answer), as the development set mcc2023-dev does.
# EXAMS is a comma-separated list (default: UpperBounds,QuasiLiveness,StableMarking,
# Liveness). Each net and examination runs once, in a scratch contest directory, with the
# time limit for the whole examination. Prints one line per net and examination (the
# published and the given answers of the one-answer examinations, the decided/asked
# counts of UpperBounds, the seconds, the first technique), then per examination: the
# answers published, decided, wrong, and the total and median seconds.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=30
choice=UpperBounds,QuasiLiveness,StableMarking,Liveness
bench_options "[-b QPOR] [-t SECONDS] [-e EXAMS] DIR [mcc options…]" "$@"
shift "$consumed"
dir=${1:?usage: $0 [-b QPOR] [-t SECONDS] [-e EXAMS] DIR [mcc options…]}
shift
need_qpor
[[ -f $dir/answers.tsv ]] || { echo "$dir/answers.tsv: missing" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
IFS=, read -r -a exams <<< "$choice"
for net in "$dir"/*.pnml; do
    name=$(basename "$net" .pnml)
    for exam in "${exams[@]}"; do
        contest=$scratch/contest
        rm -rf "$contest" && mkdir "$contest"
        ln -s "$(realpath "$net")" "$contest/model.pnml"
        file=$dir/properties/$name/$exam.xml
        if [[ $exam == UpperBounds ]]; then
            [[ -f $file ]] || continue
            ln -s "$(realpath "$file")" "$contest/$exam.xml"
        fi
        start=$(date +%s.%N)
        "$qpor" mcc -q --examination "$exam" --time-limit "$limit" "$@" "$contest" \
            > "$scratch/$name.$exam.mcc" 2> "$scratch/$name.$exam.err" || true
        end=$(date +%s.%N)
        echo "$name	$exam	$(echo "$end - $start" | bc)" >> "$scratch/times.tsv"
    done
done

python3 - "$dir/answers.tsv" "$scratch" <<'EOF'
import os, sys, collections, statistics
answers_path, scratch = sys.argv[1], sys.argv[2]
published = collections.defaultdict(dict)
for line in open(answers_path):
    inst, exam, prop, answer = line.rstrip("\n").split("\t")
    if inst != "instance" and answer != "?":
        published[(inst, exam)][prop] = answer
totals = collections.defaultdict(lambda: [0, 0, 0, []])  # asked, decided, wrong, seconds
for line in open(f"{scratch}/times.tsv"):
    name, exam, seconds = line.rstrip("\n").split("\t")
    seconds = float(seconds)
    given, technique = {}, "-"
    path = f"{scratch}/{name}.{exam}.mcc"
    for out in open(path) if os.path.exists(path) else []:
        parts = out.split()
        if len(parts) >= 3 and parts[0] == "FORMULA" and parts[2] != "CANNOT_COMPUTE":
            given[parts[1]] = parts[2]
            if len(parts) >= 5:
                technique = parts[4]
    truth = published.get((name, exam), {})
    t = totals[exam]
    t[3].append(seconds)
    if exam == "UpperBounds":
        decided = sum(1 for p in truth if p in given)
        wrong = sum(1 for p in truth if p in given and given[p] != truth[p])
        t[0] += len(truth); t[1] += decided; t[2] += wrong
        mark = "WRONG" if wrong else ("ok" if decided == len(truth) else "-")
        print(f"{name:42} {exam:14} {decided:3}/{len(truth):<3} {seconds:7.2f} {technique:18} {mark}")
    else:
        answer = next(iter(given.values()), "?")
        want = next(iter(truth.values()), None)
        if want is None:
            print(f"{name:42} {exam:14} {'?':5} {answer:5} {seconds:7.2f} {technique:18} (no published answer)")
            continue
        t[0] += 1
        if answer != "?":
            t[1] += 1
            t[2] += answer != want
        mark = "WRONG" if answer not in ("?", want) else ("ok" if answer == want else "-")
        print(f"{name:42} {exam:14} {want:5} {answer:5} {seconds:7.2f} {technique:18} {mark}")
print()
for exam, (asked, decided, wrong, secs) in totals.items():
    what = "properties" if exam == "UpperBounds" else "nets"
    share = 100.0 * decided / asked if asked else 0.0
    print(f"{exam}: {decided} of {asked} {what} decided ({share:.1f} %), {wrong} wrong, "
          f"{sum(secs):.0f} s in all, median {statistics.median(secs):.2f} s")
EOF
