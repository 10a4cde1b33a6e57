#!/usr/bin/env python3
"""Generates qpor's own example nets (PNML and ll_net) and their known answers.

Run from the repository root: `python3 models/generate.py`. It writes models/nets/*.pnml,
models/nets/*.ll_net and models/nets/answers.tsv. The answers (reachable markings, dead
markings) come from a small breadth-first search written here, independently of qpor's
Rust code, so the tests that compare qpor's explicit engine with answers.tsv compare two
implementations.
"""

import os
from collections import deque
from xml.sax.saxutils import escape

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nets")


class Net:
    def __init__(self, name, description):
        self.name = name
        self.description = description
        self.places = []  # (name, initial)
        self.transitions = []  # (name, pre dict, post dict)

    def place(self, name, initial=0):
        self.places.append((name, initial))
        return len(self.places) - 1

    def trans(self, name, pre, post):
        idx = {n: i for i, (n, _) in enumerate(self.places)}
        pre_d, post_d = {}, {}
        for p in pre:
            w = 1
            if isinstance(p, tuple):
                p, w = p
            pre_d[idx[p]] = pre_d.get(idx[p], 0) + w
        for p in post:
            w = 1
            if isinstance(p, tuple):
                p, w = p
            post_d[idx[p]] = post_d.get(idx[p], 0) + w
        self.transitions.append((name, pre_d, post_d))

    def explore(self):
        init = tuple(m for _, m in self.places)
        seen = {init}
        queue = deque([init])
        dead = []
        while queue:
            m = queue.popleft()
            enabled = False
            for _, pre, post in self.transitions:
                if all(m[p] >= w for p, w in pre.items()):
                    enabled = True
                    n = list(m)
                    for p, w in pre.items():
                        n[p] -= w
                    for p, w in post.items():
                        n[p] += w
                    n = tuple(n)
                    if n not in seen:
                        seen.add(n)
                        queue.append(n)
            if not enabled:
                dead.append(m)
        return len(seen), dead

    def pnml(self):
        lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<pnml xmlns="http://www.pnml.org/version-2009/grammar/pnml">',
                 f'  <net id="{self.name}" type="http://www.pnml.org/version-2009/grammar/ptnet">',
                 f'    <name><text>{escape(self.name)}</text></name>',
                 '    <page id="page0">']
        for i, (n, m) in enumerate(self.places):
            lines.append(f'      <place id="p{i}"><name><text>{escape(n)}</text></name>'
                         + (f'<initialMarking><text>{m}</text></initialMarking>' if m else '')
                         + '</place>')
        for i, (n, _, _) in enumerate(self.transitions):
            lines.append(f'      <transition id="t{i}"><name><text>{escape(n)}</text></name></transition>')
        a = 0
        for i, (_, pre, post) in enumerate(self.transitions):
            for p, w in sorted(pre.items()):
                ins = f'<inscription><text>{w}</text></inscription>' if w != 1 else ''
                lines.append(f'      <arc id="a{a}" source="p{p}" target="t{i}">{ins}</arc>')
                a += 1
            for p, w in sorted(post.items()):
                ins = f'<inscription><text>{w}</text></inscription>' if w != 1 else ''
                lines.append(f'      <arc id="a{a}" source="t{i}" target="p{p}">{ins}</arc>')
                a += 1
        lines += ['    </page>', '  </net>', '</pnml>', '']
        return "\n".join(lines)

    def llnet(self):
        lines = ["PEP", "PTNet", "FORMAT_N", f"% {self.description}", "PL"]
        for i, (n, m) in enumerate(self.places):
            lines.append(f'{i + 1}"{n}"' + (f"M{m}" if m else ""))
        lines.append("TR")
        for i, (n, _, _) in enumerate(self.transitions):
            lines.append(f'{i + 1}"{n}"')
        lines.append("TP")
        for i, (_, _, post) in enumerate(self.transitions):
            for p, w in sorted(post.items()):
                lines.append(f"{i + 1}<{p + 1}" + (f"w{w}" if w != 1 else ""))
        lines.append("PT")
        for i, (_, pre, _) in enumerate(self.transitions):
            for p, w in sorted(pre.items()):
                lines.append(f"{p + 1}>{i + 1}" + (f"w{w}" if w != 1 else ""))
        lines.append("")
        return "\n".join(lines)


