"""What the SavedModel load checks cost: a model with 2 GB of variables, its index read, its shards only sized.

Writes SavedModel directories (a TF1-style meta graph whose saver restores N float variables, a
tensor bundle index for them, and sparse data shards: the checks read the index and the shards'
sizes, never their bytes), then lints each in this process and reports, in one run:

- the time of linting the directory with its checkpoint against the same directory without
  `variables/` (the difference is what the checkpoint checks add; target: <= 50 ms at 2 GB);
- the peak memory (tracemalloc) of linting with 1 shard against 64 shards of the same variables
  (target: no growth with the shards);
- the throughput of the pure-Python CRC-32C (`--verify-checksums` reads every byte at this rate).

    python bench/savedmodel_checks.py                       # 2 GB in 2,000 variables, 5 repeats
    python bench/savedmodel_checks.py --gigabytes 8 --variables 20000
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # the test helpers write TensorFlow's table format

from savedmodel_files import field, number_field, restoring_meta_graph, shape_proto, table  # noqa: E402

from tflint.api import lint_file  # noqa: E402
from tflint.protos import DATA_TYPE  # noqa: E402
from tflint.read import crc32c  # noqa: E402
from tflint.wire import varint  # noqa: E402


def write_model(root: Path, variables: int, total_bytes: int, shards: int) -> Path:
    """A SavedModel directory restoring `variables` float vectors that fill `total_bytes` over `shards` sparse shards."""
    keys = [f"layer_{number:05d}/kernel" for number in range(variables)]
    root.mkdir(parents=True)
    (root / "saved_model.pbtxt").write_text(
        "meta_graphs {\n"
        + restoring_meta_graph([(key, "DT_FLOAT") for key in keys])
        + '  meta_info_def { tags: "serve" }\n}\n'
    )
    folder = root / "variables"
    folder.mkdir()
    size = total_bytes // variables // 4 * 4
    header = number_field(1, shards) + field(3, number_field(1, 1))
    entries = [(b"", header)]
    offsets = [0] * shards
    for number, key in enumerate(sorted(keys)):
        shard = number % shards
        entry = (
            number_field(1, DATA_TYPE.values_by_name["DT_FLOAT"].number)
            + field(2, shape_proto([size // 4]))
            + number_field(3, shard)
            + number_field(4, offsets[shard])
            + number_field(5, size)
            + varint(6 << 3 | 5)
            + bytes(4)
        )
        entries.append((key.encode(), entry))
        offsets[shard] += size
    (folder / "variables.index").write_bytes(table(entries))
    for shard, length in enumerate(offsets):
        with open(folder / f"variables.data-{shard:05d}-of-{shards:05d}", "wb") as f:
            f.truncate(length)  # sparse: sized, never written
    return root


def timed(path: Path, repeats: int) -> tuple[float, float]:
    """Median wall time and median CPU time of this process (CPU is what other load on the machine leaves alone)."""
    walls, cpus = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        lint_file(path)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - start_cpu)
    return statistics.median(walls), statistics.median(cpus)


def peak_memory(path: Path) -> int:
    tracemalloc.start()
    lint_file(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gigabytes", type=float, default=2.0)
    parser.add_argument("--variables", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    total = int(arguments.gigabytes * (1 << 30))
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        with_checkpoint = write_model(base / "one_shard", arguments.variables, total, 1)
        many = write_model(base / "64_shards", arguments.variables, total, 64)
        without = base / "no_variables"
        without.mkdir()
        (without / "saved_model.pbtxt").write_text((with_checkpoint / "saved_model.pbtxt").read_text())
        lint_file(with_checkpoint)  # warm: imports, registry
        index_bytes = (with_checkpoint / "variables" / "variables.index").stat().st_size
        on = timed(with_checkpoint, arguments.repeats)
        off = timed(without, arguments.repeats)
        on_many = timed(many, arguments.repeats)
        peak_one, peak_many = peak_memory(with_checkpoint), peak_memory(many)
        data = os.urandom(16 << 20)
        start, start_cpu = time.perf_counter(), time.process_time()
        crc32c.value(data)
        throughput = len(data) / (time.perf_counter() - start) / (1 << 20)
        throughput_cpu = len(data) / (time.process_time() - start_cpu) / (1 << 20)
    print(
        f"SavedModel: {arguments.variables:,} variables, {total / (1 << 30):.1f} GiB of sparse shards, index {index_bytes:,} B"
    )
    print(f"{'':35} {'wall':>8}    {'CPU':>8}   (medians of {arguments.repeats})")
    for label, (wall, cpu) in (
        ("lint with variables/ (1 shard)", on),
        ("lint with variables/ (64 shards)", on_many),
        ("lint without variables/", off),
    ):
        print(f"{label:35} {wall * 1000:8.1f} ms {cpu * 1000:8.1f} ms")
    added_wall, added_cpu = on[0] - off[0], on[1] - off[1]
    print(f"{'checkpoint checks add':35} {added_wall * 1000:8.1f} ms {added_cpu * 1000:8.1f} ms  (target <= 50 ms)")
    print(
        f"peak memory, 1 shard / 64 shards   {peak_one / 1e6:8.2f} MB / {peak_many / 1e6:.2f} MB  (ratio {peak_many / peak_one:.2f})"
    )
    print(
        f"{'CRC-32C (pure Python)':35} {throughput:8.1f} MB/s {throughput_cpu:6.1f} MB/s of CPU  "
        "(--verify-checksums reads at this rate)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
