"""Compare shape-mismatch with TensorFlow on graphs from tools/fuzz_shapes_tf.py (maintainer tool).

Usage: python tools/fuzz_shapes_check.py OUT.json [SHOWN]
Prints FALSE-ALARM (a finding on a graph TensorFlow imports) and TOO-PRECISE (a shape
TensorFlow does not know) lines, which must never appear; MISS (TensorFlow rejects, no
finding: fine when another rule's, e.g. too few `_output_shapes`) and LESS (a shape TensorFlow
knows better) samples; then counts per generator. Python errors inside shape functions are
not swallowed here (GUARDED_ERRORS is emptied).
"""

import collections
import json
import sys

import tflint.tf.shapes.inference as SH
from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import build_index
from tflint.read.load import load_bytes

SH.GUARDED_ERRORS = ()
from tflint.tf.shapes import infer_shapes

config = default_config()
registry = registry_for(config)


def finer(mine, tf):
    if mine is None:
        return True
    if tf is None or len(mine) != len(tf):
        return False
    return all(m < 0 or m == t for m, t in zip(mine, tf))


recs = json.load(open(sys.argv[1]))
st = collections.Counter()
shown = collections.Counter()
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 3
for rec in recs:
    art = load_bytes(rec["text"].encode(), "g.pbtxt")
    if art.failure:
        print("LOADFAIL", art.failure.message)
        continue
    idx = build_index(art.graphs[0], registry, art)
    inf = infer_shapes(idx)
    op = idx.node("op")
    k = rec["kind"]
    opname = op.op
    if rec["ok"]:
        st[k, "ok"] += 1
        for i in inf.issues:
            print("FALSE-ALARM", k, i.node.name, i.message, "\n   ", rec["text"].replace("\n", " ")[:1500])
            break
        tfs = rec["shapes"]["op"]
        for j, t in enumerate(tfs):
            m = inf.output_shape(op, j)
            if not finer(m, t):
                print("TOO-PRECISE", k, opname, j, "mine", m, "tf", t, "\n   ", rec["text"].replace("\n", " ")[:1500])
            elif m is not None and tuple(m) == tuple(t if t else ()) and t is not None:
                st[k, "exact"] += 1
            elif t is not None:
                st[k, "lessprecise"] += 1
                if shown[k, "lp"] < limit:
                    shown[k, "lp"] += 1
                    print("LESS", k, opname, j, "mine", m, "tf", t, "|", rec["text"].replace("\n", " ")[-700:])
    else:
        st[k, "rej"] += 1
        if inf.issues:
            st[k, "caught"] += 1
        else:
            if shown[k] < limit:
                shown[k] += 1
                print("MISS", k, opname, rec["error"][:300])
for key in sorted(st):
    print(key, st[key])
