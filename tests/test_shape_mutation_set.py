"""A held-out set of one-change mutations of real graphs, with TensorFlow 2.21's verdicts recorded.

data/shapes/mutations_tf221.jsonl was made by `tools/shape_mutations.py label --seed 29` from
the GraphDefs of ../shared/wild (those TensorFlow imports), ../shared/corpus, data/shapes and
data/real, before the shape functions were tuned on it; data/shapes/mutations_new_ops_tf221.jsonl
by `label --seed 53 --per-graph 40` from the graphs of TensorList, diagonal, sparse, TensorArray
and gradient ops in data/shapes (tf1_lists_and_diagonals, tf1_sparse_ops, tf1_gradients), after
their shape functions were written and before they were checked on it. Each record is a recipe (a shape
argument's constant, a placeholder's or variable's dimension, a window or axis attr, a flag, a
data format) and TensorFlow's verdict. Replayed here without TensorFlow (the records of graphs in
the repository by every run, the whole set by the `shared` group, which needs ../shared/wild): every graph TensorFlow
imports gets no new error or warning, and every rejection by a shape function is an error,
except the few below that need what tflint does not model yet.

data/shapes/mutations_functions_tf221.jsonl is the same for function bodies: mutations of nodes
inside the library functions of real TF-written graphs and SavedModels (`label --bodies --seed
31`), then of the top-level nodes of the graphs whose nodes call functions (`label --seed 37`:
a variable's or a placeholder's shape, a constant, reaching a body through a call). TensorFlow
checks a body only through a call; in a function nothing calls, tflint's other rules still warn
about a broken node ("never called"), by design (issue 22), and those warnings are not alarms.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

from conftest import DATA, REPO, SHARED, shared

from tflint import protos
from tflint.api import lint_graph
from tflint.engine.findings import NEVER_CALLED


def _records(*names: str) -> list[dict]:
    return [json.loads(line) for name in names for line in (DATA / "shapes" / name).read_text().splitlines() if line]


RECORDS = _records("mutations_tf221.jsonl", "mutations_new_ops_tf221.jsonl")
FUNCTION_RECORDS = _records("mutations_functions_tf221.jsonl")
# Where the mutated graphs are: in the repository (tests/data/corpus is a copy of ../shared/corpus),
# and beside it (../shared/wild, read only by the `shared` group).
IN_REPOSITORY = (DATA / "corpus", DATA / "shapes", DATA / "real")
EVERYWHERE = (SHARED / "wild", SHARED / "corpus", *IN_REPOSITORY)
# Rejections tflint does not catch yet, and why.
KNOWN_MISSES: dict[str, str] = {}


def _tool():
    spec = importlib.util.spec_from_file_location("shape_mutations", REPO / "tools" / "shape_mutations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _where(name: str, places: tuple[Path, ...]) -> Path | None:
    return next((place / name for place in places if (place / name).exists()), None)


def _in_repository(records: list[dict]) -> list[dict]:
    return [record for record in records if _where(record["graph"], IN_REPOSITORY) is not None]


def _serious(report) -> Counter:
    return Counter(
        (f.rule, f.node) for f in report.findings if f.severity >= 2 and not f.message.endswith(f"({NEVER_CALLED})")
    )


def _replay(records: list[dict], places: tuple[Path, ...]) -> tuple[list, list, int, int]:
    """(false alarms, unexpected misses, shape-function rejections caught, shape-function rejections)."""
    tool = _tool()
    originals: dict[str, object] = {}
    baseline: dict[str, Counter] = {}
    alarms, misses = [], []
    caught = rejections = 0
    for record in records:
        name = record["graph"]
        path = _where(name, places)
        if path is None:
            continue
        if name not in originals:
            originals[name] = tool.read_graph(protos.GraphDef, str(path), protos.SavedModel)
            baseline[name] = _serious(lint_graph(originals[name], name=name))
        graph = protos.GraphDef()
        graph.CopyFrom(originals[name])
        tool.apply(graph, record)
        report = lint_graph(graph, name=name)
        if record["tf"] == "imports":
            new = _serious(report) - baseline[name]
            if new:
                alarms.append((name, record["node"], sorted(new)))
        elif tool.shape_rejection(record["message"]):
            rejections += 1
            if any(f.severity >= 3 for f in report.findings):
                caught += 1
            elif name not in KNOWN_MISSES:
                misses.append((name, record["kind"], record["node"], record["message"][:160]))
    return alarms, misses, caught, rejections


def test_the_mutation_set_on_the_graphs_in_the_repository():
    # The part of the set the README's `pytest` replays with nothing outside the repository.
    records = _in_repository(RECORDS)
    assert len(records) >= 200
    alarms, misses, caught, rejections = _replay(records, IN_REPOSITORY)
    assert alarms == []
    assert misses == []
    assert rejections >= 70 and caught >= 0.95 * rejections


def test_the_function_mutation_set_on_the_graphs_in_the_repository():
    records = _in_repository(FUNCTION_RECORDS)
    assert len(records) >= 150 and any("function" in record for record in records)
    alarms, misses, caught, rejections = _replay(records, IN_REPOSITORY)
    assert alarms == []
    assert misses == []
    assert rejections >= 25 and caught == rejections


@shared
def test_the_mutation_set():
    alarms, misses, caught, rejections = _replay(RECORDS, EVERYWHERE)
    assert alarms == []
    assert misses == []
    assert rejections >= 150 and caught >= 0.95 * rejections


@shared
def test_the_function_mutation_set():
    assert any("function" in record for record in FUNCTION_RECORDS)
    alarms, misses, caught, rejections = _replay(FUNCTION_RECORDS, EVERYWHERE)
    assert alarms == []
    assert misses == []
    assert rejections >= 7 and caught == rejections
