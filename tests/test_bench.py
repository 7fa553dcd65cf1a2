"""Smoke tests of the benchmark: the generator's graphs are valid, and bench/run.py --quick prints its table.

A benchmark is not a test: nothing here asserts a time.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import REPO, lint_bytes, lint_text, pinned
from google.protobuf import text_format

from tflint import protos

BENCH = REPO / "bench"


@pytest.fixture(scope="module")
def gen_graph():
    spec = importlib.util.spec_from_file_location("gen_graph", BENCH / "gen_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny(gen_graph):
    return gen_graph.build_graph(150, seed=0)


def test_generator_makes_exactly_the_nodes_asked_for(gen_graph, tiny):
    assert len(tiny.node) == 150
    assert len(gen_graph.build_graph(5).node) == 5


def test_generated_graph_has_the_realistic_parts(tiny):
    ops = {node.op for node in tiny.node}
    assert {
        "Const",
        "Placeholder",
        "AddV2",
        "Mul",
        "MatMul",
        "BiasAdd",
        "Relu",
        "Identity",
        "ConcatV2",
        "Reshape",
        "Sum",
        "Conv2D",
    } <= ops
    assert {"Enter", "Merge", "Switch", "LoopCond", "NextIteration", "Exit"} <= ops
    functions = {function.signature.name for function in tiny.library.function}
    assert len(functions) == 4
    assert ops & ({"PartitionedCall", "StatefulPartitionedCall"} | functions)
    assert any("_output_shapes" in node.attr for node in tiny.node)
    assert any("_class" in node.attr for node in tiny.node)
    assert tiny.versions.producer > 0


def test_generated_graph_lints_clean_as_text_and_binary(gen_graph, tiny):
    text = gen_graph.graph_text(tiny)
    assert pinned(lint_text(text)) == []
    assert pinned(lint_bytes(gen_graph.graph_bytes(tiny))) == []


def test_text_is_tensorflow_layout_and_parses_back(gen_graph, tiny):
    text = gen_graph.graph_text(tiny)
    assert text.startswith('node {\n  name: "input"\n  op: "Placeholder"\n')
    parsed = text_format.Parse(text, protos.GraphDef(), descriptor_pool=protos.POOL)
    assert parsed == tiny
    again = protos.GraphDef()
    again.ParseFromString(gen_graph.graph_bytes(tiny))
    assert again == tiny


def test_generator_is_deterministic(gen_graph, tiny):
    assert gen_graph.graph_bytes(gen_graph.build_graph(150, seed=0)) == gen_graph.graph_bytes(tiny)
    assert gen_graph.graph_bytes(gen_graph.build_graph(150, seed=1)) != gen_graph.graph_bytes(tiny)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """One `run.py --quick` (both sizes): its completed process and the directory of its JSON."""
    # This Python has no TensorFlow: its anchors and its graphs fail, and say so in the report.
    directory = tmp_path_factory.mktemp("quick")
    result = subprocess.run(
        [
            sys.executable,
            str(BENCH / "run.py"),
            "--quick",
            "--quiet",
            "--cache-dir",
            str(directory),
            "--json",
            str(directory / "out.json"),
            "--tf-python",
            sys.executable,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return result, directory


def test_quick_run_prints_the_table(quick_run):
    result, directory = quick_run
    assert result.returncode == 0, result.stderr
    for row in (
        "tflint FILE.pbtxt (process)",
        "text_format.Parse",
        "ParseFromString",
        "peak RSS",
        "text: time/node",
        "tflint --version",
        "on the issue's 27-node TF-written graph",
        "4a-tf",
        "-j speedup",
    ):
        assert row in result.stdout
    exit_codes = next(line for line in result.stdout.splitlines() if line.startswith("tflint exit code"))
    assert exit_codes.split("binary", 1)[1].split() == ["0", "/", "0", "0", "/", "0"]  # both sizes lint clean
    assert (
        "FAILED: graphs written by TensorFlow: TensorFlow could not write the graph: ModuleNotFoundError: No module named 'tensorflow'"
        in result.stdout
    )
    assert (directory / "out.json").exists()


def test_report_of_graphs_written_by_tensorflow(quick_run, tmp_path):
    import json

    result, directory = quick_run
    assert result.returncode == 0, result.stderr
    saved = json.loads((directory / "out.json").read_text())
    saved.pop("tf_sizes", None)  # what the failed TensorFlow run left: replaced below
    row = saved["sizes"]["60"]
    # As if TensorFlow had written a 100k-node graph and imported it in twice tflint's binary time.
    tf_row = {
        key: value
        for key, value in row.items()
        if key.startswith(("tflint_", "protoc_")) or key in ("text_mb", "binary_mb", "wall_seconds")
    }
    tf_row.update(
        nodes=100_123,
        tensorflow={
            "version": "2.21.0",
            "cpp": {"median": 2 * row["tflint_binary"]["median"]},
            "python": {"median": 1.0},
        },
    )
    saved["tf_sizes"] = {"100000": tf_row}
    (tmp_path / "tf.json").write_text(json.dumps(saved))
    shown = subprocess.run(
        [sys.executable, str(BENCH / "run.py"), "--from-json", str(tmp_path / "tf.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0, shown.stderr
    assert "Graphs written by TensorFlow (bench/tf_graph.py)" in shown.stdout
    assert "100,123" in shown.stdout
    [two] = [line.split() for line in shown.stdout.splitlines() if line.startswith("2-tf ")]
    assert two[1:4] == ["binary", "100k", "TF-written:"] and two[-4:] == ["0.50", "<=", "0.4", "MISS"]
    assert any(line.startswith("1a-tf ") for line in shown.stdout.splitlines())
    assert not any(line.startswith("1b-tf ") for line in shown.stdout.splitlines())  # text_format is not timed on them


def test_compat_pair_builds_two_versions_with_one_breaking_change(tmp_path):
    spec = importlib.util.spec_from_file_location("compat_pair", BENCH / "compat_pair.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.build_pair(tmp_path, 300, 1)
    import tflint

    report = tflint.compat(tmp_path, config={})
    assert [(f.rule, str(f.severity)) for f in report.findings] == [("shape-changed", "error")]
    assert (tmp_path / "2" / "saved_model.pb").stat().st_size >= 1_000_000


@pytest.fixture(scope="module")
def gen_weights():
    spec = importlib.util.spec_from_file_location("gen_weights", BENCH / "gen_weights.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_weights_graph_is_a_frozen_model_that_lints_clean_read_or_mapped(gen_weights, tmp_path, monkeypatch):
    from tflint.read import mapped
    from tflint.tf.tensors import MappedBytes, tensor_content

    data = b"".join(gen_weights.graph_chunks(3, side=16))
    assert data == b"".join(gen_weights.graph_chunks(3, side=16))  # deterministic
    graph = protos.GraphDef.FromString(data)
    assert [(node.name, node.op) for node in graph.node] == [("input", "Placeholder")] + [
        pair for index in range(3) for pair in ((f"w{index}", "Const"), (f"matmul{index}", "MatMul"))
    ]
    contents = [node.attr["value"].tensor.tensor_content for node in graph.node if node.op == "Const"]
    assert [len(content) for content in contents] == [16 * 16 * 4] * 3 and len(set(contents)) == 3
    assert graph.versions.producer == gen_weights.PRODUCER
    path = tmp_path / "weights.pb"
    path.write_bytes(data)
    assert pinned(lint_bytes(data)) == []
    monkeypatch.setattr(mapped, "MAP_MIN_BYTES", 1)
    monkeypatch.setattr(mapped, "STRIP_MIN_BYTES", 1024)
    import tflint
    from tflint.read.load import load_path

    assert tflint.lint_file(path).findings == ()
    artifact = load_path(str(path))  # its mapped contents live as long as it does
    const = artifact.graphs[0].nodes[1]
    assert isinstance(tensor_content(const.attr["value"].tensor), MappedBytes)  # the mapped path was taken


def test_report_of_weights_heavy_graphs():
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)

    def row(label: str, mib: float, tflint: float, rss: float, tf_cpp: float) -> dict:
        return {
            "label": label,
            "file_mib": mib,
            "tflint": {"median": tflint, "cpu": tflint / 2, "rss_mb": rss, "rc": [0]},
            "tensorflow": {"version": "2.21.0", "cpp": {"median": tf_cpp}, "python": {"median": 2 * tf_cpp}},
        }

    results = {
        "environment": {"tflint": "0", "python": "3", "protobuf": "7", "protobuf_backend": "upb", "cores": 2},
        "repeats": 3,
        "seed": 0,
        "sizes": {},
        "weights": {"generated": row("512M generated", 512, 0.3, 40, 1.3), "tf": row("ResNet50", 98, 0.3, 120, 0.4)},
    }
    results["targets"] = run.compute_targets(results)
    report = run.format_report(results)
    lines = {line.split()[0]: line.split() for line in report.splitlines() if line.startswith("w")}
    assert lines["w"][-4:] == ["0.23", "<=", "0.5", "ok"]
    assert lines["w-rss"][-4:] == ["0.08x", "<=", "1x", "ok"]
    assert lines["w-tf"][-4:] == ["0.75", "<=", "0.5", "MISS"]
    assert lines["w-tf-rss"][-4:] == ["1.22x", "<=", "1x", "MISS"]
    assert "tflint peak RSS MB (x file)   40 (0.08x)" in report


def test_a_ratio_target_pairs_each_round_with_itself():
    spec = importlib.util.spec_from_file_location("bench_run", BENCH / "run.py")
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    # The machine slowed down 2x after round 1: each round's ratio is 0.5, the medians' 0.8/1.0 would be 0.8.
    row = {
        "tflint_binary": {"median": 0.8, "times": [0.4, 0.8, 0.9]},
        "tensorflow": {"cpp": {"median": 1.0, "times": [0.8, 1.6, 1.8]}},
    }
    assert run.paired_ratio(row, ("tflint_binary",), ("tensorflow", "cpp")) == pytest.approx(0.5)
    row["tensorflow"]["cpp"]["times"] = [1.0]  # rounds that do not pair up: the ratio of the medians
    assert run.paired_ratio(row, ("tflint_binary",), ("tensorflow", "cpp")) == pytest.approx(0.8)
    assert run.paired_ratio(row, ("tflint_text",), ("tensorflow", "cpp")) is None


def test_fix_diff_graph_has_one_attr_to_strip_per_matmul(tmp_path):
    from tflint.api import fix_paths

    spec = importlib.util.spec_from_file_location("fix_diff", BENCH / "fix_diff.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = tmp_path / "g.pbtxt"
    nodes = module.write_graph(path, 0.01)
    [result] = fix_paths([path], write=False)
    assert result.removed == ("MatMul.transpose_a",) * (nodes - 1)
    assert result.diff.count('\n-    key: "transpose_a"\n') == nodes - 1


def test_security_bench_runs_tflint_alone_on_the_suite(tmp_path):
    """bench/security.py without scanners: tflint's row, every malicious model found, no false alarm."""
    out = tmp_path / "security.json"
    done = subprocess.run(
        [sys.executable, str(BENCH / "security.py"), "--json", str(out)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| tflint | 18/18 | 18/18 | 0/5 | 0 |" in done.stdout
    result = json.loads(out.read_text())
    assert {name: row["tflint"]["reported"] for name, row in result["rows"].items()} == {
        name: verdict["malicious"] for name, verdict in result["verdicts"].items()
    }


def test_savedmodel_checks_bench_writes_a_model_whose_checkpoint_is_sound(tmp_path):
    """bench/savedmodel_checks.py's sparse SavedModel: every restored key in its shards, no finding."""
    from tflint.api import lint_file

    spec = importlib.util.spec_from_file_location("savedmodel_checks", BENCH / "savedmodel_checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    model = module.write_model(tmp_path / "m", variables=12, total_bytes=12 << 20, shards=4)
    assert len(list((model / "variables").glob("variables.data-*-of-00004"))) == 4
    assert [(f.rule, f.message) for f in lint_file(model).findings if f.rule.startswith("checkpoint-")] == []
