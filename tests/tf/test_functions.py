"""Which library functions something instantiates (CalledFunctions), and what the engine does with the rest.

TensorFlow 2.21 checks a body only when it instantiates the function
(tests/data/tf_import_cases.jsonl, category `functions`): at import for a
node that calls it, at run time for If/While/Case branches and other
function-valued attrs. A function nothing reaches is imported unchecked.
"""

from __future__ import annotations

import pytest
from conftest import lint_text

from tflint.api import registry_for
from tflint.config.settings import default_config
from tflint.engine.run import NEVER_CALLED, build_index
from tflint.finding import Severity
from tflint.read.load import load_bytes
from tflint.tf.functions import called_functions


def fn(name: str, *body: str) -> str:
    return f'function {{ signature {{ name: "{name}" }} {" ".join(body)} }}'


def func_attr(key: str, *names: str, listed: bool = False) -> str:
    if listed:
        funcs = " ".join(f'func {{ name: "{name}" }}' for name in names)
        return f'attr {{ key: "{key}" value {{ list {{ {funcs} }} }} }}'
    return f'attr {{ key: "{key}" value {{ func {{ name: "{names[0]}" }} }} }}'


def node(name: str, op: str, *attrs: str, body: bool = False) -> str:
    kind = "node_def" if body else "node"
    return f'{kind} {{ name: "{name}" op: "{op}" {" ".join(attrs)} }}'


def graph(*parts: str, functions: tuple[str, ...] = ()) -> str:
    return "\n".join([*parts, f"library {{ {' '.join(functions)} }}"]) + "\n"


F, G, H = fn("f"), fn("g"), fn("h")


@pytest.mark.parametrize(
    "text, called",
    [
        pytest.param(graph(functions=(F, G)), set(), id="nothing-calls"),
        pytest.param(graph(node("call", "f"), functions=(F, G)), {"f"}, id="direct-call"),
        pytest.param(graph(node("call", "PartitionedCall", func_attr("f", "f")), functions=(F, G)), {"f"}, id="pc"),
        pytest.param(
            graph(node("call", "StatefulPartitionedCall", func_attr("f", "g")), functions=(F, G)), {"g"}, id="spc"
        ),
        pytest.param(
            graph(node("c", "If", func_attr("then_branch", "f"), func_attr("else_branch", "g")), functions=(F, G)),
            {"f", "g"},
            id="if-branches",
        ),
        pytest.param(
            graph(node("w", "While", func_attr("cond", "f"), func_attr("body", "g")), functions=(F, G, H)),
            {"f", "g"},
            id="while",
        ),
        pytest.param(
            graph(node("c", "Case", func_attr("branches", "f", "h", listed=True)), functions=(F, G, H)),
            {"f", "h"},
            id="case-list",
        ),
        pytest.param(
            graph(node("call", "g"), functions=(F, fn("g", node("inner", "f", body=True)))),
            {"f", "g"},
            id="nested-direct",
        ),
        pytest.param(
            graph(
                node("call", "g"),
                functions=(F, fn("g", node("inner", "PartitionedCall", func_attr("f", "f"), body=True))),
            ),
            {"f", "g"},
            id="nested-pc",
        ),
        pytest.param(graph(functions=(F, fn("g", node("inner", "f", body=True)))), set(), id="transitively-uncalled"),
        pytest.param(
            graph(node("call", "f"), functions=(F, G, 'gradient { function_name: "f" gradient_func: "g" }')),
            {"f"},
            id="gradient-is-not-a-call",
        ),
        pytest.param(graph(node("call", "f"), functions=(fn("f", node("me", "f", body=True)),)), {"f"}, id="recursion"),
    ],
)
def test_called_functions(text, called):
    artifact = load_bytes(text.encode(), "graph.pbtxt")
    index = build_index(artifact.graphs[0], registry_for(default_config()), artifact)
    assert set(called_functions(index).names) == called


SAVED_MODEL = """
saved_model_schema_version: 1
meta_graphs {
  graph_def { library { function { signature { name: "f" } node_def { name: "n" op: "NoSuchOp" } } } }
  object_graph_def { concrete_functions { key: "f" value { } } }
}
"""


def test_saved_model_concrete_functions_are_called():
    # The object graph's concrete functions are what tf.saved_model.load's signatures and methods run.
    findings = lint_text(SAVED_MODEL, input_type="savedmodel-text")
    assert [(f.rule, f.severity) for f in findings if f.function == "f"] == [("unknown-op", Severity.ERROR)]


BROKEN = graph(functions=(fn("f", node("n", "NoSuchOp", body=True)),))


@pytest.mark.parametrize(
    "config, expected",
    [
        pytest.param(None, [("unknown-op", Severity.WARNING)], id="default-warning"),
        pytest.param({"uncalled-functions": "error"}, [("unknown-op", Severity.ERROR)], id="raised-back"),
        pytest.param({"uncalled-functions": "info"}, [("unknown-op", Severity.INFO)], id="lowered"),
        pytest.param({"uncalled-functions": "off"}, [], id="off"),
        pytest.param(
            {"uncalled-functions": "error", "rules": {"unknown-op": "warning"}},
            [("unknown-op", Severity.WARNING)],
            id="never-above-the-rule",
        ),
    ],
)
def test_uncalled_functions_level(config, expected):
    assert [(f.rule, f.severity) for f in lint_text(BROKEN, config)] == expected


def test_message_says_why():
    [finding] = lint_text(BROKEN)
    assert finding.message == f"Node 'n' uses op 'NoSuchOp', which is not registered ({NEVER_CALLED})"
    assert NEVER_CALLED == "never called: TF does not check it at import; calling it would fail"


def test_library_checks_keep_their_level_in_uncalled_functions():
    # TensorFlow refuses these when it adds the library, whether or not anything calls the function.
    clash = graph(functions=(fn("Identity"),))
    assert [(f.rule, f.severity) for f in lint_text(clash)] == [("function-name-conflict", Severity.ERROR)]
    polymorphic = graph(
        functions=(
            'function { signature { name: "f" input_arg { name: "x" type_attr: "T" } '
            'attr { name: "T" type: "type" } } }',
        )
    )
    assert [(f.rule, f.severity) for f in lint_text(polymorphic)] == [("function-ret", Severity.ERROR)]


def test_bad_level_is_a_config_error():
    from tflint.errors import ConfigError

    with pytest.raises(ConfigError, match="uncalled-functions: unknown level 'warn'"):
        lint_text(BROKEN, {"uncalled-functions": "warn"})
