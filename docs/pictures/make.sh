#!/bin/sh
# Renders the pictures of docs/drawing.md from the shipped models (run from the
# repository root; needs Graphviz's `dot` on the PATH).
set -e
qpor=${QPOR:-qpor}
"$qpor" dot models/nets/philosophers-5.pnml --view net --to svg -o docs/pictures/philosophers-5-net.svg
"$qpor" dot models/nets/philosophers-5.pnml --view prefix --highlight deadlock --to svg -o docs/pictures/philosophers-5-prefix-deadlock.svg
"$qpor" dot models/nets/philosophers-5.pnml --view pes --highlight deadlock --to svg -o docs/pictures/philosophers-5-pes-deadlock.svg
"$qpor" dot models/proc/ssbexp.proc -D K=2 --view tree --all --cutoff none --to svg -o docs/pictures/ssbexp-K2-tree.svg
"$qpor" dot models/proc/ssbexp.proc -D K=2 --view tree --all --cutoff none --sdpor --to svg -o docs/pictures/ssbexp-K2-tree-sdpor.svg