def philosophers(n, ordered):
    kind = "ordered (the last one takes its right fork first; deadlock-free)" if ordered else "each takes the left fork first (deadlocks)"
    net = Net(f"philosophers{'-ordered' if ordered else ''}-{n}",
              f"{n} dining philosophers, cyclic; {kind}")
    for i in range(n):
        net.place(f"think_{i}", 1)
    for i in range(n):
        net.place(f"has_first_{i}")
    for i in range(n):
        net.place(f"eat_{i}")
    for i in range(n):
        net.place(f"fork_{i}", 1)
    for i in range(n):
        left, right = f"fork_{i}", f"fork_{(i + 1) % n}"
        first, second = (right, left) if ordered and i == n - 1 else (left, right)
        net.trans(f"take_first_{i}", [f"think_{i}", first], [f"has_first_{i}"])
        net.trans(f"take_second_{i}", [f"has_first_{i}", second], [f"eat_{i}"])
        net.trans(f"release_{i}", [f"eat_{i}"], [f"think_{i}", left, right])
    return net


def token_ring(n):
    net = Net(f"token-ring-{n}", f"token ring of {n} stations: a station with the token may work, then passes it on")
    for i in range(n):
        net.place(f"idle_{i}", 1)
    for i in range(n):
        net.place(f"busy_{i}")
    for i in range(n):
        net.place(f"token_{i}", 1 if i == 0 else 0)
    for i in range(n):
        net.trans(f"enter_{i}", [f"idle_{i}", f"token_{i}"], [f"busy_{i}"])
        net.trans(f"leave_{i}", [f"busy_{i}"], [f"idle_{i}", f"token_{(i + 1) % n}"])
        net.trans(f"pass_{i}", [f"idle_{i}", f"token_{i}"], [f"idle_{i}", f"token_{(i + 1) % n}"])
    return net


def peterson():
    net = Net("peterson", "Peterson's mutual exclusion for two processes, variables as value places")
    for i in range(2):
        net.place(f"idle_{i}", 1)
        net.place(f"set_turn_{i}")
        net.place(f"wait_{i}")
        net.place(f"crit_{i}")
    flags_and_turn(net)
    for i in range(2):
        j = 1 - i
        net.trans(f"p{i}_raise_flag", [f"idle_{i}", f"flag{i}_0"], [f"set_turn_{i}", f"flag{i}_1"])
        for v in range(2):
            net.trans(f"p{i}_give_turn_from_{v}", [f"set_turn_{i}", f"turn_{v}"], [f"wait_{i}", f"turn_{j}"])
        net.trans(f"p{i}_enter_flag", [f"wait_{i}", f"flag{j}_0"], [f"crit_{i}", f"flag{j}_0"])
        net.trans(f"p{i}_enter_turn", [f"wait_{i}", f"turn_{i}"], [f"crit_{i}", f"turn_{i}"])
        net.trans(f"p{i}_leave", [f"crit_{i}", f"flag{i}_1"], [f"idle_{i}", f"flag{i}_0"])
    return net


def flags_and_turn(net):
    """The shared variables of Peterson's and Dekker's algorithms as value places: flag[0],
    flag[1] and turn, each 0 at first."""
    for i in range(2):
        net.place(f"flag{i}_0", 1)
        net.place(f"flag{i}_1")
    net.place("turn_0", 1)
    net.place("turn_1")


