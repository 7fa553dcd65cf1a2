"""Maintainer check: TensorFlow rejects every broken mutation in tests/mutation_cases.py and imports every legal one.

Run with a Python that has TensorFlow (never a tflint dependency):
    python tools/check_mutations_with_tf.py [--corpus ../shared/corpus]
Each import runs in its own process, so a crash counts as a rejection.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
IMPORT = """
import sys
import tensorflow as tf
graph_def = tf.compat.v1.GraphDef.FromString(open(sys.argv[1], "rb").read())
with tf.Graph().as_default():
    tf.graph_util.import_graph_def(graph_def, name="")
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(REPO.parent / "shared" / "corpus"))
    args = parser.parse_args()
    sys.path.insert(0, str(REPO / "tests"))
    from mutation_cases import MUTATIONS
    from tensorflow.core.framework import graph_pb2

    disagreements = 0
    with tempfile.TemporaryDirectory() as scratch:
        for mutation in MUTATIONS:
            graph = graph_pb2.GraphDef.FromString((Path(args.corpus) / mutation.graph).read_bytes())
            mutation.edit(graph)
            path = Path(scratch) / f"{mutation.id}.pb"
            path.write_bytes(graph.SerializeToString())
            result = subprocess.run([sys.executable, "-c", IMPORT, str(path)], capture_output=True, text=True)
            rejected = result.returncode != 0
            message = (result.stderr.strip().splitlines() or [""])[-1][:150]
            agrees = rejected == bool(mutation.expected)
            disagreements += not agrees
            print(f"{'ok ' if agrees else 'BAD'} {mutation.id:32} TF {'rejects' if rejected else 'imports'}  {message}")
    print(f"{len(MUTATIONS) - disagreements} of {len(MUTATIONS)} agree with TensorFlow")
    return 1 if disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
