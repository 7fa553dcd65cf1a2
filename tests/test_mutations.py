"""Real graphs broken one way at a time give exactly the expected errors; tricky legal ones none."""

from __future__ import annotations

import pytest
from conftest import CORPUS, require
from mutation_cases import MUTATIONS

from tflint import lint_graph, protos


@pytest.mark.parametrize("mutation", MUTATIONS, ids=lambda m: m.id)
def test_mutation(mutation):
    graph = protos.GraphDef.FromString(require(CORPUS / mutation.graph).read_bytes())
    mutation.edit(graph)
    errors = sorted({(f.rule, f.node or "") for f in lint_graph(graph).findings if str(f.severity) == "error"})
    assert errors == sorted(mutation.expected)
