"""The PNML writer shared by the net generators of benches/ (scaled-nets.py,
hostile-inputs.py)."""


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
