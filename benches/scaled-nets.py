#!/usr/bin/env python3
"""Writes MCC-style Philosophers-PT-N and Dekker-PT-N nets at any size, for the prefix-sat
measurements at sizes the contest ships but the repository does not (the structure is that
of the shipped Philosophers-PT-000005/000010 and Dekker-PT-010 in models/mcc2023/).

    python3 benches/scaled-nets.py OUTDIR N…
writes OUTDIR/Philosophers-PT-N.pnml and OUTDIR/Dekker-PT-N.pnml for each N.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pnml_writer import pnml  # noqa: E402


def philosophers(n):
    """Each philosopher takes either fork first (FF1a/FF1b), then the other (FF2a/FF2b),
    eats and puts both back: deadlocks when all hold their left or all their right fork."""
    places = [(f"Think_{i}", 1) for i in range(1, n + 1)] + [(f"Fork_{i}", 1) for i in range(1, n + 1)]
    places += [(f"{k}_{i}", 0) for k in ("Catch1", "Catch2", "Eat") for i in range(1, n + 1)]
    trans = []
    for i in range(1, n + 1):
        left = n if i == 1 else i - 1
        trans += [
            (f"FF1a_{i}", [f"Think_{i}", f"Fork_{left}"], [f"Catch1_{i}"]),
            (f"FF1b_{i}", [f"Think_{i}", f"Fork_{i}"], [f"Catch2_{i}"]),
            (f"FF2a_{i}", [f"Catch1_{i}", f"Fork_{i}"], [f"Eat_{i}"]),
            (f"FF2b_{i}", [f"Catch2_{i}", f"Fork_{left}"], [f"Eat_{i}"]),
            (f"End_{i}", [f"Eat_{i}"], [f"Think_{i}", f"Fork_{i}", f"Fork_{left}"]),
        ]
    return pnml(f"Philosophers-PT-{n:06d}", places, trans)


def dekker(n):
    """Dekker's protocol generalised to n processes: try raises the flag, enter needs every
    other flag down (read arcs as loops), withdraw lowers it when another is up."""
    places = []
    for i in range(n):
        places += [(f"flag_0_{i}", 1), (f"flag_1_{i}", 0), (f"p0_{i}", 1), (f"p1_{i}", 0), (f"p3_{i}", 0)]
    trans = []
    for i in range(n):
        others = [j for j in range(n) if j != i]
        trans.append((f"try_{i}", [f"flag_0_{i}", f"p0_{i}"], [f"flag_1_{i}", f"p1_{i}"]))
        trans.append((f"enter_{i}", [f"p1_{i}"] + [f"flag_0_{j}" for j in others],
                      [f"p3_{i}"] + [f"flag_0_{j}" for j in others]))
        for j in others:
            trans.append((f"withdraw_{i}_{j}", [f"flag_1_{i}", f"flag_1_{j}", f"p1_{i}"],
                          [f"flag_0_{i}", f"flag_1_{j}", f"p0_{i}"]))
        trans.append((f"exit_{i}", [f"flag_1_{i}", f"p3_{i}"], [f"flag_0_{i}", f"p0_{i}"]))
    return pnml(f"Dekker-PT-{n:03d}", places, trans)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n in map(int, sys.argv[2:]):
        for name, text in ((f"Philosophers-PT-{n:06d}", philosophers(n)), (f"Dekker-PT-{n:03d}", dekker(n))):
            with open(os.path.join(out, name + ".pnml"), "w") as f:
                f.write(text)


if __name__ == "__main__":
    main()
