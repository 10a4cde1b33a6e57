#!/usr/bin/env bash
# Asks every net of an MCC directory its contest reachability formulas and compares the
# answers with the published ones.
#
#   benches/reachability.sh [-b QPOR] [-t SECONDS] [-e EXAMS] DIR [extra check options…]
#
# DIR holds NAME.pnml files, properties/NAME/<Examination>.xml and an answers.tsv
# (columns: instance, examination, property, answer), as the development set
# mcc2023-dev and models/mcc2023 do. EXAMS is a comma-separated list (default:
# ReachabilityCardinality,ReachabilityFireability). Runs
# `qpor check NET --properties FILE --json` once per net and examination, with the time
# limit for the whole file, and prints per file: the properties with a published answer,
# how many qpor decided, how many of those are wrong, the seconds, per engine the
# properties it decided, and the undecided ones by what deciding them takes (`need
# witness`: a true EF or a false AG; `need proof`: the others); then the totals. Extra options (e.g. `--engine explicit`) go to
# every check. With VIA=mcc in the environment the nets are asked through `qpor mcc`
# instead, as the contest runs it (a scratch contest directory per net and examination;
# the engine of each answer read from its TECHNIQUES; extra options go to `qpor mcc`).
# Needs python3 to read the JSON reports.
set -euo pipefail

source "$(dirname "$0")/options.sh"
limit=30
choice=ReachabilityCardinality,ReachabilityFireability
bench_options "[-b QPOR] [-t SECONDS] [-e EXAMS] DIR [check options…]" "$@"
shift "$consumed"
dir=${1:?usage: $0 [-b QPOR] [-t SECONDS] [-e EXAMS] DIR [check options…]}
shift
need_qpor
[[ -f $dir/answers.tsv ]] || { echo "$dir/answers.tsv: missing" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
IFS=, read -r -a exams <<< "$choice"
for net in "$dir"/*.pnml; do
    name=$(basename "$net" .pnml)
    for exam in "${exams[@]}"; do
        file=$dir/properties/$name/$exam.xml
        [[ -f $file ]] || continue
        start=$(date +%s.%N)
        if [[ ${VIA:-check} == mcc ]]; then
            contest=$scratch/contest
            rm -rf "$contest" && mkdir "$contest"
            ln -s "$(realpath "$net")" "$contest/model.pnml"
            ln -s "$(realpath "$file")" "$contest/$exam.xml"
            "$qpor" mcc -q --examination "$exam" --time-limit "$limit" "$@" "$contest" \
                > "$scratch/$name.$exam.mcc" 2> "$scratch/$name.$exam.err" || true
        else
            "$qpor" check "$net" --properties "$file" --json -q --time-limit "$limit" "$@" \
                > "$scratch/$name.$exam.json" 2> "$scratch/$name.$exam.err" || true
        fi
        end=$(date +%s.%N)
        echo "$name	$exam	$(echo "$end - $start" | bc)" >> "$scratch/times.tsv"
    done
done

python3 - "$dir/answers.tsv" "$scratch" "$dir" <<'EOF'
import json, os, sys, collections
import xml.etree.ElementTree as ET
answers_path, scratch, models = sys.argv[1], sys.argv[2], sys.argv[3]

def quantifiers(name, exam):
    """Per property id of the file: True for EF (exists-path), False for AG."""
    out = {}
    try:
        root = ET.parse(f"{models}/properties/{name}/{exam}.xml").getroot()
    except (OSError, ET.ParseError):
        return out
    for prop in root.iter():
        if not prop.tag.endswith("property"):
            continue
        ident = next((c.text for c in prop if c.tag.endswith("id")), None)
        formula = next((c for c in prop if c.tag.endswith("formula")), None)
        if ident and formula is not None and len(formula):
            out[ident] = formula[0].tag.endswith("exists-path")
    return out

published = {}
for line in open(answers_path):
    inst, exam, prop, answer = line.rstrip("\n").split("\t")
    if answer in ("TRUE", "FALSE"):
        published[prop] = answer == "TRUE"
total = collections.Counter()
by_engine = collections.Counter()
print(f"{'net':<40} {'exam':<24} {'asked':>5} {'decided':>7} {'wrong':>5} {'seconds':>8}  engines")
for line in open(f"{scratch}/times.tsv"):
    name, exam, seconds = line.split("\t")
    seconds = float(seconds)
    ef = quantifiers(name, exam)
    try:
        if os.path.exists(f"{scratch}/{name}.{exam}.mcc"):
            # FORMULA <id> TRUE|FALSE TECHNIQUES <first> …; no line: unknown.
            lines = [l.split() for l in open(f"{scratch}/{name}.{exam}.mcc")]
            found = {l[1]: l for l in lines if len(l) >= 5 and l[0] == "FORMULA"}
            engine_of = {"RANDOM_WALK": "walk", "STATE_EQUATION": "lp", "NET_UNFOLDING": "prefix-sat"}
            props = []
            for ident in ef:
                l = found.get(ident)
                if l is None:
                    props.append({"id": ident, "value": None})
                    continue
                engine = engine_of.get(l[4], "stubborn" if "STUBBORN_SETS" in l else "explicit")
                props.append({"id": ident, "value": l[2] == "TRUE", "decided_by": engine})
        else:
            report = json.load(open(f"{scratch}/{name}.{exam}.json"))
            props = report.get("properties", [])
    except (ValueError, OSError):
        props = []
        err = open(f"{scratch}/{name}.{exam}.err").read().strip().splitlines()
        print(f"{name:<40} {exam:<24} error: {err[-1] if err else 'no report'}")
    asked = decided = wrong = 0
    engines = collections.Counter()
    for p in props:
        if p["id"] not in published:
            continue
        asked += 1
        if p.get("value") is None:
            if p["id"] in ef:
                witness = ef[p["id"]] == published[p["id"]]
                engines["need witness" if witness else "need proof"] += 1
                total["need witness" if witness else "need proof"] += 1
            continue
        decided += 1
        engines[p.get("decided_by")] += 1
        if p["value"] != published[p["id"]]:
            wrong += 1
            print(f"WRONG {p['id']}: {p['value']} (published {published[p['id']]})")
    total.update(asked=asked, decided=decided, wrong=wrong, files=1)
    total["seconds"] += seconds
    by_engine.update({e: n for e, n in engines.items() if not e.startswith("need")})
    shown = " ".join(f"{e}:{n}" for e, n in sorted(engines.items()))
    print(f"{name:<40} {exam:<24} {asked:>5} {decided:>7} {wrong:>5} {seconds:>8.2f}  {shown}")
share = 100 * total["decided"] / max(total["asked"], 1)
print(f"files {total['files']}, asked {total['asked']}, decided {total['decided']} ({share:.1f} %), "
      f"wrong {total['wrong']}, seconds {total['seconds']:.1f}")
print("by engine: " + " ".join(f"{e}:{n}" for e, n in sorted(by_engine.items())))
print(f"undecided: need witness {total['need witness']}, need proof {total['need proof']}")
EOF
