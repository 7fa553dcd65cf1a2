"""Profile one `tflint FILE` run with cProfile and print where the time goes, as % of the run.

    python bench/profile_tflint.py /tmp/tflint-bench/graph-n100000-s0-*.pbtxt
    python bench/profile_tflint.py --nodes 100000 --form binary      # the cached generated graph

First the phases of one run (imports, registry, parse, index, rules, report)
by wall clock, with no profiler in the way; then a second run of the same file
under cProfile (imports and the registry now warm, so it shows the work that
grows with the file): self time (the function's own code) and cumulative time
(with everything it calls), as % of that run.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def profile_tflint(path: str) -> tuple[pstats.Stats, float, int]:
    """Run tflint's CLI on `path` under cProfile; returns the stats, wall seconds and exit code."""
    profiler = cProfile.Profile()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        profiler.enable()
        from tflint import cli

        # As `tflint` (cli.run) does: the process ends right after, so the last graph is kept rather
        # than freed (freeing it would show as time in contextlib's __exit__, which the command never spends).
        cli._exits_without_cleanup = True
        code = cli.main([path])
        profiler.disable()
    return pstats.Stats(profiler), time.perf_counter() - start, code


def _gc_paused_as_the_cli_does() -> Any:
    """The CLI lints each file with the cyclic garbage collector paused (trees since 94709fb)."""
    try:
        from tflint.runtime.process import collector_paused
    except ImportError:
        return contextlib.nullcontext()
    return collector_paused()


def phase_times(path: str) -> list[tuple[str, float]]:
    """Wall time of each phase of one lint run, without a profiler's per-call overhead.

    The slowest rules follow as indented entries (part of "rules", not added to the total).
    """
    phases: list[tuple[str, float]] = []
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        phases.append((name, now - clock))
        clock = now

    from tflint.api import registry_for, resolve_config
    from tflint.engine import run as engine
    from tflint.engine.findings import run_rules
    from tflint.read.load import load_path
    from tflint.report import renderer
    from tflint.report.summary import Summary

    lap("imports")
    config = resolve_config(None, near=path)
    registry = registry_for(config)
    registry.schema("Const")  # the bundled registry is parsed lazily, on first lookup
    lap("config + op registry")
    with _gc_paused_as_the_cli_does():
        artifact = load_path(path)
        lap("read + parse (load_path)")
        findings = []
        indexes = [engine.build_index(source, registry, artifact) for source in artifact.graphs]
        lap("GraphIndex")
        starts: list[tuple[str, float]] = []
        for index, source in zip(indexes, artifact.graphs):
            try:
                run = run_rules(
                    index,
                    config,
                    artifact.path,
                    source.label,
                    progress=lambda rule: starts.append((rule, time.perf_counter())),
                )
            except TypeError:  # an engine without the progress hook: no per-rule times
                run = run_rules(index, config, artifact.path, source.label)
            findings.extend(run)
            starts.append(("", time.perf_counter()))
        lap("rules")
        rule_times: dict[str, float] = {}
        for (rule, start), (_, end) in zip(starts, starts[1:]):
            if rule:
                rule_times[rule] = rule_times.get(rule, 0.0) + end - start
        slowest = sorted(rule_times.items(), key=lambda item: item[1], reverse=True)[:8]
        phases.extend((f"  rule {rule}", seconds) for rule, seconds in slowest)
        renderer("text")(sorted(findings, key=lambda finding: finding.sort_key()), Summary(files=1, color=False))
        lap("report")
    return phases


def _where(key: tuple[str, int, str]) -> str:
    filename, line, name = key
    if filename == "~":
        return name  # a builtin, e.g. <method 'findall' of 're.Pattern' objects>
    parts = Path(filename).parts
    for anchor in ("lint", "rules", "protos", "tflint", "google"):
        if anchor in parts:
            filename = "/".join(parts[len(parts) - parts[::-1].index(anchor) - 1 :])
            break
    else:
        filename = Path(filename).name
    return f"{filename}:{line}({name})"


def top_table(stats: pstats.Stats, total: float, column: int, count: int) -> list[str]:
    """The `count` functions with the most time in `column` (2 = self, 3 = cumulative)."""
    rows = sorted(stats.stats.items(), key=lambda item: item[1][column], reverse=True)[:count]  # type: ignore[attr-defined]
    lines = [f"{'%':>6} {'seconds':>8} {'calls':>10}  function"]
    for key, (_, calls, self_time, cumulative, _) in rows:
        value = self_time if column == 2 else cumulative
        lines.append(f"{100 * value / total:6.1f} {value:8.3f} {calls:10d}  {_where(key)}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="the graph file to lint")
    parser.add_argument("--nodes", type=int, help="profile the cached generated graph of this size instead")
    parser.add_argument("--form", choices=("text", "binary"), default="text")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--top", type=int, default=20, help="rows per table (default 20)")
    parser.add_argument("--save", metavar="FILE", help="also save the raw profile (for snakeviz, pstats)")
    args = parser.parse_args(argv)
    if args.nodes:
        import gen_graph

        text_path, binary_path = gen_graph.cached_graph(args.nodes, args.seed)
        path = str(text_path if args.form == "text" else binary_path)
    elif args.path:
        path = args.path
    else:
        parser.error("give a PATH or --nodes")
    phases = phase_times(path)  # first: it also pays the imports, as a real run does
    whole = sum(seconds for name, seconds in phases if not name.startswith(" "))
    print(f"phases of one run, wall clock without profiler ({whole:.2f} s in all):")
    for name, seconds in phases:
        print(f"{100 * seconds / whole:6.1f} {seconds:8.3f}  {name}")
    stats, wall, code = profile_tflint(path)
    total = stats.total_tt  # type: ignore[attr-defined]
    print(
        f"\ncProfile of tflint {path}: exit {code}, {wall:.2f} s wall under cProfile ({total:.2f} s profiled), {os.path.getsize(path) / 1e6:.1f} MB"
    )
    print("(cProfile charges a fixed cost per call: many-call Python functions look bigger than they are)")
    print("\nself time (the function's own code):")
    print("\n".join(top_table(stats, total, 2, args.top)))
    print("\ncumulative time (with what it calls):")
    print("\n".join(top_table(stats, total, 3, args.top)))
    if args.save:
        stats.dump_stats(args.save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
