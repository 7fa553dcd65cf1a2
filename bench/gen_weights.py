"""Write a weights-heavy frozen GraphDef, deterministically: a Placeholder and MatMuls on big float32 Consts.

The shape of the graphs people commit and serve (frozen ResNets, BERTs): a few nodes, nearly
all of the file in `tensor_content`. `--mib 512` gives issue 18's graph: a Placeholder
`input` [?, 4096], then 8 times a Const `w<i>` of 4096 x 4096 float32 (64 MiB each) and a
MatMul `matmul<i>` of the previous output by it; `versions { producer: 1882 }`. Every weight
is different, finite, and built a row at a time. The file is written straight in wire format,
a tensor at a time, so writing 512 MiB never holds more than one tensor in memory; pure Python,
no protobuf needed.

    python bench/gen_weights.py --mib 512 --out /tmp/weights_512m.pb
    python bench/gen_weights.py --mib 512 --out /tmp/weights_512m.pb --verify-with $TF_PYTHON
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path

DT_FLOAT = 1
SIDE = 4096  # each weight is SIDE x SIDE float32
WEIGHT_MIB = SIDE * SIDE * 4 >> 20  # 64
PRODUCER = 1882


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative numbers as protobuf writes int64: ten bytes of two's complement
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field: key, length, payload."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    return _varint(number << 3) + _varint(value)


def _shape(dims: Sequence[int]) -> bytes:
    """A TensorShapeProto (dim = 2, Dim.size = 1); -1 is an unknown dimension."""
    return b"".join(_field(2, _int_field(1, size)) for size in dims)


def _attr(key: str, value: bytes) -> bytes:
    """One entry of NodeDef.attr (field 5): key = 1, AttrValue = 2."""
    return _field(5, _field(1, key.encode()) + _field(2, value))


def _type_attr(key: str, dtype: int) -> bytes:
    return _attr(key, _int_field(6, dtype))  # AttrValue.type = 6


def _node(name: str, op: str, inputs: Sequence[str] = (), attrs: Sequence[bytes] = ()) -> bytes:
    """A GraphDef.node entry (field 1): NodeDef name = 1, op = 2, input = 3, then the attrs."""
    body = _field(1, name.encode()) + _field(2, op.encode())
    body += b"".join(_field(3, item.encode()) for item in inputs)
    return _field(1, body + b"".join(attrs))


def weights(seed: int, side: int = SIDE) -> bytes:
    """side x side finite float32 values in [-1, 1], different for every seed, built a row at a time."""
    row = array("f", (((i * 2654435761 + seed * 40503) % 2001) / 1000.0 - 1.0 for i in range(side)))
    rows = bytearray()
    for index in range(side):
        if sys.byteorder == "little":
            rows += row.tobytes()
        else:  # tensor_content is little-endian
            swapped = array("f", row)
            swapped.byteswap()
            rows += swapped.tobytes()
        row[index] = -row[index]
    return bytes(rows)


def graph_chunks(count: int, side: int = SIDE) -> Iterator[bytes]:
    """The serialized GraphDef in pieces: the placeholder, then per weight a Const and a MatMul, then versions.

    `side` makes smaller weights (side x side), for tests.
    """
    shape_attr = _attr("shape", _field(7, _shape([-1, side])))  # AttrValue.shape = 7
    yield _node("input", "Placeholder", attrs=[_type_attr("dtype", DT_FLOAT), shape_attr])
    previous = "input"
    for index in range(count):
        # TensorProto: dtype = 1, tensor_shape = 2, tensor_content = 4; AttrValue.tensor = 8
        tensor = _int_field(1, DT_FLOAT) + _field(2, _shape([side, side])) + _field(4, weights(index, side))
        yield _node(f"w{index}", "Const", attrs=[_type_attr("dtype", DT_FLOAT), _attr("value", _field(8, tensor))])
        yield _node(f"matmul{index}", "MatMul", [previous, f"w{index}"], [_type_attr("T", DT_FLOAT)])
        previous = f"matmul{index}"
    yield _field(4, _int_field(1, PRODUCER))  # GraphDef.versions = 4, VersionDef.producer = 1


def write(path: Path, mib: int) -> Path:
    """Write the graph of about `mib` MiB of weights (a multiple of 64, at least one weight) to `path`."""
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "wb") as file:
        for chunk in graph_chunks(max(1, mib // WEIGHT_MIB)):
            file.write(chunk)
    os.replace(temporary, path)
    return path


def generator_key() -> str:
    """A hash of this file: a changed generator never reuses graphs cached by an older one."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:10]


def cached_weights(mib: int, cache_dir: str | os.PathLike[str]) -> Path:
    """The path of the weights graph of `mib` MiB, generated on first use."""
    path = Path(cache_dir) / f"weights-{mib}m-{generator_key()}.pb"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path, mib)
    return path


# Run by a TensorFlow interpreter: the graph imports, and runs on a batch of one.
_TF_VERIFY = r"""
import sys
import numpy as np
import tensorflow as tf
graph_def = tf.compat.v1.GraphDef()
graph_def.ParseFromString(open(sys.argv[1], "rb").read())
with tf.Graph().as_default() as graph:
    tf.graph_util.import_graph_def(graph_def, name="")
    with tf.compat.v1.Session(graph=graph) as session:
        result = session.run(graph_def.node[-1].name + ":0", {"input:0": np.ones([1, 4096], np.float32) / 4096})
print("import_graph_def and run: ok (%d nodes, output shape %s, finite: %s)"
      % (len(graph_def.node), list(result.shape), bool(np.isfinite(result).all())))
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mib", type=int, default=512, help="MiB of weights, a multiple of 64 (default 512)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--verify-with", metavar="PYTHON", help="a Python with TensorFlow: import and run the graph")
    args = parser.parse_args(argv)
    write(args.out, args.mib)
    if args.verify_with:
        done = subprocess.run(
            [args.verify_with, "-c", _TF_VERIFY, str(args.out)], env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        )
        return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
