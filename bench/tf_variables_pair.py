"""Write two SavedModels whose weights are variables (`variables/`), with TensorFlow: run by `--tf-python`.

`python tf_variables_pair.py OUT MIB`: OUT/old and OUT/new, a tf.Module of MIB // 64 variables of
4096 x 4096 float32 (seeded) and a serving signature multiplying an input [?, 4096] through them;
`new` has one MiB of its last variable changed. Used by review_pair.py --tf-python.
"""

from __future__ import annotations

import sys

import numpy as np
import tensorflow as tf

SIDE = 4096


class Chain(tf.Module):
    def __init__(self, count: int) -> None:
        super().__init__()
        rng = np.random.default_rng(0)
        self.weights = [
            tf.Variable(rng.uniform(-1, 1, (SIDE, SIDE)).astype(np.float32), name=f"w{index}") for index in range(count)
        ]

    @tf.function(input_signature=[tf.TensorSpec([None, SIDE], tf.float32, name="x")])
    def serve(self, x):
        for weight in self.weights:
            x = tf.matmul(x, weight)
        return {"y": x}


def main() -> None:
    out, mib = sys.argv[1], int(sys.argv[2])
    model = Chain(max(1, mib // 64))
    tf.saved_model.save(model, f"{out}/old", signatures={"serving_default": model.serve})
    last = model.weights[-1]
    rows = (1 << 20) // (SIDE * 4)  # one MiB of rows
    last[:rows].assign(last[:rows] * 0.5)
    tf.saved_model.save(model, f"{out}/new", signatures={"serving_default": model.serve})


if __name__ == "__main__":
    main()
