"""Graphs TensorFlow wrote itself lint clean: no error, and no warning either.

../shared/corpus and tests/data/real (generated with tools/gen_test_graphs.py)
hold only graphs TensorFlow 2.21 imports; a finding on any of them is a false
alarm.
"""

from __future__ import annotations

import pytest
from conftest import CORPUS, DATA

from tflint.api import lint_file
from tflint.read.walk import iter_graph_files


def _real_graphs():
    paths = []
    for folder in (CORPUS, DATA / "real"):
        if folder.exists():
            paths.extend(iter_graph_files([str(folder)]))
    return sorted(paths)


@pytest.mark.parametrize("path", _real_graphs(), ids=lambda p: p.split("/")[-1][:80])
def test_real_graph_has_no_error_or_warning(path):
    report = lint_file(path)
    noisy = [f for f in report.findings if str(f.severity) in ("error", "warning")]
    if path.rsplit("/", 1)[-1].startswith("tf1_empty_graph."):
        # TensorFlow wrote a graph with no nodes: it imports, and empty-graph says it computes nothing.
        assert [(f.rule, str(f.severity)) for f in noisy] == [("empty-graph", "warning")]
        return
    assert noisy == [], "\n".join(f"{f.location()} {f.rule}: {f.message}" for f in noisy)
