"""Pick a few fuzz cases per op, with TensorFlow's verdicts, as recorded tests (maintainer tool).

    python tools/record_shape_verdicts.py FUZZ.json tests/data/shapes/tf_verdicts.jsonl [PER_OP]

From the output of tools/fuzz_shapes_tf.py keep, for each op under test, up to PER_OP (default
2) graphs TensorFlow rejects through the op's shape function and as many it imports, smallest
first, with the op's output shapes as TensorFlow inferred them. tests/test_shape_verdicts.py
replays them without TensorFlow.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict


def main() -> int:
    records = json.load(open(sys.argv[1]))
    per_op = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    kept: dict[tuple[str, bool], list[dict]] = defaultdict(list)
    for record in sorted(records, key=lambda item: len(item["text"])):
        op = re.search(r'name: "op" op: "(\w+)"', record["text"])
        if op is None:
            continue
        rejected_by_shape_fn = not record["ok"] and "{{node op}}" in record["error"]
        if not record["ok"] and not rejected_by_shape_fn:
            continue
        bucket = kept[op.group(1), record["ok"]]
        if len(bucket) < per_op:
            entry = {"op": op.group(1), "text": record["text"], "tf_imports": record["ok"]}
            if record["ok"]:
                entry["tf_shapes"] = record["shapes"]["op"]
            else:
                entry["tf_error"] = record["error"][:300]
            bucket.append(entry)
    with open(sys.argv[2], "w") as out:
        for key in sorted(kept):
            for entry in kept[key]:
                out.write(json.dumps(entry, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
