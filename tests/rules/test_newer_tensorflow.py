"""newer-tensorflow: min_consumer, attrs the old TensorFlow's OpDefs lack, custom ops, producer (error..info)."""

from __future__ import annotations

import pytest
from compat_models import pins

RULE = "newer-tensorflow"


def _model(producer=1645, min_consumer=12, ops="", version="2.15.1"):
    op_list = f" stripped_op_list {{ {ops} }}" if ops else ""
    return (
        f'meta_info_def {{ tags: "serve" tensorflow_version: "{version}"{op_list} }}\n'
        f"graph_def {{ versions {{ producer: {producer} min_consumer: {min_consumer} }} }}\n"
    )


IDENTITY = 'op { name: "Identity" attr { name: "T" type: "type" } }'
IDENTITY_NEW_ATTR = (
    'op { name: "Identity" attr { name: "T" type: "type" } attr { name: "mode" type: "int" } '
    'attr { name: "hint" type: "int" default_value { i: 0 } } }'
)
CUSTOM = 'op { name: "AcmeFrobnicate" }'
ERF = 'op { name: "Erf" attr { name: "T" type: "type" } }'


@pytest.mark.parametrize(
    "old, new, expected",
    [
        pytest.param(_model(), _model(), [], id="same"),
        pytest.param(_model(producer=2474), _model(), [], id="older-is-fine"),
        pytest.param(_model(), _model(min_consumer=21), [(RULE, None, 1, "error")], id="min-consumer"),
        pytest.param(_model(), _model(producer=2474, version="2.21.0"), [(RULE, None, 1, "info")], id="producer"),
        pytest.param(
            _model(ops=IDENTITY),
            _model(ops=IDENTITY_NEW_ATTR),
            [(RULE, None, 1, "warning"), (RULE, None, 1, "error")],  # sorted by message
            id="attrs",
        ),
        pytest.param(_model(ops=IDENTITY), _model(ops=IDENTITY + CUSTOM), [(RULE, None, 1, "warning")], id="custom-op"),
        pytest.param(_model(ops=IDENTITY), _model(ops=IDENTITY + ERF), [(RULE, None, 1, "info")], id="new-op"),
        pytest.param(_model(), _model(ops=IDENTITY + CUSTOM), [], id="old-has-no-op-list"),
    ],
)
def test_rule(old, new, expected):
    assert pins(RULE, old, new) == expected


def test_custom_op_declared_in_op_defs_is_known(tmp_path):
    op_list = tmp_path / "ops.pbtxt"
    op_list.write_text(CUSTOM + "\n")
    found = pins(RULE, _model(ops=IDENTITY), _model(ops=IDENTITY + CUSTOM), {"op-defs": [str(op_list)]})
    assert found == [(RULE, None, 1, "info")]


def test_attr_messages():
    from conftest import compat_text

    messages = [f.message for f in compat_text(_model(ops=IDENTITY), _model(ops=IDENTITY_NEW_ATTR)) if f.rule == RULE]
    assert messages == [
        "op Identity has attr 'hint' in version 2's OpDef but not in version 1's: the TensorFlow that wrote "
        "version 1 does not know it, and it rejects nodes of version 2 that set it to another value than the default",
        "op Identity has attr 'mode' in version 2's OpDef but not in version 1's: the TensorFlow that wrote "
        "version 1 does not know it, and it rejects every Identity node of version 2 (the attr has no default)",
    ]


DISABLE_COPY_ON_READ = 'op { name: "DisableCopyOnRead" is_stateful: true }'


@pytest.mark.parametrize(
    "ops, shown",
    [
        # First registered by TensorFlow 2.10 (the bundled registries, taken from the wheels).
        pytest.param(DISABLE_COPY_ON_READ, "DisableCopyOnRead (TensorFlow 2.10+)", id="new-in-2.10"),
        # Every bundled release has Erf (1.15 on): no release to name.
        pytest.param(ERF, "Erf", id="in-every-release"),
    ],
)
def test_a_new_op_is_named_with_the_release_that_first_registers_it(ops, shown):
    from conftest import compat_text

    messages = [f.message for f in compat_text(_model(ops=IDENTITY), _model(ops=IDENTITY + ops)) if f.rule == RULE]
    assert len(messages) == 1 and f"uses ops version 1 does not: {shown};" in messages[0], messages
