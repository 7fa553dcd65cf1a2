"""--target-tf / target-tf: / target_tf=: which releases, how they are named, what a run without one costs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import lint_text

from tflint import ConfigError, UsageError
from tflint.api import lint_file, min_tf
from tflint.cli import main
from tflint.config.settings import config_from_mapping
from tflint.tf.releases import known_releases, resolve

DATA = Path(__file__).parent / "data"
FUNCTIONS = DATA / "real" / "tf1_functions.pb"  # written by TF 2.21: VarHandleOp.allowed_devices / debug_name


@pytest.mark.parametrize(
    "spelling, meant",
    [("2.4", "2.4"), ("2.4.4", "2.4"), ("v2.4", "2.4"), (" 2.4 ", "2.4"), ("2.4.0rc1", "2.4"), ("1.15.5", "1.15")],
)
def test_resolve_spellings(spelling, meant):
    assert resolve(spelling) == meant


@pytest.mark.parametrize("spelling", ["3.0", "2", "", "latest", "2.x", "1.14", "2.99.1"])
def test_unknown_version_lists_the_known_ones(spelling):
    with pytest.raises(UsageError) as error:
        resolve(spelling)
    assert "known: " + ", ".join(known_releases()) in str(error.value)


def test_bundled_releases_cover_the_measured_ones():
    assert {"1.15", "2.4", "2.8", "2.11", "2.15", "2.18", "2.21"} <= set(known_releases())
    assert list(known_releases()) == sorted(known_releases(), key=lambda name: tuple(map(int, name.split("."))))


@pytest.mark.parametrize(
    "value, expected",
    [
        ("2.4", ("2.4",)),
        (2.4, ("2.4",)),
        (["2.11.1", "1.15"], ("1.15", "2.11")),
        ("2.11,2.4,2.11", ("2.4", "2.11")),
        ([], ()),
    ],
)
def test_config_target_tf(value, expected):
    assert config_from_mapping({"target-tf": value}).target_tf == expected


@pytest.mark.parametrize("value", ["9.9", ["2.4", "nope"], {"a": 1}, [True]])
def test_config_rejects_bad_target_tf(value):
    with pytest.raises(ConfigError) as error:
        config_from_mapping({"target-tf": value})
    assert "target-tf" in str(error.value)


def test_config_float_that_yaml_may_have_shortened_is_refused():
    if "2.10" not in known_releases():
        pytest.skip("2.10 not bundled: 2.1 is unambiguous")
    with pytest.raises(ConfigError, match="quote the version"):
        config_from_mapping({"target-tf": 2.1})


def test_cli_unknown_target_is_a_usage_error(capsys):
    assert main(["--target-tf", "2.99", str(FUNCTIONS)]) == 2
    err = capsys.readouterr().err
    assert "unknown TensorFlow version '2.99'" in err and "1.15" in err and "\n" == err[-1] and err.count("\n") == 1


def test_cli_target_finds_what_the_default_does_not(capsys):
    assert main([str(FUNCTIONS)]) == 0
    capsys.readouterr()
    assert main(["--target-tf", "2.4", str(FUNCTIONS)]) == 1
    out = capsys.readouterr().out
    assert "[target-attr]" in out and "TF 2.4:" in out


def test_api_target_tf_and_patch_versions_agree():
    a = lint_file(FUNCTIONS, target_tf="2.4.4")
    b = lint_file(FUNCTIONS, target_tf=["2.4"])
    assert a.findings == b.findings and any(f.rule == "target-attr" for f in a.findings)
    assert not any(f.rule.startswith("target-") for f in lint_file(FUNCTIONS).findings)


def test_api_target_tf_overrides_the_config(tmp_path):
    config = tmp_path / ".tflint.yaml"
    config.write_text("target-tf: '2.4'\n")
    assert any(f.rule == "target-attr" for f in lint_file(FUNCTIONS, str(config)).findings)
    assert not any(f.rule.startswith("target-") for f in lint_file(FUNCTIONS, str(config), target_tf="2.21").findings)


def test_a_run_without_target_neither_imports_nor_reads_the_releases():
    code = (
        "import sys, builtins\n"
        "opened = []\n"
        "real = builtins.open\n"
        "builtins.open = lambda f, *a, **k: (opened.append(str(f)), real(f, *a, **k))[1]\n"
        "from tflint.api import lint_file\n"
        f"lint_file({str(FUNCTIONS)!r})\n"
        "modules = ('tflint.tf.releases', 'tflint.tf.target', 'tflint.read.text_schema')\n"
        "assert not [m for m in modules if m in sys.modules]\n"
        "assert not [f for f in opened if 'releases' in f], opened\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_text_schema_names_the_field_and_the_release():
    text = 'node { name: "a" op: "NoOp" experimental_type { type_id: TFT_PRODUCT args { type_id: TFT_SHAPE_TENSOR } } }'
    found = [f for f in lint_text(text, {"target-tf": ["2.4", "2.8"]}) if f.rule == "target-text-schema"]
    messages = sorted(f.message for f in found)
    assert len(messages) == 2
    assert messages[0].startswith("TF 2.4: field 'experimental_type' of tensorflow.NodeDef is not in")
    assert messages[1].startswith("TF 2.8: enum value TFT_SHAPE_TENSOR of tensorflow.FullTypeId")
    assert all("the binary form would parse" in m for m in messages)


def test_text_schema_counts_further_uses_once():
    node = 'node {{ name: "{0}" op: "NoOp" experimental_type {{ type_id: TFT_PRODUCT }} }}\n'
    text = "".join(node.format(name) for name in "abc")
    found = [f for f in lint_text(text, {"target-tf": "2.4"}) if f.rule == "target-text-schema"]
    assert [(f.line, "and 2 more uses" in f.message) for f in found] == [(1, True)]


def test_min_tf_names_the_oldest_release_and_the_reasons(capsys):
    result = min_tf(FUNCTIONS)
    names = list(known_releases())
    assert result.release is not None and names.index(result.release) > names.index("2.4")
    reasons = [reason for _, items in result.needs for reason in items]
    assert "VarHandleOp.allowed_devices" in reasons
    assert main(["--min-tf", "--format", "json", str(FUNCTIONS)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown[0]["min_tf"] == result.release and shown[0]["needs"][0]["release"] == result.needs[0][0]


def test_min_tf_of_a_graph_no_release_imports(tmp_path, capsys):
    bad = tmp_path / "bad.pbtxt"
    bad.write_text('node { name: "a" op: "NoSuchOp" }\n')
    assert min_tf(bad).release is None
    assert main(["--min-tf", str(bad)]) == 1
    assert "no bundled TensorFlow imports it (unknown-op)" in capsys.readouterr().out