def dekker():
    net = Net("dekker", "Dekker's mutual exclusion for two processes, variables as value places")
    for i in range(2):
        for s in ("idle", "test", "back_off", "wait_turn", "crit", "give_turn"):
            net.place(f"{s}_{i}", 1 if s == "idle" else 0)
    flags_and_turn(net)
    for i in range(2):
        j = 1 - i
        # flag[i] := 1
        net.trans(f"p{i}_raise_flag", [f"idle_{i}", f"flag{i}_0"], [f"test_{i}", f"flag{i}_1"])
        # while flag[j]: ...  (exit the loop when flag[j] = 0)
        net.trans(f"p{i}_enter", [f"test_{i}", f"flag{j}_0"], [f"crit_{i}", f"flag{j}_0"])
        # flag[j] = 1 and turn = j: back off
        net.trans(f"p{i}_back_off", [f"test_{i}", f"flag{j}_1", f"turn_{j}"], [f"back_off_{i}", f"flag{j}_1", f"turn_{j}"])
        # flag[j] = 1 and turn = i: keep testing
        net.trans(f"p{i}_insist", [f"test_{i}", f"flag{j}_1", f"turn_{i}"], [f"test_{i}", f"flag{j}_1", f"turn_{i}"])
        net.trans(f"p{i}_lower_flag", [f"back_off_{i}", f"flag{i}_1"], [f"wait_turn_{i}", f"flag{i}_0"])
        # turn = i again: raise the flag and test once more
        net.trans(f"p{i}_retry", [f"wait_turn_{i}", f"turn_{i}", f"flag{i}_0"], [f"test_{i}", f"turn_{i}", f"flag{i}_1"])
        net.trans(f"p{i}_leave", [f"crit_{i}"], [f"give_turn_{i}"])
        # turn := j; flag[i] := 0
        for v in range(2):
            net.trans(f"p{i}_give_turn_from_{v}", [f"give_turn_{i}", f"turn_{v}", f"flag{i}_1"],
                      [f"idle_{i}", f"turn_{j}", f"flag{i}_0"])
    return net


def producer_consumer(capacity):
    net = Net(f"producer-consumer-{capacity}",
              f"bounded buffer of {capacity} slots: the producer puts 2 items at a time, the consumer takes 3 (weights > 1, not safe)")
    net.place("producer_idle", 1)
    net.place("producer_ready")
    net.place("consumer_idle", 1)
    net.place("consumer_busy")
    net.place("buffer")
    net.place("free", capacity)
    net.trans("produce", ["producer_idle"], ["producer_ready"])
    net.trans("put", ["producer_ready", ("free", 2)], ["producer_idle", ("buffer", 2)])
    net.trans("take", ["consumer_idle", ("buffer", 3)], ["consumer_busy", ("free", 3)])
    net.trans("consume", ["consumer_busy"], ["consumer_idle"])
    return net


def choices():
    net = Net("acyclic-choices", "three processes race for two single-use resources r and s: acyclic, six deadlocks")
    for i in range(3):
        net.place(f"start_{i}", 1)
    net.place("r", 1)
    net.place("s", 1)
    for i in range(3):
        net.place(f"took_r_{i}")
        net.place(f"took_s_{i}")
    for i in range(3):
        net.trans(f"take_r_{i}", [f"start_{i}", "r"], [f"took_r_{i}"])
        net.trans(f"take_s_{i}", [f"start_{i}", "s"], [f"took_s_{i}"])
    return net


def main():
    os.makedirs(OUT, exist_ok=True)
    nets = [philosophers(5, False), philosophers(10, False), philosophers(5, True), philosophers(10, True),
            token_ring(5), peterson(), dekker(), producer_consumer(4), choices()]
    rows = ["file\tdeadlock\treachable_markings\tdead_markings\tdescription"]
    for net in nets:
        states, dead = net.explore()
        for ext, text in (("pnml", net.pnml()), ("ll_net", net.llnet())):
            with open(os.path.join(OUT, f"{net.name}.{ext}"), "w") as f:
                f.write(text)
        rows.append(f"{net.name}\t{'YES' if dead else 'NO'}\t{states}\t{len(dead)}\t{net.description}")
        print(f"{net.name}: {states} markings, {len(dead)} dead")
    with open(os.path.join(OUT, "answers.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
