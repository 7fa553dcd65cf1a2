"""--fix / --diff: strip attrs equal to their default on every bundled TensorFlow, byte-preserving for text."""

from __future__ import annotations

import shutil

from conftest import DATA, REPO

from tflint import protos
from tflint.api import fix_paths, lint_file
from tflint.cli import main

TEXT = """\
# a comment that stays
node {
  name: "a"   # trailing comment
  op: "MatMul"
  input: "x"
  input: "y"
  attr {
    key: "T"
    value { type: DT_FLOAT }
  }
  attr {
    key: "grad_a"
    value {
      b: false
    }
  }
  attr { key: "transpose_b" value { b: true } }
  attr { key: "transpose_a" value { b: false } } attr { key: "grad_b" value { b: false } }
}
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
"""

FIXED = """\
# a comment that stays
node {
  name: "a"   # trailing comment
  op: "MatMul"
  input: "x"
  input: "y"
  attr {
    key: "T"
    value { type: DT_FLOAT }
  }
  attr { key: "transpose_b" value { b: true } }
}
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
"""


def test_text_fix_removes_default_attrs_and_keeps_every_other_byte(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(TEXT)
    [result] = fix_paths([path])
    assert sorted(result.removed) == ["MatMul.grad_a", "MatMul.grad_b", "MatMul.transpose_a"]
    assert path.read_text() == FIXED
    assert lint_file(path).ok


def test_diff_writes_nothing_and_exits_1(tmp_path, capsys):
    path = tmp_path / "g.pbtxt"
    path.write_text(TEXT)
    assert main(["--diff", str(path)]) == 1
    out = capsys.readouterr().out
    assert '-    key: "grad_a"' in out and out.startswith(f"--- {path}")
    assert path.read_text() == TEXT
    path.write_text(FIXED)
    assert main(["--diff", str(path)]) == 0


def test_binary_fix_rewrites_and_the_target_finding_goes(tmp_path, capsys):
    path = tmp_path / "keras_dense.pb"
    shutil.copy(DATA / "target_tf" / "keras_dense.pb", path)
    before = protos.GraphDef.FromString(path.read_bytes())
    assert any(f.rule == "target-attr" for f in lint_file(path, target_tf="1.15").findings)
    assert main(["--fix", "--target-tf", "1.15", str(path)]) == 0
    assert "removed" in capsys.readouterr().err
    after = protos.GraphDef.FromString(path.read_bytes())
    assert [n.name for n in after.node] == [n.name for n in before.node]
    matmul = next(n for n in after.node if n.op == "MatMul")
    assert "grad_a" not in matmul.attr and "T" in matmul.attr


def test_function_bodies_are_fixed_too(tmp_path):
    path = tmp_path / "f.pbtxt"
    path.write_text(
        'library {\n  function {\n    signature { name: "f" }\n'
        '    node_def { name: "a" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } }'
        ' attr { key: "shape" value { shape { } } } attr { key: "debug_name" value { s: "" } } }\n  }\n}\n'
    )
    [result] = fix_paths([path])
    assert result.removed == ("VarHandleOp.debug_name",)
    assert "debug_name" not in path.read_text() and 'key: "shape"' in path.read_text()


def test_an_attr_whose_default_changed_between_releases_is_kept(tmp_path):
    # RaggedTensorToVariant's Tsplits default is not the same in every bundled release.
    path = tmp_path / "r.pbtxt"
    path.write_text('node { name: "r" op: "RaggedTensorToVariant" attr { key: "Tsplits" value { type: DT_INT64 } } }\n')
    assert fix_paths([path], write=False)[0].removed == ()


def test_pre_commit_hook_tflint_fix_runs_tflint_fix():
    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["tflint-fix"]["entry"] == "tflint --fix --force-exclude"  # excluded files are not edited
    assert hooks["tflint-fix"]["files"] == hooks["tflint"]["files"] and hooks["tflint-fix"]["require_serial"]


# Each pair was silently half-ignored before (`--diff --min-tf` printed the releases, no diff).
IGNORED_COMBINATIONS = [
    (["--diff", "--min-tf"], "argument --min-tf: not allowed with argument --diff"),
    (["--fix", "--min-tf"], "argument --min-tf: not allowed with argument --fix"),
    (["--fix", "--show-files"], "argument --show-files: not allowed with argument --fix"),
    (["--diff", "--show-files"], "argument --show-files: not allowed with argument --diff"),
    (["--min-tf", "--show-files"], "argument --show-files: not allowed with argument --min-tf"),
    (["--diff", "--write-baseline", "b.json"], "argument --diff: not allowed with argument --write-baseline"),
    (["--diff", "--statistics"], "argument --diff: not allowed with argument --statistics"),
    (["--diff", "--output", "out.txt"], "argument --diff: not allowed with argument --output"),
    (["--min-tf", "--write-baseline", "b.json"], "argument --min-tf: not allowed with argument --write-baseline"),
    (["--diff", "--baseline", "b.json"], "argument --diff: not allowed with argument --baseline"),
    (["--diff", "--fail-on", "error"], "argument --diff: not allowed with argument --fail-on"),
    (["--diff", "--max-warnings", "3"], "argument --diff: not allowed with argument --max-warnings"),
    (["--min-tf", "--output", "out.txt"], "argument --min-tf: not allowed with argument --output"),
    (["--show-files", "--statistics"], "argument --show-files: not allowed with argument --statistics"),
    (["--show-settings", "g.pbtxt", "--diff"], "argument --show-settings: not allowed with argument --diff"),
    (["--diff", "--format", "sarif"], "argument --diff: not allowed with --format sarif (only text, auto)"),
    (["--diff", "--format", "json"], "argument --diff: not allowed with --format json (only text, auto)"),
    (["--diff", "--format", "github"], "argument --diff: not allowed with --format github (only text, auto)"),
    (["--min-tf", "--format", "junit"], "argument --min-tf: not allowed with --format junit (only text, json, auto)"),
]


def test_a_mode_next_to_a_flag_it_would_ignore_is_a_usage_error(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "g.pbtxt"
    path.write_text(TEXT)
    for flags, message in IGNORED_COMBINATIONS:
        assert main([*flags, str(path)]) == 2, flags
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and message in err, (flags, err)
        assert path.read_text() == TEXT and sorted(p.name for p in tmp_path.iterdir()) == ["g.pbtxt"]


def test_combinations_that_mean_something_still_run(tmp_path, capsys):
    path = tmp_path / "g.pbtxt"
    path.write_text(TEXT)
    assert main(["--diff", "--format", "text", str(path)]) == 1
    assert capsys.readouterr().out.startswith("---")
    assert main(["--diff", "--no-baseline", "--exit-zero", str(path)]) == 0  # shown, not failed
    assert capsys.readouterr().out.startswith("---")
    assert main(["--min-tf", "--format", "json", str(path)]) == 0
    assert capsys.readouterr().out.startswith("[")
    # --fix lints afterwards, so the lint flags keep their meaning
    assert main(["--fix", "--format", "json", "--write-baseline", str(tmp_path / "b.json"), str(path)]) == 0
    assert path.read_text() == FIXED and (tmp_path / "b.json").exists()
