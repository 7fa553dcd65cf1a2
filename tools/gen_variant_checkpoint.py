"""Write a small checkpoint with DT_VARIANT entries with TensorFlow, and record what TF says when a byte flips.

Run with a TensorFlow 2.21 interpreter (never a dependency of tflint itself):

    $TF_PYTHON tools/gen_variant_checkpoint.py        # rewrites tests/data/checkpoint_variant

Writes `ckpt.index` and `ckpt.data-00000-of-00001` (a tf.data iterator's state, a TensorList
variable: both DT_VARIANT) and `verdicts.json`: per entry, TensorFlow's answer when reading it
intact ("ok" or the first line of its error), and the shard positions where one flipped byte makes
reading it fail, with the distinct messages.
tests/read/test_tensor_bundle.py replays them against tflint's checksums.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "data", "checkpoint_variant")

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

SHARD = "ckpt.data-00000-of-00001"


def read(prefix: str, key: str) -> str:
    try:
        # RestoreV2 (what a restore runs): a variant tensor has no numpy value to read through Python's reader.
        tf.raw_ops.RestoreV2(prefix=prefix, tensor_names=[key], shape_and_slices=[""], dtypes=[tf.variant])
        return "ok"
    except Exception as error:  # noqa: BLE001 - any failure is the verdict
        return f"{type(error).__name__}: {str(error).strip().splitlines()[0][:300]}"


def main() -> int:
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    iterator = iter(tf.data.Dataset.range(5))
    next(iterator)
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    tensor_list = tf.Variable(tf.raw_ops.TensorListFromTensor(tensor=values, element_shape=tf.constant([2])))
    tf.train.Checkpoint(it=iterator, tl=tensor_list).write(os.path.join(OUT, "ckpt"))
    reader = tf.train.load_checkpoint(os.path.join(OUT, "ckpt"))
    keys = sorted(key for key, dtype in reader.get_variable_to_dtype_map().items() if dtype == tf.variant)
    verdicts: dict = {"tensorflow": tf.__version__, "entries": {}}
    work = tempfile.mkdtemp()
    try:
        for key in keys:
            verdicts["entries"][key] = {"intact": read(os.path.join(OUT, "ckpt"), key), "refused": [], "messages": []}
        shard = open(os.path.join(OUT, SHARD), "rb").read()
        shutil.copyfile(os.path.join(OUT, "ckpt.index"), os.path.join(work, "ckpt.index"))
        for position in range(len(shard)):
            data = bytearray(shard)
            data[position] ^= 0xFF
            with open(os.path.join(work, SHARD), "wb") as f:
                f.write(bytes(data))
            for key in keys:
                outcome = read(os.path.join(work, "ckpt"), key)
                if outcome != "ok":
                    entry = verdicts["entries"][key]
                    entry["refused"].append(position)
                    # One message per kind: without the op's wrapper, the entry's offsets and the CRC values.
                    message = re.sub(r"\{\{function_node [^}]*\}\} | \[Op:RestoreV2\]", "", outcome)
                    message = re.sub(r"\. Bundle entry.*|\. Expected: .*| of size \d+", "", message)
                    if message not in entry["messages"]:
                        entry["messages"].append(message)
    finally:
        shutil.rmtree(work)
    with open(os.path.join(OUT, "verdicts.json"), "w") as f:
        json.dump(verdicts, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
