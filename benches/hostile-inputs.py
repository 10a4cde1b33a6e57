#!/usr/bin/env python3
"""Writes the big and hostile inputs of issue 18, for the limit measurements in
benches/limits.sh and for trying qpor by hand:

    python3 benches/hostile-inputs.py OUTDIR [GPPP.pnml]

OUTDIR/tokens-4294967295.pnml, tokens-100000000.pnml
    one place marked with that many tokens and one transition that takes one and gives it
    back (the token unfolding makes a condition per token).
OUTDIR/cycles-4000.pnml, cycles-50000.pnml
    that many independent two-place cycles, one token each (a wide state, 2^N markings).
OUTDIR/cycles-100000.ll_net
    the same in the PEP format (200 000 places).
OUTDIR/vars-100000.cnf, vars-1000000.cnf
    a DIMACS header declaring that many variables, and one short clause.
OUTDIR/gppp-x10000.pnml
    only when an MCC net is given (e.g. GPPP-PT-C0001N0000100000.pnml): its initial
    marking multiplied by 10 000.
"""

import os
import re
import sys


def pnml(name, places, transitions):
    """places: [(id, tokens)]; transitions: [(id, [inputs], [outputs])]."""
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">',
        f'<net id="{name}" type="http://www.pnml.org/version-2009/grammar/ptnet"><page id="page">',
    ]
    for p, m in places:
        out.append(f'<place id="{p}"><initialMarking><text>{m}</text></initialMarking></place>')
    arcs = 0
    for t, pre, post in transitions:
        out.append(f'<transition id="{t}"/>')
        for p in pre:
            out.append(f'<arc id="a{arcs}" source="{p}" target="{t}"/>')
            arcs += 1
        for p in post:
            out.append(f'<arc id="a{arcs}" source="{t}" target="{p}"/>')
            arcs += 1
    out.append("</page></net></pnml>")
    return "\n".join(out) + "\n"


def tokens(n):
    return pnml(f"tokens-{n}", [("p", n)], [("t", ["p"], ["p"])])


def cycles(n):
    places = [(f"p{i}", 1) for i in range(n)] + [(f"q{i}", 0) for i in range(n)]
    trans = [(f"t{i}", [f"p{i}"], [f"q{i}"]) for i in range(n)]
    trans += [(f"u{i}", [f"q{i}"], [f"p{i}"]) for i in range(n)]
    return pnml(f"cycles-{n}", places, trans)


def cycles_ll_net(n):
    """The PEP low-level format: places numbered from 1, transitions from 1, then the
    arcs transition→place (TP) and place→transition (PT)."""
    out = ["PEP", "PTNet", "FORMAT_N", "PL"]
    for i in range(n):
        out.append(f'"p{i}"M1')
        out.append(f'"q{i}"')
    out.append("TR")
    for i in range(n):
        out.append(f'"t{i}"')
        out.append(f'"u{i}"')
    out.append("TP")
    for i in range(n):
        out.append(f"{2 * i + 1}<{2 * i + 2}")
        out.append(f"{2 * i + 2}<{2 * i + 1}")
    out.append("PT")
    for i in range(n):
        out.append(f"{2 * i + 1}>{2 * i + 1}")
        out.append(f"{2 * i + 2}>{2 * i + 2}")
    return "\n".join(out) + "\n"


def dimacs(n):
    return f"c {n} declared variables, one clause\np cnf {n} 1\n1 -2 0\n"


def scaled(text, factor):
    """The PNML `text` with every initial marking multiplied by `factor`."""
    def times(m):
        return m.group(1) + str(int(m.group(2)) * factor) + m.group(3)

    return re.sub(
        r"(<initialMarking>\s*<text>)(\d+)(</text>)", times, text
    )


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    files = {
        "tokens-4294967295.pnml": tokens(4294967295),
        "tokens-100000000.pnml": tokens(100000000),
        "cycles-4000.pnml": cycles(4000),
        "cycles-50000.pnml": cycles(50000),
        "cycles-100000.ll_net": cycles_ll_net(100000),
        "vars-100000.cnf": dimacs(100000),
        "vars-1000000.cnf": dimacs(1000000),
    }
    if len(sys.argv) == 3:
        with open(sys.argv[2]) as f:
            files["gppp-x10000.pnml"] = scaled(f.read(), 10000)
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
        print(os.path.join(out, name))


if __name__ == "__main__":
    main()
