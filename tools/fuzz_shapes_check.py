"""Compare shape-mismatch with TensorFlow on graphs from tools/fuzz_shapes_tf.py (maintainer tool).

Usage: python tools/fuzz_shapes_check.py OUT.json [SHOWN [SUMMARY.md]]
Prints FALSE-ALARM (a finding on a graph TensorFlow imports) and TOO-PRECISE (a shape
TensorFlow does not know) lines, which must never appear; MISS (TensorFlow rejects, no
finding: fine when another rule's, e.g. too few `_output_shapes`) and LESS (a shape TensorFlow
knows better) samples; then counts per generator. Python errors inside shape functions are
not swallowed here (GUARDED_ERRORS is emptied). With SUMMARY.md, also writes a table per op
under test: cases, TensorFlow's rejections caught (those whose message names the op's node;
others are another rule's, e.g. an input dtype), accepted graphs without a finding, and how
the inferred output shapes compare with TensorFlow's.
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
per_op = collections.defaultdict(collections.Counter)
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
    row = per_op[opname]
    row["cases"] += 1
    if rec["ok"]:
        row["accepted"] += 1
        row["quiet"] += not inf.issues
        st[k, "ok"] += 1
        for i in inf.issues:
            print("FALSE-ALARM", k, i.node.name, i.message, "\n   ", rec["text"].replace("\n", " ")[:1500])
            break
        tfs = rec["shapes"]["op"]
        for j, t in enumerate(tfs):
            m = inf.output_shape(op, j)
            row["outputs"] += 1
            row["exact"] += m is not None and t is not None and tuple(m) == tuple(t)
            if not finer(m, t):
                row["too precise"] += 1
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
        if "{{node op}}" in rec["error"] or "_output_shapes attribute inconsistent" in rec["error"]:
            row["shape rejections"] += 1
            row["caught"] += bool(inf.issues)
        if inf.issues:
            st[k, "caught"] += 1
        else:
            if shown[k] < limit:
                shown[k] += 1
                print("MISS", k, opname, rec["error"][:300])
for key in sorted(st):
    print(key, st[key])
if len(sys.argv) > 3:
    lines = [
        "| op | cases | TF rejects (shape fn) | caught | TF accepts | no finding | outputs | = TF's shape "
        "| finer than TF |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name in sorted(per_op):
        row = per_op[name]
        lines.append(
            f"| {name} | {row['cases']} | {row['shape rejections']} | {row['caught']} | {row['accepted']} | "
            f"{row['quiet']} | {row['outputs']} | {row['exact']} | {row['too precise']} |"
        )
    total = collections.Counter()
    for row in per_op.values():
        total.update(row)
    lines.append(
        f"| **all {len(per_op)} ops** | {total['cases']} | {total['shape rejections']} | {total['caught']} | "
        f"{total['accepted']} | {total['quiet']} | {total['outputs']} | {total['exact']} | {total['too precise']} |"
    )
    open(sys.argv[3], "w").write("\n".join(lines) + "\n")
