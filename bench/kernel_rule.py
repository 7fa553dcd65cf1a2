"""What `missing-kernel` costs on a big graph, as a share of linting it, in one process.

    python bench/kernel_rule.py                      # the cached generated 100k-node graph (binary)
    python bench/kernel_rule.py --nodes 10000 --repeats 9
    python bench/kernel_rule.py GRAPH.pb

Lints the graph once with every default rule (the index, shared analyses and the kernel table
warm), then times, in CPU seconds, `missing-kernel` alone (as the default config runs it: soft
placement, CPU; then as the `serving` preset does: without soft placement) against the whole lint
of the same graph, each the median of the repeats. The ratio is the rule's share of a lint; the
kernel table's first read is printed apart (it is paid once per process).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _cpu(action, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.process_time()
        action()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("graph", nargs="?", help="a graph file (default: the generated graph of --nodes)")
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    if args.graph:
        path = Path(args.graph)
    else:
        from gen_graph import cached_graph

        path = cached_graph(args.nodes)[1]

    from tflint.api import registry_for
    from tflint.config.settings import default_config
    from tflint.engine.run import build_index, lint_artifact
    from tflint.read.load import load_path
    from tflint.rules import missing_kernel
    from tflint.tf import kernels

    start = time.perf_counter()
    kernels._table()
    table_ms = (time.perf_counter() - start) * 1000
    config = default_config()
    registry = registry_for(config)
    artifact = load_path(str(path))
    lint_seconds = _cpu(lambda: lint_artifact(artifact, config, registry), args.repeats)
    graph = build_index(artifact.graphs[0], registry, artifact)
    for scope in graph.scopes():
        scope.attr_groups()  # built by the attr rules before this one in a lint: not this rule's cost
    rows = [("default (soft placement)", True), ("serving preset (no soft placement)", False)]
    print(f"{path.name}: lint {lint_seconds * 1000:.0f} ms CPU (median of {args.repeats}); kernel table read {table_ms:.1f} ms")
    for label, soft in rows:
        options = {"devices": ["CPU"], "soft-placement": soft}
        seconds = _cpu(lambda: list(missing_kernel.check(graph, options)), args.repeats)
        print(f"  missing-kernel, {label}: {seconds * 1000:.1f} ms CPU = {100 * seconds / lint_seconds:.1f}% of the lint")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
