"""The command line: output formats, exit codes 0/1/2, one-line errors, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import CORPUS, require
from google.protobuf.internal import api_implementation

from tflint.cli import main
from tflint.config.settings import TOP_LEVEL_KEYS
from tflint.errors import did_you_mean

THREE_PROBLEMS = """\
node {
  name: "a"
  op: "NoOp"
}
node {
  name: "a"
  op: "NoOp"
}
node {
  name: "b"
  op: "Idenity"
  input: "missing:1"
}
"""


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def three(tmp_path):
    path = tmp_path / "graph.pbtxt"
    path.write_text(THREE_PROBLEMS)
    return path


def test_three_problems_three_findings(capsys, three):
    code, out, err = run(capsys, str(three))
    assert code == 1
    assert err == ""
    lines = out.splitlines()
    assert lines[:3] == [
        f"{three}:6:3: error: Node 'a' is not unique: another node has the same name (first defined at line 2) [duplicate-node-name]",
        f"{three}:10:3: error: Node 'b' uses op 'Idenity', which is not registered (did you mean 'Identity'?) [unknown-op]",
        f"{three}:10:3: error: Node 'b' has input 'missing:1' but no node is named 'missing' [unresolved-input]",
    ]
    assert lines[3] == "Found 3 errors in 1 of 1 file."


def test_json_format_carries_the_same_findings(capsys, three):
    code, out, _ = run(capsys, "--format", "json", str(three))
    assert code == 1
    data = json.loads(out)
    assert [(f["rule"], f["node"], f["line"], f["column"]) for f in data] == [
        ("duplicate-node-name", "a", 6, 3),
        ("unknown-op", "b", 10, 3),
        ("unresolved-input", "b", 10, 3),
    ]
    assert list(data[0]) == [
        "rule",
        "category",
        "severity",
        "message",
        "file",
        "line",
        "column",
        "node",
        "function",
        "graph",
        "fingerprint",
        "url",
    ]


def test_corpus_is_clean(capsys):
    code, out, _ = run(capsys, str(require(CORPUS)))
    assert code == 0, out
    assert out.startswith("All checks passed")


def test_binary_findings_name_the_node(capsys, tmp_path):
    from tflint import protos

    graph = protos.GraphDef()
    graph.node.add(name="x", op="NoSuchOp")
    path = tmp_path / "g.pb"
    path.write_bytes(graph.SerializeToString())
    code, out, _ = run(capsys, str(path))
    assert code == 1
    assert out.splitlines()[0] == f"{path}: error: Node 'x' uses op 'NoSuchOp', which is not registered [unknown-op]"


@pytest.mark.parametrize(
    "content, expected",
    [
        pytest.param(
            b'node {\n  name: "a"\n  op: NoOp"\n}\n',
            ":3:7: error: cannot read text GraphDef: Expected string but found: 'NoOp' [invalid-graph]",
            id="syntax",
        ),
        pytest.param(
            b"\x0a\xff\xff\xff\xff\x0f\x00", ": error: cannot read binary graph: not a valid binary", id="truncated"
        ),
    ],
)
def test_unreadable_graphs_are_findings(capsys, tmp_path, content, expected):
    path = tmp_path / "g.pbtxt"
    path.write_bytes(content)
    code, out, err = run(capsys, str(path))
    assert code == 1
    assert err == ""
    assert out.splitlines()[0].startswith(f"{path}{expected}")


def test_misspelled_rule_in_config_is_exit_2_with_suggestion(capsys, three):
    (three.parent / ".tflint.yaml").write_text("rules:\n  unknwn-op: warning\n")
    code, out, err = run(capsys, str(three))
    assert code == 2
    assert out == ""
    assert (
        err
        == f"tflint: error: {three.parent / '.tflint.yaml'}: rules: unknown rule 'unknwn-op' (did you mean 'unknown-op'?)\n"
    )


def test_config_levels_and_fail_on(capsys, three):
    (three.parent / ".tflint.yaml").write_text(
        "rules:\n  duplicate-node-name: warning\n  unknown-op: off\n  unresolved-input: info\n"
    )
    code, out, _ = run(capsys, str(three))
    assert code == 0
    assert [line.split(": ")[1] for line in out.splitlines()[:-1]] == ["warning", "info"]
    assert run(capsys, "--fail-on", "warning", str(three))[0] == 1
    assert run(capsys, "--fail-on", "info", str(three))[0] == 1


def test_missing_path_is_exit_2(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.pb"))
    assert (code, out) == (2, "")
    assert err == f"tflint: error: {tmp_path / 'nope.pb'}: no such file or directory\n"


def test_unreadable_file_is_exit_2(capsys, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads everything")
    path = tmp_path / "g.pb"
    path.write_bytes(b"")
    path.chmod(0)
    code, _, err = run(capsys, str(path))
    assert code == 2 and "Permission denied" in err


@pytest.mark.parametrize(
    "args, message",
    [
        pytest.param([], "no paths given", id="no-paths"),
        pytest.param(["--format", "xml", "g.pb"], "invalid choice: 'xml'", id="bad-format"),
        pytest.param(["--bogus", "g.pb"], "unrecognized arguments: --bogus", id="bad-flag"),
        pytest.param(["explain", "no-such-rule"], "no rule named 'no-such-rule'", id="explain-unknown"),
        pytest.param(["--input-type", "onnx", "-"], "unknown input type 'onnx'", id="bad-input-type"),
    ],
)
def test_usage_errors_are_one_line_exit_2(capsys, monkeypatch, args, message):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115
    code, out, err = run(capsys, *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err
    assert err.startswith("tflint: ")
    assert err.count("\n") == 1  # one line


def test_stdin(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(THREE_PROBLEMS.encode())))
    code, out, _ = run(capsys, "--stdin-filename", "piped.pbtxt", "-")
    assert code == 1
    assert out.startswith("piped.pbtxt:6:3: error:")


def test_rules_and_explain(capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("unknown-op "))
    assert row.split()[1:3] == ["schema", "error"]
    code, out, _ = run(capsys, "rules", "--format", "json")
    entry = next(entry for entry in json.loads(out) if entry["id"] == "duplicate-node-name")
    assert entry["url"].endswith("/docs/rules.md#duplicate-node-name")
    code, out, _ = run(capsys, "explain", "unknown-op")
    assert code == 0
    assert out.startswith("unknown-op (schema, default level: error)")
    assert "Fail:" in out


def test_version_names_the_registry(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert out.startswith("tflint 0.1.0 (op registry: TensorFlow 2.21.0, GraphDef version 2474")


def test_color_only_when_asked(capsys, three, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run(capsys, "--color", "always", str(three))
    assert "\033[31merror" in out
    _, out, _ = run(capsys, str(three))
    assert "\033[" not in out
    monkeypatch.setenv("FORCE_COLOR", "1")
    _, out, _ = run(capsys, str(three))
    assert "\033[" in out


def test_entry_points_run_without_traceback(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(THREE_PROBLEMS)
    for command in ([sys.executable, "-m", "tflint"], [os.path.join(os.path.dirname(sys.executable), "tflint")]):
        result = subprocess.run(command + [str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 1, result.stderr
        assert result.stdout.count("error:") == 3
        assert "Traceback" not in result.stderr


def test_command_flushes_everything_before_its_quick_exit(tmp_path):
    # The command ends with os._exit (no teardown): a report bigger than stdout's buffer must
    # still arrive whole, and a reader that goes away early must not cause a traceback.
    path = tmp_path / "g.pbtxt"
    path.write_text("".join(f'node {{ name: "n{i}" op: "NoOp" input: "^gone{i}" }}\n' for i in range(2000)))
    command = [sys.executable, "-m", "tflint", str(path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    assert result.stdout.count("unresolved-input") == 2000
    assert result.stdout.endswith("Found 2000 errors in 1 of 1 file.\n")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout.readline()
        process.stdout.close()
        stderr = process.stderr.read()
        assert process.wait(timeout=60) in (0, 1)
    assert b"Traceback" not in stderr


_UPB = api_implementation.Type() == "upb"

# Modules a plain lint never needs: each costs milliseconds of every pre-commit run. dataclasses brings
# inspect (tflint's value classes are records: tflint.records); text_format, descriptor_pool and
# message_factory are protobuf's pure-Python machinery, unused with upb (tflint.protos) and the fast text reader.
NOT_AT_START_UP = (
    "regex",
    "yaml",
    "multiprocessing",
    "hashlib",
    "importlib.resources",
    "difflib",
    "tempfile",
    "dataclasses",
    "inspect",
    "tflint.baseline",
    "tflint.engine.compat",
) + (
    ("google.protobuf.text_format", "google.protobuf.descriptor_pool", "google.protobuf.message_factory")
    if _UPB
    else ()
)
TEXT_READERS = ("tflint.read.text", "tflint.read.textvalues")


@pytest.mark.parametrize(
    "name, unneeded",
    [
        pytest.param("b_keras_cnn_frozen.pb", NOT_AT_START_UP + TEXT_READERS, id="binary"),
        pytest.param("b_keras_cnn_frozen.pbtxt", NOT_AT_START_UP, id="text"),
    ],
)
def test_a_plain_lint_imports_nothing_it_does_not_need(tmp_path, name, unneeded):
    graph = tmp_path / name  # no .tflint.yaml above it: nothing to read YAML for
    graph.write_bytes(require(CORPUS / name).read_bytes())
    script = (
        "import sys\n"
        "from tflint.cli import main\n"
        f"code = main([{str(graph)!r}])\n"
        f"print(code, [name for name in {unneeded!r} if name in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.stdout.splitlines()[-1] == "0 []", result.stdout + result.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["g.pbtxt"],
        ["a.pb", "b.pbtxt", "models/"],
        ["--force-exclude", "a.pb", "b.pb"],
        ["a.pb", "--statistics", "--exit-zero", "--debug"],
        ["--no-respect-gitignore", "--force-exclude", "--force-exclude", "a.pb"],
        ["--debug"],
    ],
)
def test_a_plain_command_line_is_read_as_argparse_reads_it(argv):
    # cli._parse_args reads these without argparse; its table of defaults must stay argparse's.
    from tflint.cli import _build_parser, _parse_args

    assert vars(_parse_args(argv)) == vars(_build_parser().parse_args(argv))


def test_every_option_has_its_default_in_the_plain_reading():
    from tflint.cli import _DEFAULTS, _PLAIN_FLAGS, _build_parser

    parser = _build_parser()
    assert _DEFAULTS == vars(parser.parse_args([]))
    flags = {option: action for action in parser._actions for option in action.option_strings}
    for flag, (dest, value) in _PLAIN_FLAGS.items():
        assert flags[flag].dest == dest and flags[flag].nargs == 0 and flags[flag].const == value


@pytest.mark.parametrize(
    "argv, message",
    [
        pytest.param(["a.pb", "--force-exclude", "b.pb"], "unrecognized arguments: b.pb", id="paths-around-a-flag"),
        pytest.param(["--force-excluded", "a.pb"], "unrecognized arguments: --force-excluded", id="unknown-flag"),
        pytest.param(["--jobs", "x", "a.pb"], "argument -j/--jobs", id="bad-value"),
    ],
)
def test_what_the_plain_reading_does_not_take_argparse_refuses(capsys, argv, message):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_plain_lint_builds_no_argument_parser_nor_paths(tmp_path):
    # argparse, and pathlib (with urllib.parse and ipaddress): 15 ms of a small graph's 100 ms.
    graph = tmp_path / "g.pbtxt"
    graph.write_bytes(require(CORPUS / "b_keras_cnn_frozen.pbtxt").read_bytes())
    # Counted from after start-up: an editable install's import hook brings pathlib itself (the wheel's CI run has none).
    script = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from tflint.cli import main\n"
        f"code = main(['--force-exclude', {str(graph)!r}])\n"
        "print(code, [name for name in ('argparse', 'shutil', 'pathlib') if name in set(sys.modules) - before])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert result.stdout.splitlines()[-1] == "0 []", result.stdout + result.stderr


def test_version_imports_no_argument_parser_nor_typing():
    # `tflint --version` is the cheapest command (editors and CI call it): answered before argparse.
    unneeded = ("argparse", "typing", "difflib", "shutil", "google.protobuf", "tflint.api")
    script = (
        "import sys\n"
        "from tflint.cli import main\n"
        "code = main(['--version'])\n"
        f"print(code, [name for name in {unneeded!r} if name in sys.modules])\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("tflint ") and "op registry: TensorFlow" in lines[0], result.stderr
    assert lines[-1] == "0 []", result.stdout + result.stderr


# --- failing policy, statistics, progress -------------------------------------------------------

WARNINGS = (
    'node {\n  name: "a"\n  op: "NoOp"\n  attr { key: "x" value { i: 1 } }\n  attr { key: "y" value { i: 1 } }\n}\n'
)


@pytest.mark.parametrize(
    "args, expected",
    [
        pytest.param([], 0, id="warnings-pass-by-default"),
        pytest.param(["--max-warnings", "2"], 0, id="at-the-limit"),
        pytest.param(["--max-warnings", "1"], 1, id="over-the-limit"),
        pytest.param(["--max-warnings", "0", "--exit-zero"], 0, id="exit-zero-wins"),
        pytest.param(["--fail-on", "warning"], 1, id="fail-on-warning"),
        pytest.param(["--fail-on", "warning", "--exit-zero"], 0, id="exit-zero"),
    ],
)
def test_failing_policy(capsys, tmp_path, args, expected):
    path = tmp_path / "g.pbtxt"
    path.write_text(WARNINGS)
    code, out, err = run(capsys, *args, str(path))
    assert code == expected
    assert out.splitlines()[-1] == "Found 2 warnings in 1 of 1 file."
    limit = args[1] if args[:1] == ["--max-warnings"] else None
    assert err == (f"tflint: 2 warnings, more than --max-warnings {limit}\n" if limit in ("0", "1") else "")


def test_exit_zero_never_hides_usage_errors(capsys, tmp_path):
    assert run(capsys, "--exit-zero", str(tmp_path / "missing.pbtxt"))[0] == 2
    assert run(capsys, "--max-warnings", "many", str(tmp_path))[0] == 2


def test_statistics_in_text(capsys, three):
    code, out, _ = run(capsys, "--statistics", str(three))
    assert code == 1
    assert out.splitlines()[3:] == [
        "",
        "1  duplicate-node-name  error",
        "1  unknown-op           error",
        "1  unresolved-input     error",
        "",
        "Found 3 errors in 1 of 1 file.",
    ]


def test_progress_only_on_a_terminal(capsys, tmp_path, monkeypatch):
    import io

    from tflint.report import progress

    for number in range(3):
        (tmp_path / f"g{number}.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    run(capsys, str(tmp_path))  # stderr is captured here: not a terminal
    assert capsys.readouterr().err == ""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.0)  # every call draws
    monkeypatch.setattr(sys, "stderr", terminal)
    code = main(["-j", "1", str(tmp_path)])
    assert code == 0
    written = terminal.getvalue()
    assert f"\r\033[Ktflint: [1/3] {tmp_path / 'g0.pbtxt'} (unknown-op)" in written
    assert f"\r\033[Ktflint: [3/3] {tmp_path / 'g2.pbtxt'}" in written
    assert written.endswith("\r\033[K")  # erased before the report is printed
    assert "All checks passed" not in written  # the report itself goes to stdout


def test_progress_waits_for_its_delay_and_draws_at_most_every_interval():
    import io

    from tflint.report.progress import Progress

    stream = io.StringIO()
    quiet = Progress(stream, delay=3600, interval=0)
    quiet.file(1, 2, "a.pb")
    quiet.close()
    assert stream.getvalue() == ""  # a quick run shows nothing, and has nothing to erase
    drawing = Progress(stream, delay=0, interval=3600)
    drawing.file(1, 2, "a.pb")
    drawing.rule("unknown-op")  # within the interval: not drawn
    drawing.close()
    assert stream.getvalue() == "\r\033[Ktflint: [1/2] a.pb\r\033[K"


def test_progress_on_a_terminal_keeps_the_parallel_workers(tmp_path, monkeypatch):
    """No thread of its own: by default (-j not given) a process with another thread is never forked."""
    import io
    import os
    import threading

    from tflint import api
    from tflint.engine import parallel
    from tflint.report.progress import Progress

    threads = threading.active_count()
    progress = Progress(io.StringIO(), delay=0, interval=0)
    assert threading.active_count() == threads == 1
    paths = []
    for number in range(3):
        path = tmp_path / f"g{number}.pbtxt"
        path.write_text('node { name: "a" op: "NoOp" }\n')
        paths.append(str(path))
    monkeypatch.setattr(parallel, "PARALLEL_MIN_BYTES", 0)
    assert parallel.worker_count(paths, None) == min(os.cpu_count() or 1, 3)
    report = api.lint_paths(paths, progress=progress)
    assert report.files == tuple(paths) and report.findings == ()


def test_rules_subcommand_usage_errors(capsys):
    code, out, err = run(capsys, "rules", "--bogus")
    assert (code, out) == (2, "")
    assert err.startswith("tflint: usage error: unrecognized arguments: --bogus")


@pytest.mark.parametrize(
    "argv", [["--fail", "error", "g.pbtxt"], ["--form", "json", "g.pbtxt"], ["rules", "--form", "json"]]
)
def test_options_are_never_abbreviated(capsys, tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    code, _, err = run(capsys, *argv)
    assert code == 2
    flag = next(arg for arg in argv if arg.startswith("--"))
    assert err.startswith(f"tflint: usage error: unrecognized arguments: {flag}")


@pytest.mark.parametrize(
    "argv, command",
    [
        (["rule", "unknown-op"], "rules"),
        (["explan", "unknown-op"], "explain"),
        (["ruls"], "rules"),
        (["compt"], "compat"),
    ],
)
def test_a_misspelt_command_is_named(capsys, tmp_path, monkeypatch, argv, command):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert (code, err) == (
        2,
        f"tflint: error: {argv[0]}: no such file or directory (did you mean 'tflint {command}'?)\n",
    )


@pytest.mark.parametrize(
    "config, message",
    [
        pytest.param(
            "rules:\n  unknown-op: zzz\n",
            "rules.unknown-op: unknown level 'zzz' (expected one of: off, info, warning, error)",
            id="level",
        ),
        pytest.param("fail-on: warn\n", "fail-on: unknown level 'warn' (did you mean 'warning'?)", id="close-level"),
        pytest.param("rules:\n  zzzz: error\n", "rules: unknown rule 'zzzz' ('tflint rules' lists them)", id="rule"),
        pytest.param("zzz: 1\n", f"unknown key 'zzz'{did_you_mean('zzz', TOP_LEVEL_KEYS)}", id="key"),
    ],
)
def test_an_unknown_name_in_the_config_lists_the_choices_or_the_closest(capsys, tmp_path, config, message):
    (tmp_path / "c.yaml").write_text(config)
    (tmp_path / "g.pbtxt").write_text('node { name: "a" op: "NoOp" }\n')
    code, _, err = run(capsys, "--config", str(tmp_path / "c.yaml"), str(tmp_path / "g.pbtxt"))
    assert (code, err) == (2, f"tflint: error: {tmp_path / 'c.yaml'}: {message}\n")


def test_explain_without_a_close_rule_points_at_the_list(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "explain", "zzz")
    assert (code, err) == (2, "tflint: error: no rule named 'zzz' ('tflint rules' lists them)\n")


def test_one_warning_over_the_limit_is_singular(capsys, tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(WARNINGS.replace('  attr { key: "y" value { i: 1 } }\n', ""))
    code, _, err = run(capsys, "--max-warnings", "0", str(path))
    assert (code, err) == (1, "tflint: 1 warning, more than --max-warnings 0\n")


@pytest.mark.parametrize("option", ["--select", "--extend-select", "--ignore"])
@pytest.mark.parametrize("value", ["", " , "])
def test_an_empty_rule_list_is_a_usage_error(capsys, tmp_path, option, value):
    path = tmp_path / "g.pbtxt"
    path.write_text(WARNINGS)
    code, out, err = run(capsys, option, value, str(path))
    assert (code, out) == (2, "")
    assert err == (
        f"tflint: usage error: argument {option}: expected comma-separated rule ids or categories, got {value!r}"
        " (see 'tflint --help')\n"
    )


@pytest.mark.parametrize(
    "argv, help_of",
    [
        (["compat"], "tflint compat"),
        (["compat", "a", "b", "c"], "tflint compat"),
        (["explain", "a", "b"], "tflint explain"),
        (["rules", "--bogus"], "tflint rules"),
        (["--bogus"], "tflint"),
    ],
)
def test_usage_errors_point_to_their_own_help(capsys, argv, help_of):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.endswith(f" (see '{help_of} --help')\n")


def test_target_tf_alone_lists_the_releases(capsys):
    code, out, err = run(capsys, "--target-tf", "x")
    assert (code, out) == (2, "")
    assert err.startswith("tflint: error: unknown TensorFlow version 'x' for target-tf; known: 1.15, 2.0,")


@pytest.mark.parametrize("spec", ["\u00b2.1", "2.\u00b2", "\u0663.4"])
def test_target_tf_with_unicode_digits_is_a_usage_error(capsys, tmp_path, spec):
    path = tmp_path / "g.pbtxt"
    path.write_text(WARNINGS)
    code, _, err = run(capsys, "--target-tf", spec, str(path))
    assert code == 2 and "unknown TensorFlow version" in err and "internal error" not in err


def test_a_misspelt_input_type_gets_a_suggestion(capsys, tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_text(WARNINGS)
    code, _, err = run(capsys, "--input-type", "grapdef", str(path))
    assert (code, err) == (2, "tflint: error: unknown input type 'grapdef' (did you mean 'graphdef'?)\n")
