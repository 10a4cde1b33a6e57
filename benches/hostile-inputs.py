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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pnml_writer import pnml  # noqa: E402


def tokens(n):
    return pnml(f"tokens-{n}", [("p", n)], [("t", ["p"], ["p"])])


def cycles(n):
    places = [(f"p{i}", 1) for i in range(n)] + [(f"q{i}", 0) for i in range(n)]
    trans = [(f"t{i}", [f"p{i}"], [f"q{i}"]) for i in range(n)]
    trans += [(f"u{i}", [f"q{i}"], [f"p{i}"]) for i in range(n)]
    return pnml(f"cycles-{n}", places, trans)


def cycles_ll_net(n):
    """The PEP low-level format: places numbered from 1, transitions from 1, then the
    arcs transition→place (TP, `t<p`) and place→transition (PT, `p>t`). Cycle i is places
    p_i = 2i+1, q_i = 2i+2 and transitions t_i = 2i+1 (p_i to q_i), u_i = 2i+2 (back)."""
    lines = ["PEP", "PTNet", "FORMAT_N", "PL"]
    lines += [f'"{x}{i}"' + ("M1" if x == "p" else "") for i in range(n) for x in "pq"]
    lines.append("TR")
    lines += [f'"{x}{i}"' for i in range(n) for x in "tu"]
    lines.append("TP")
    lines += [f"{2 * i + 1 + k}<{2 * i + 2 - k}" for i in range(n) for k in (0, 1)]
    lines.append("PT")
    lines += [f"{2 * i + 1 + k}>{2 * i + 1 + k}" for i in range(n) for k in (0, 1)]
    return "\n".join(lines) + "\n"


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
