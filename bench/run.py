"""Time tflint against the parsers it replaces, on generated graphs, and print issue 5's targets.

    python bench/run.py                                   # 10k, 100k, 300k nodes, median of 3
    python bench/run.py --tf-python $TF_PYTHON --json out.json
    python bench/run.py --quick                           # tiny graphs, one repeat: a smoke run

Everything is measured side by side in one run, and only ratios are compared
with targets: absolute times vary between machines. Graphs come from
gen_graph.py and are cached (see --cache-dir). With --tf-python, TensorFlow
also writes graphs of the kind the issue's figures were measured on
(tf_graph.py), and targets 1a and 2 are reported on those too. See
README.md for each row.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen_graph  # noqa: E402  (a sibling script, not a package)
import gen_weights  # noqa: E402

TF_GRAPH_SCRIPT = Path(__file__).resolve().with_name("tf_graph.py")
TF_WEIGHTS_SCRIPT = Path(__file__).resolve().with_name("tf_weights.py")
TF_WEIGHTS_MODEL = "ResNet50"

DEFAULT_SIZES = (10_000, 100_000, 300_000)
QUICK_SIZES = (60, 240)
SMALL_GRAPH_NODES = 40  # "a small graph file (< 50 nodes)": the pre-commit case
# Issue 18's own small file ("a 27-node .pbtxt"): a graph TensorFlow 1.x wrote, kept in the tests.
ISSUE_SMALL_GRAPH = Path(__file__).resolve().parent.parent / "tests" / "data" / "corpus" / "a_tf1_saver_ref.graph.pbtxt"
JOBS_FILES = 8
DEFAULT_JOBS_NODES = 20_000
QUICK_JOBS_NODES = 60
# The size each per-size target is stated at; the nearest size run stands in when it was not.
TEXT_SIZE, BINARY_SIZE, MEMORY_SIZE = 100_000, 100_000, 300_000
# What the in-process workers measure (each timing in a fresh interpreter).
INPROCESS_KEYS = ("parse_binary", "lint_binary", "text_format", "lint_text")


# -- measuring ------------------------------------------------------------------------------


# Started with `python -S` (a few MB) to run one command: its wall time and peak RSS go to a file.
# Linux gives a forked child the parent's resident size as its starting peak, so a command
# started straight from this process (which generated 300k-node graphs) would report at least
# this process's size; started from the small launcher, the peak is the command's own.
_LAUNCHER = r"""
import os, sys, time
start = time.perf_counter()
pid = os.posix_spawnp(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(sys.argv[1], "w") as out:
    cpu = usage.ru_utime + usage.ru_stime
    out.write("%r %d %d %r" % (seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), cpu))
"""


def run_process(
    command: Sequence[str], stdin_path: str | os.PathLike[str] | None = None, capture: bool = False
) -> dict[str, Any]:
    """Run one command to completion: wall seconds, its own peak RSS (MB), exit code, CPU seconds, output.

    The command runs under _LAUNCHER, which times it from spawn to exit (without the
    launcher's own start-up) and reads its peak RSS from os.wait4. Output goes to temporary
    files, not pipes, so the command can never block on a full pipe.
    """
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.NamedTemporaryFile("r", suffix=".txt") as report,
    ):
        stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
        try:
            launcher = subprocess.run(
                [sys.executable, "-S", "-c", _LAUNCHER, report.name, *command],
                stdin=stdin,
                stdout=out if capture else subprocess.DEVNULL,
                stderr=err,
            )
        finally:
            if stdin_path:
                stdin.close()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode("utf-8", "replace")
        measured = report.read().split()
    if launcher.returncode or len(measured) != 4:
        raise RuntimeError(f"could not run {command[0]}: {stderr.strip()[-500:]}")
    seconds, max_rss_kb, code, cpu = float(measured[0]), int(measured[1]), int(measured[2]), float(measured[3])
    return {"seconds": seconds, "rss_mb": max_rss_kb / 1024, "rc": code, "cpu": cpu, "stdout": stdout, "stderr": stderr}


def time_process(
    command: Sequence[str], repeats: int, stdin_path: str | os.PathLike[str] | None = None, capture: bool = False
) -> dict[str, Any]:
    """Median wall time of `repeats` runs, the largest peak RSS, every exit code, the last output."""
    runs = [run_process(command, stdin_path, capture) for _ in range(repeats)]
    return {**_summary(runs), "stdout": runs[-1]["stdout"], "stderr": runs[-1]["stderr"]}


def _median_of(times: list[float]) -> dict[str, Any]:
    return {"median": statistics.median(times), "times": times}


def worker(kind: str, text_path: str, binary_path: str, warmup_path: str) -> dict[str, Any]:
    """One in-process timing, in the fresh interpreter `--worker` starts: lint_file or a protobuf parser."""
    from google.protobuf import text_format

    import tflint
    from tflint import protos

    try:
        tflint.lint_file(warmup_path)  # imports, the bundled registry: paid once per process, not per file
    except Exception:
        pass  # reported by the timed call below
    text = Path(text_path).read_text("utf-8")
    data = Path(binary_path).read_bytes()
    actions: dict[str, Callable[[], Any]] = {
        "parse_binary": lambda: protos.GraphDef().ParseFromString(data),
        "lint_binary": lambda: tflint.lint_file(binary_path),
        "text_format": lambda: text_format.Parse(text, protos.GraphDef(), descriptor_pool=protos.POOL),
        "lint_text": lambda: tflint.lint_file(text_path),
    }
    start = time.perf_counter()
    try:
        actions[kind]()
    except Exception as error:  # a broken tflint is a result to report, not a reason to stop
        return {"error": f"{type(error).__name__}: {error}"}
    return {"seconds": time.perf_counter() - start}


# Run by a TensorFlow interpreter: TensorFlow's C++ importer alone (bytes in, graph built, as
# import_graph_def calls it), then the whole Python import_graph_def (ParseFromString included).
_TF_SCRIPT = r"""
import json, sys, time
import tensorflow as tf
from tensorflow.python.client import pywrap_tf_session as c_api
from tensorflow.python.framework import c_api_util
path, repeats = sys.argv[1], int(sys.argv[2])
data = open(path, "rb").read()
cpp, python = [], []
for _ in range(repeats):
    graph = tf.Graph()
    start = time.perf_counter()
    options = c_api_util.ScopedTFImportGraphDefOptions()
    c_api.TF_ImportGraphDefOptionsSetPrefix(options.options, "import")
    buffer = c_api.TF_NewBufferFromString(data)
    try:
        with graph._c_graph.get() as c_graph:
            results = c_api.TF_GraphImportGraphDefWithResults(c_graph, buffer, options.options)
        c_api_util.ScopedTFImportGraphDefResults(results)
    finally:
        c_api.TF_DeleteBuffer(buffer)
    cpp.append(time.perf_counter() - start)
    del graph
    start = time.perf_counter()
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(data)
    with tf.Graph().as_default():
        tf.graph_util.import_graph_def(graph_def, name="")
    python.append(time.perf_counter() - start)
print(json.dumps({"version": tf.__version__, "cpp": cpp, "python": python}))
"""


def measure_tensorflow(tf_python: str, binary_path: Path, repeats: int) -> dict[str, Any]:
    """TensorFlow's importer on the binary graph, in the TensorFlow interpreter `tf_python`."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    result = subprocess.run(
        [tf_python, "-c", _TF_SCRIPT, str(binary_path), str(repeats)], capture_output=True, text=True, env=env
    )
    if result.returncode:
        raise RuntimeError(f"TensorFlow import failed: {result.stderr.strip().splitlines()[-1:]}")
    raw = json.loads(result.stdout.strip().splitlines()[-1])
    return {"version": raw["version"], "cpp": _median_of(raw["cpp"]), "python": _median_of(raw["python"])}


# -- the run --------------------------------------------------------------------------------


def _protoc_commands() -> list[tuple[str, list[str]]]:
    """`protoc --encode` commands available here: pip's grpcio-tools, and a system protoc."""
    spec = importlib.util.find_spec("tflint.protos")
    proto_dir = spec.submodule_search_locations[0] if spec and spec.submodule_search_locations else None
    if proto_dir is None or not Path(proto_dir, "graph.proto").exists():
        return []
    arguments = ["--encode=tensorflow.GraphDef", f"-I{proto_dir}", "graph.proto"]
    commands = []
    if importlib.util.find_spec("grpc_tools") is not None:
        commands.append(("grpc_tools", [sys.executable, "-m", "grpc_tools.protoc", *arguments]))
    system = shutil.which("protoc")
    if system:
        commands.append(("system", [system, *arguments]))
    return commands


def _has_jobs_option(tflint: list[str]) -> bool:
    """Whether `tflint --help` offers -j / --jobs."""
    result = subprocess.run([*tflint, "--help"], capture_output=True, text=True)
    return any(token in result.stdout for token in (" -j ", " -j,", "-j N", "--jobs"))


def cached_tf_graph(tf_python: str, nodes: int, cache_dir: str | os.PathLike[str]) -> tuple[Path, Path, int]:
    """(text path, binary path, top-level nodes) of a graph TensorFlow writes with tf_graph.py, kept between runs."""
    key = hashlib.sha256(TF_GRAPH_SCRIPT.read_bytes()).hexdigest()[:10]
    stem = Path(cache_dir) / f"tf-graph-n{nodes}-{key}"
    text_path, binary_path, count_path = (stem.with_suffix(suffix) for suffix in (".pbtxt", ".pb", ".nodes"))
    if not (text_path.exists() and binary_path.exists() and count_path.exists()):
        stem.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        done = subprocess.run(
            [tf_python, str(TF_GRAPH_SCRIPT), str(nodes), str(stem)], capture_output=True, text=True, env=env
        )
        if done.returncode:
            raise RuntimeError(
                f"TensorFlow could not write the graph: {(done.stderr.strip().splitlines() or ['no output'])[-1]}"
            )
        count_path.write_text(done.stdout.strip().splitlines()[-1] + "\n")  # written last: marks the pair complete
    return text_path, binary_path, int(count_path.read_text())


def measure_size(
    args: argparse.Namespace,
    nodes: int,
    small_text: Path,
    protoc: list[tuple[str, list[str]]],
    log: Callable[[str], None],
    tf_written: bool = False,
) -> dict[str, Any]:
    """Every measurement for one graph size.

    The repeats are interleaved: each round times every command once, so a machine whose
    speed drifts over the minutes a column takes (a shared or virtual one) slows the
    numerator and the denominator of each ratio alike. With `tf_written`, the graph is
    TensorFlow's (tf_graph.py) and only whole processes are timed (no in-process rows:
    text_format.Parse alone would take minutes at 300k nodes, for no target of its own).
    """
    started = time.perf_counter()
    if tf_written:
        text_path, binary_path, written = cached_tf_graph(args.tf_python, nodes, args.cache_dir)
    else:
        text_path, binary_path = gen_graph.cached_graph(nodes, args.seed, args.cache_dir)
        written = nodes
    in_process_keys = () if tf_written else INPROCESS_KEYS
    row: dict[str, Any] = {
        "nodes": written,
        "text_mb": text_path.stat().st_size / 1e6,
        "binary_mb": binary_path.stat().st_size / 1e6,
        "text_file": str(text_path),
        "binary_file": str(binary_path),
    }
    made = "written by TensorFlow" if tf_written else "generated"
    log(
        f"{nodes} nodes ({made}, {written} nodes): ready in {time.perf_counter() - started:.1f} s ({row['text_mb']:.1f} MB text)"
    )
    processes: dict[str, list[dict[str, Any]]] = {}
    in_process: dict[str, list[float]] = {key: [] for key in in_process_keys}
    tensorflow: list[dict[str, Any]] = []
    for round_number in range(1, args.repeats + 1):
        # Each ratio's two sides back to back (tflint text then protoc, tflint binary then TensorFlow):
        # a target is the median of the rounds' ratios, so the machine's speed drifting between
        # rounds moves both sides of each ratio alike. The slow in-process rows come last.
        processes.setdefault("tflint_text", []).append(run_process([*args.tflint, str(text_path)]))
        for name, command in protoc:
            processes.setdefault(f"protoc_{name}", []).append(run_process(command, stdin_path=text_path))
        processes.setdefault("tflint_binary", []).append(run_process([*args.tflint, str(binary_path)]))
        if args.tf_python and len(tensorflow) == round_number - 1:
            try:
                tensorflow.append(measure_tensorflow(args.tf_python, binary_path, 1))
            except (RuntimeError, OSError, ValueError) as error:
                row["tensorflow"] = {"error": str(error), "cpp": {"error": str(error)}, "python": {"error": str(error)}}
        # One fresh interpreter per timing: a second lint of a big file in the same process can be
        # slower than the first (heap growth), and that is not what one `tflint FILE` run pays.
        for key in in_process_keys:
            if key in row:
                continue  # failed in an earlier round
            command = [sys.executable, __file__, "--worker", key, str(text_path), str(binary_path), str(small_text)]
            done = subprocess.run(command, capture_output=True, text=True)
            result = (
                json.loads(done.stdout.strip().splitlines()[-1])
                if done.returncode == 0
                else {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
            )
            if "error" in result:
                row[key] = result
            else:
                in_process[key].append(result["seconds"])
        log(
            f"  round {round_number}: tflint text {processes['tflint_text'][-1]['seconds']:.3f} s, binary {processes['tflint_binary'][-1]['seconds']:.3f} s"
            + "".join(f", protoc {processes[f'protoc_{name}'][-1]['seconds']:.3f} s" for name, _ in protoc)
            + (f", TF C++ {tensorflow[-1]['cpp']['median']:.3f} s" if len(tensorflow) == round_number else "")
        )
    for key, runs in processes.items():
        entry = _summary(runs)
        if key.startswith("tflint_") and any(code not in (0, 1) for code in entry["rc"]):
            entry["error"] = (
                f"exit {_codes(entry['rc'])}: " + (runs[-1]["stderr"].strip().splitlines() or [""])[-1][:300]
            )
        elif key.startswith("protoc_") and entry["rc"] != [0]:
            entry["error"] = runs[-1]["stderr"][-500:]
        row[key] = entry
    for key, times in in_process.items():
        if key not in row:
            row[key] = _median_of(times)
        elif "error" in row[key]:
            log(f"  in-process {key}: {row[key]['error']}")
    if tensorflow and "tensorflow" not in row:
        row["tensorflow"] = {
            "version": tensorflow[0]["version"],
            "cpp": _median_of([time for run in tensorflow for time in run["cpp"]["times"]]),
            "python": _median_of([time for run in tensorflow for time in run["python"]["times"]]),
        }
    elif "tensorflow" in row:
        log(f"  TensorFlow: {row['tensorflow']['error']}")
    log(
        f"  medians: tflint text {_seconds(median(row, 'tflint_text'))} s, binary {_seconds(median(row, 'tflint_binary'))} s, "
        f"in-process lint text {_seconds(median(row, 'lint_text'))} s, text_format.Parse {_seconds(median(row, 'text_format'))} s"
    )
    row["wall_seconds"] = time.perf_counter() - started
    return row


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Median wall time of some runs of one command, the largest peak RSS, every exit code."""
    return {
        "median": statistics.median(run["seconds"] for run in runs),
        "times": [run["seconds"] for run in runs],
        "rss_mb": max(run["rss_mb"] for run in runs),
        "rc": sorted({run["rc"] for run in runs}),
    }


def cached_tf_weights(tf_python: str, cache_dir: str | os.PathLike[str]) -> Path:
    """A frozen tf.keras.applications model TensorFlow writes with tf_weights.py, kept between runs."""
    key = hashlib.sha256(TF_WEIGHTS_SCRIPT.read_bytes()).hexdigest()[:10]
    path = Path(cache_dir) / f"tf-weights-{TF_WEIGHTS_MODEL}-{key}.pb"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
        done = subprocess.run(
            [tf_python, str(TF_WEIGHTS_SCRIPT), str(path), TF_WEIGHTS_MODEL], capture_output=True, text=True, env=env
        )
        if done.returncode:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"TensorFlow could not write {TF_WEIGHTS_MODEL}: {last}")
    return path


def measure_weights(args: argparse.Namespace, path: Path, label: str, log: Callable[[str], None]) -> dict[str, Any]:
    """`tflint FILE` on a weights-heavy binary graph against TensorFlow's importers, interleaved like measure_size."""
    size = path.stat().st_size
    row: dict[str, Any] = {"label": label, "file": str(path), "file_mb": size / 1e6, "file_mib": size / (1 << 20)}
    runs: list[dict[str, Any]] = []
    tensorflow: list[dict[str, Any]] = []
    for round_number in range(1, args.repeats + 1):
        runs.append(run_process([*args.tflint, str(path)]))
        if args.tf_python and "tensorflow" not in row:
            try:
                tensorflow.append(measure_tensorflow(args.tf_python, path, 1))
            except (RuntimeError, OSError, ValueError) as error:
                row["tensorflow"] = {"error": str(error), "cpp": {"error": str(error)}, "python": {"error": str(error)}}
        log(
            f"  {label} round {round_number}: tflint {runs[-1]['seconds']:.3f} s (CPU {runs[-1]['cpu']:.3f} s, "
            f"{runs[-1]['rss_mb']:.0f} MB)"
            + (f", TF C++ {tensorflow[-1]['cpp']['median']:.3f} s" if len(tensorflow) == round_number else "")
        )
    entry = _summary(runs)
    entry["cpu"] = statistics.median(run["cpu"] for run in runs)
    if any(code not in (0, 1) for code in entry["rc"]):
        entry["error"] = f"exit {_codes(entry['rc'])}: " + (runs[-1]["stderr"].strip().splitlines() or [""])[-1][:300]
    row["tflint"] = entry
    if tensorflow and "tensorflow" not in row:
        row["tensorflow"] = {
            "version": tensorflow[0]["version"],
            "cpp": _median_of([time for run in tensorflow for time in run["cpp"]["times"]]),
            "python": _median_of([time for run in tensorflow for time in run["python"]["times"]]),
        }
    return row


def measure_latency(args: argparse.Namespace, small_text: Path) -> dict[str, Any]:
    """The pre-commit case: whole `tflint small.pbtxt` and `tflint --version` processes."""
    repeats = args.latency_repeats
    time_process([*args.tflint, "--version"], 1)  # warm the file cache: the pre-commit case is a warm machine
    lint = time_process([*args.tflint, str(small_text)], repeats)
    runs = [("lint", lint)]
    result: dict[str, Any] = {"nodes": SMALL_GRAPH_NODES}
    if ISSUE_SMALL_GRAPH.exists():
        runs.append(("lint_tf", time_process([*args.tflint, str(ISSUE_SMALL_GRAPH)], repeats)))
        result["tf_nodes"] = ISSUE_SMALL_GRAPH.read_text(encoding="utf-8").splitlines().count("node {")
    version = time_process([*args.tflint, "--version"], repeats)
    runs.append(("version", version))
    for name, run in runs:
        result[name] = {key: run[key] for key in ("median", "times", "rss_mb", "rc")}
        if any(code not in (0, 1) for code in run["rc"]):
            result[name]["error"] = (
                f"exit {_codes(run['rc'])}: " + (run["stderr"].strip().splitlines() or [""])[-1][:300]
            )
    return result


def measure_jobs(args: argparse.Namespace) -> dict[str, Any]:
    """-j 1 against -j <cores> on 8 files; the outputs must be identical."""
    if not _has_jobs_option(args.tflint):
        return {"available": False}
    files = [str(gen_graph.cached_graph(args.jobs_nodes, seed, args.cache_dir)[0]) for seed in range(1, JOBS_FILES + 1)]
    cores = os.cpu_count() or 1
    serial_runs, parallel_runs = [], []
    for _ in range(args.repeats):  # interleaved, like measure_size
        serial_runs.append(run_process([*args.tflint, "-j", "1", *files], capture=True))
        parallel_runs.append(run_process([*args.tflint, "-j", str(cores), *files], capture=True))
    serial = {**_summary(serial_runs), "stdout": serial_runs[-1]["stdout"]}
    parallel = {**_summary(parallel_runs), "stdout": parallel_runs[-1]["stdout"]}
    return {
        "available": True,
        "files": JOBS_FILES,
        "nodes": args.jobs_nodes,
        "cores": cores,
        "serial": {key: serial[key] for key in ("median", "times", "rc")},
        "parallel": {key: parallel[key] for key in ("median", "times", "rc")},
        "speedup": serial["median"] / parallel["median"],
        "same_output": serial["stdout"] == parallel["stdout"],
        "exit_codes": sorted(set(serial["rc"]) | set(parallel["rc"])),
    }


# -- the report -----------------------------------------------------------------------------


def _nearest(sizes: list[int], wanted: int) -> int | None:
    return min(sizes, key=lambda size: (abs(size - wanted), -size)) if sizes else None


def _short(nodes: int) -> str:
    return f"{nodes // 1000}k" if nodes >= 1000 and nodes % 1000 == 0 else str(nodes)


def median(row: dict[str, Any] | None, *keys: str) -> float | None:
    """The median at row[keys...], or None when it was not measured or the run failed."""
    for key in keys:
        if not isinstance(row, dict) or key not in row:
            return None
        row = row[key]
    if not isinstance(row, dict) or "error" in row or "median" not in row:
        return None
    return row["median"]


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    return numerator / denominator if numerator is not None and denominator else None


def paired_ratio(row: dict[str, Any], numerator: tuple[str, ...], denominator: tuple[str, ...]) -> float | None:
    """The median of the rounds' ratios of two measurements of `row`, each round's taken back to back.

    On a machine whose speed drifts between minutes (a shared VM's does by 2x), the ratio of
    two medians can pair one side's fast round with the other's slow one; each round's own
    ratio cannot. Falls back to the ratio of the medians when the rounds do not pair up.
    """
    tops, bottoms = _times(row, numerator), _times(row, denominator)
    if tops and bottoms and len(tops) == len(bottoms) and all(bottoms):
        return statistics.median(top / bottom for top, bottom in zip(tops, bottoms))
    return _ratio(median(row, *numerator), median(row, *denominator))


def _times(row: Any, keys: tuple[str, ...]) -> list[float] | None:
    for key in keys:
        if not isinstance(row, dict) or key not in row:
            return None
        row = row[key]
    if not isinstance(row, dict) or "error" in row:
        return None
    times = row.get("times")
    return times if isinstance(times, list) else None


def compute_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets as rows: id, what, measured value, limit, status, note (issue 5's, tightened by issue 18)."""
    rows = results["sizes"]
    sizes = sorted(rows)
    targets: list[dict[str, Any]] = []

    def add(
        ident: str,
        what: str,
        value: float | None,
        limit: float,
        higher_is_better: bool = False,
        unit: str = "",
        note: str = "",
    ) -> None:
        if value is None:
            status = "n/a"
        else:
            status = "ok" if (value >= limit if higher_is_better else value <= limit) else "MISS"
        targets.append(
            {
                "id": ident,
                "what": what,
                "value": value,
                "limit": limit,
                "unit": unit,
                "status": status,
                "note": note,
                "higher_is_better": higher_is_better,
            }
        )

    def failed(row: dict[str, Any], *keys: str) -> str:
        broken = [key for key in keys if isinstance(row.get(key), dict) and "error" in row[key]]
        return f"{broken[0]} failed (see FAILED above)" if broken else ""

    def text_and_binary(graph_rows: dict[int, dict[str, Any]], suffix: str, kind: str) -> None:
        """Targets 1a, 1b (when text_format was timed) and 2 on the graphs of `graph_rows`."""
        sizes = sorted(graph_rows)
        text_size = _nearest(sizes, TEXT_SIZE)
        if text_size is None:
            return
        row = graph_rows[text_size]
        protoc_key = "protoc_grpc_tools" if "protoc_grpc_tools" in row else "protoc_system"
        tflint = median(row, "tflint_text")
        note = failed(row, "tflint_text", protoc_key) or (
            "" if protoc_key in row else "no protoc (pip install grpcio-tools)"
        )
        add(
            f"1a{suffix}",
            f"text {_short(text_size)}{kind}: tflint / protoc --encode",
            paired_ratio(row, ("tflint_text",), (protoc_key,)),
            0.5,
            note=note,
        )
        if "text_format" in row:
            add(
                f"1b{suffix}",
                f"text {_short(text_size)}{kind}: text_format.Parse / tflint",
                _ratio(median(row, "text_format"), tflint),
                7.0,
                True,
                "x",
                failed(row, "tflint_text", "text_format"),
            )
        binary_size = _nearest(sizes, BINARY_SIZE)
        row = graph_rows[binary_size]
        note = failed(row, "tflint_binary") or ("" if "tensorflow" in row else "no TensorFlow (--tf-python)")
        if not note and "error" in row["tensorflow"]:
            note = "TensorFlow failed (see FAILED above)"
        add(
            f"2{suffix}",
            f"binary {_short(binary_size)}{kind}: tflint / TF C++ importer",
            paired_ratio(row, ("tflint_binary",), ("tensorflow", "cpp")),
            0.4,
            note=note,
        )

    text_and_binary(rows, "", "")
    if not sizes:
        pass  # the weights-heavy graphs alone (below)
    elif len(sizes) >= 2:
        small, big = sizes[0], sizes[-1]
        for ident, form in (("3a", "text"), ("3b", "binary")):
            key = f"lint_{form}"
            ratio = _ratio(_ratio(median(rows[big], key), big), _ratio(median(rows[small], key), small))
            process = _ratio(
                _ratio(median(rows[big], f"tflint_{form}"), big), _ratio(median(rows[small], f"tflint_{form}"), small)
            )
            note = (
                failed(rows[big], key)
                or failed(rows[small], key)
                or (f"whole process: {process:.2f}" if process else "")
            )
            add(ident, f"{form}: time/node {_short(big)} / {_short(small)} (in-process)", ratio, 1.25, note=note)
    else:
        add("3", "time/node scaling", None, 1.25, note="needs two sizes")
    latency = results.get("latency")
    if latency:
        rows_ms = [
            ("4a", f"small graph ({latency['nodes']} nodes)", "lint", 100),
            ("4a-tf", f"small TF-written graph ({latency.get('tf_nodes')} nodes, the issue's)", "lint_tf", 100),
            ("4b", "tflint --version", "version", 40),
        ]
        for ident, label, key, limit in rows_ms:
            if key in latency:
                seconds = median(latency, key)
                add(
                    ident,
                    f"{label}, whole process",
                    seconds * 1000 if seconds else None,
                    limit,
                    unit=" ms",
                    note=failed(latency, key),
                )
    memory_size = _nearest(sizes, MEMORY_SIZE)
    if memory_size is not None:
        row = rows[memory_size]["tflint_text"]
        add(
            "5",
            f"peak RSS, text {_short(memory_size)}",
            None if "error" in row else row["rss_mb"],
            450,
            unit=" MB",
            note=failed(rows[memory_size], "tflint_text")
            or ("" if memory_size == MEMORY_SIZE else f"the limit is for {_short(MEMORY_SIZE)}: run that size"),
        )
    jobs = results.get("jobs")
    if jobs is not None:
        if not jobs.get("available"):
            add("6", f"-j speedup, {JOBS_FILES} files", None, 1.7, True, "x", "n/a (no -j)")
        else:
            note = f"{jobs['cores']} cores, {_short(jobs['nodes'])}-node files" + (
                "" if jobs["same_output"] else "; OUTPUT DIFFERS"
            )
            if any(code not in (0, 1) for code in jobs["exit_codes"]):
                note += f"; tflint exit {_codes(jobs['exit_codes'])}"
            add("6", f"-j speedup, {JOBS_FILES} files", jobs["speedup"], 1.7, True, "x", note)
    if results.get("tf_sizes"):
        text_and_binary(results["tf_sizes"], "-tf", " TF-written")
    for suffix, row in sorted((results.get("weights") or {}).items()):
        # Issue 18, target 1: a weights-heavy binary graph read at the speed of the disk, in one copy's memory.
        ident = "w" if suffix == "generated" else "w-tf"
        note = failed(row, "tflint") or ("" if "tensorflow" in row else "no TensorFlow (--tf-python)")
        if not note and "error" in row["tensorflow"]:
            note = "TensorFlow failed (see FAILED above)"
        what = f"weights {row['label']}"
        add(
            ident,
            f"{what}: tflint / TF C++ importer",
            paired_ratio(row, ("tflint",), ("tensorflow", "cpp")),
            0.5,
            note=note,
        )
        rss = None if "error" in row["tflint"] else row["tflint"]["rss_mb"] / row["file_mib"]
        add(f"{ident}-rss", f"{what}: tflint peak RSS / file size", rss, 1.0, unit="x", note=failed(row, "tflint"))
    return targets


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def format_report(results: dict[str, Any]) -> str:
    """The measurements (one column per size) and the targets, as plain-text tables."""
    rows = results["sizes"]
    env = results["environment"]
    lines = [
        f"tflint {env['tflint']} | Python {env['python']} | protobuf {env['protobuf']} ({env['protobuf_backend']}) | {env['cores']} cores"
        + (f" | TensorFlow {env['tensorflow']}" if env.get("tensorflow") else ""),
        f"median of {results['repeats']} (seconds unless marked); graphs from bench/gen_graph.py, seed {results['seed']}; "
        "a ratio target is the median of the rounds' ratios",
    ]
    load = max(env.get("load_before", 0.0), env.get("load_after", 0.0))
    if load > (env["cores"] or 1):
        lines.append(
            f"warning: load average {env.get('load_before', 0.0):.1f} before, {env.get('load_after', 0.0):.1f} after, on {env['cores']} cores: other work shared the CPUs, times are inflated"
        )
    if env.get("editable"):
        lines.append(
            "warning: tflint is an editable install, whose import hook adds about 50-100 ms to every start-up; "
            "measure a regular install (pip install '.[bench]') for targets 4a/4b"
        )
    lines.append("")

    if rows:
        lines += _measurement_table(rows)
    if results.get("tf_sizes"):
        lines += [
            "",
            "Graphs written by TensorFlow (bench/tf_graph.py), the kind the issue's figures were measured on:",
        ]
        lines += _measurement_table(results["tf_sizes"])

    if results.get("weights"):
        lines += ["", "Weights-heavy binary graphs (bench/gen_weights.py; bench/tf_weights.py with --tf-python):"]
        lines += _weights_table(results["weights"])
    latency = results.get("latency")
    if latency:
        lines.append("")
        issue_graph = (
            f"on the issue's {latency['tf_nodes']}-node TF-written graph {latency['lint_tf']['median'] * 1000:.0f} ms, "
            if "lint_tf" in latency
            else ""
        )
        lines.append(
            f"pre-commit: tflint on a {latency['nodes']}-node graph {latency['lint']['median'] * 1000:.0f} ms, "
            f"{issue_graph}tflint --version {latency['version']['median'] * 1000:.0f} ms "
            f"(median of {len(latency['lint']['times'])})"
        )
    failures = [
        (_short(size), key, row[key]["error"])
        for size, row in sorted(rows.items())
        for key in sorted(row)
        if isinstance(row[key], dict) and "error" in row[key]
    ]
    failures += [
        (f"{_short(size)} TF-written", key, row[key]["error"])
        for size, row in sorted(results.get("tf_sizes", {}).items())
        for key in sorted(row)
        if isinstance(row[key], dict) and "error" in row[key]
    ]
    failures += [
        (f"weights {row['label']}", key, row[key]["error"])
        for row in (results.get("weights") or {}).values()
        for key in ("tflint", "tensorflow")
        if isinstance(row.get(key), dict) and "error" in row[key]
    ]
    failures += [
        (_short(latency["nodes"]), key, latency[key]["error"])
        for key in ("lint", "version")
        if latency and "error" in latency[key]
    ]
    for where, key, error in failures:
        lines.append(f"FAILED at {where}: {key}: {error[:240]}")
    if results.get("tf_error"):
        lines.append(f"FAILED: graphs written by TensorFlow: {results['tf_error'][:240]}")
    if results.get("tf_weights_error"):
        lines.append(f"FAILED: {TF_WEIGHTS_MODEL} written by TensorFlow: {results['tf_weights_error'][:240]}")
    jobs = results.get("jobs")
    if jobs and jobs.get("available"):
        lines.append(
            f"-j: {jobs['files']} files of {jobs['nodes']:,} nodes: -j 1 {_seconds(jobs['serial']['median'])} s, "
            f"-j {jobs['cores']} {_seconds(jobs['parallel']['median'])} s, output identical: {jobs['same_output']}"
        )
    lines.append("")
    target_rows = []
    for target in results["targets"]:
        if target["value"] is None:
            measured = target["note"] if target["note"].startswith("n/a") else "n/a"
            note = "" if target["note"].startswith("n/a") else target["note"]
        else:
            value = target["value"]
            measured = (
                f"{value:.0f}{target['unit']}" if target["unit"] in (" ms", " MB") else f"{value:.2f}{target['unit']}"
            )
            note = target["note"]
        limit_value = target["limit"]
        limit_text = f"{limit_value:g}{target['unit']}"
        limit = (">= " if target["higher_is_better"] else "<= ") + limit_text
        target_rows.append([target["id"], target["what"], measured, limit, target["status"], note])
    lines += _grid(["#", "target", "measured", "limit", "status", "note"], target_rows)
    return "\n".join(lines) + "\n"


def _measurement_table(rows: dict[int, dict[str, Any]]) -> list[str]:
    """One column per size: every measurement of measure_size's rows that was taken."""
    sizes = sorted(rows)

    def get(row: dict[str, Any], *keys: str) -> str:
        value = median(row, *keys)
        if value is not None:
            return _seconds(value)
        cell: Any = row
        for key in keys:
            cell = cell.get(key) if isinstance(cell, dict) else None
        return "failed" if isinstance(cell, dict) and "error" in cell else "-"

    table: list[tuple[str, list[str]]] = [
        ("nodes (top-level)", [f"{rows[s]['nodes']:,}" for s in sizes]),
        ("text MB / binary MB", [f"{rows[s]['text_mb']:.1f} / {rows[s]['binary_mb']:.2f}" for s in sizes]),
        ("tflint FILE.pbtxt (process)", [get(rows[s], "tflint_text") for s in sizes]),
        ("tflint FILE.pb (process)", [get(rows[s], "tflint_binary") for s in sizes]),
    ]
    if any("lint_text" in rows[s] for s in sizes):
        table.append(("lint_file .pbtxt (in-process)", [get(rows[s], "lint_text") for s in sizes]))
        table.append(("lint_file .pb (in-process)", [get(rows[s], "lint_binary") for s in sizes]))
        table.append(("text_format.Parse", [get(rows[s], "text_format") for s in sizes]))
    if any("protoc_grpc_tools" in rows[s] for s in sizes):
        table.append(("protoc --encode (grpcio-tools, process)", [get(rows[s], "protoc_grpc_tools") for s in sizes]))
    if any("protoc_system" in rows[s] for s in sizes):
        table.append(("protoc --encode (system, process)", [get(rows[s], "protoc_system") for s in sizes]))
    if any("parse_binary" in rows[s] for s in sizes):
        table.append(("ParseFromString", [get(rows[s], "parse_binary") for s in sizes]))
    if any("tensorflow" in rows[s] for s in sizes):
        table.append(("TF import_graph_def (Python)", [get(rows[s], "tensorflow", "python") for s in sizes]))
        table.append(("TF C++ importer alone", [get(rows[s], "tensorflow", "cpp") for s in sizes]))
    table.append(
        (
            "peak RSS tflint text / binary (MB)",
            [f"{rows[s]['tflint_text']['rss_mb']:.0f} / {rows[s]['tflint_binary']['rss_mb']:.0f}" for s in sizes],
        )
    )
    table.append(
        (
            "tflint exit code text / binary",
            [f"{_codes(rows[s]['tflint_text']['rc'])} / {_codes(rows[s]['tflint_binary']['rc'])}" for s in sizes],
        )
    )
    table.append(("wall time for this column (s)", [f"{rows[s]['wall_seconds']:.0f}" for s in sizes]))
    return _grid(["measurement", *[_short(s) for s in sizes]], [[label, *cells] for label, cells in table])


def _weights_table(rows: dict[str, dict[str, Any]]) -> list[str]:
    """One column per weights-heavy graph: its size, tflint's wall and CPU time and peak RSS, TensorFlow's importers."""
    columns = [rows[key] for key in sorted(rows)]

    def cell(row: dict[str, Any], *keys: str) -> str:
        value = median(row, *keys)
        return _seconds(value) if value is not None else ("failed" if keys[0] in row else "-")

    def rss(row: dict[str, Any]) -> str:
        entry = row["tflint"]
        return "-" if "error" in entry else f"{entry['rss_mb']:.0f} ({entry['rss_mb'] / row['file_mib']:.2f}x)"

    table = [
        ("file MiB", [f"{row['file_mib']:.0f}" for row in columns]),
        ("tflint FILE.pb (process)", [cell(row, "tflint") for row in columns]),
        ("tflint CPU, user + sys", [_seconds(row["tflint"].get("cpu")) for row in columns]),
        ("tflint peak RSS MB (x file)", [rss(row) for row in columns]),
        ("tflint exit code", [_codes(row["tflint"]["rc"]) for row in columns]),
    ]
    if any("tensorflow" in row for row in columns):
        table.append(("TF import_graph_def (Python)", [cell(row, "tensorflow", "python") for row in columns]))
        table.append(("TF C++ importer alone", [cell(row, "tensorflow", "cpp") for row in columns]))
    return _grid(["measurement", *[row["label"] for row in columns]], [[label, *cells] for label, cells in table])


def _codes(codes: list[int]) -> str:
    return ",".join(str(code) for code in codes)


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            str(cell).ljust(width) if i in (0, 1) or i == len(cells) - 1 else str(cell).rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ).rstrip()

    return [line(header), "  ".join("-" * width for width in widths), *(line(row) for row in rows)]


def environment(args: argparse.Namespace) -> dict[str, Any]:
    import google.protobuf
    from google.protobuf.internal import api_implementation

    import tflint

    return {
        "tflint": tflint.__version__,
        "tflint_command": " ".join(args.tflint),
        "python": platform.python_version(),
        "protobuf": google.protobuf.__version__,
        "protobuf_backend": api_implementation.Type(),
        "cores": os.cpu_count(),
        "machine": platform.platform(),
        "load_before": os.getloadavg()[0],
        "editable": _editable_install(),
    }


def _editable_install() -> bool:
    """Whether tflint is installed in development mode (its import hook slows every start-up)."""
    from importlib import metadata

    try:
        direct_url = metadata.distribution("tflint").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return False
    return bool(direct_url and json.loads(direct_url).get("dir_info", {}).get("editable"))


def _default_tflint() -> str:
    """The tflint beside this Python, else the one on PATH, else `python -m tflint`."""
    beside = Path(sys.executable).with_name("tflint")
    if beside.exists():
        return str(beside)
    return shutil.which("tflint") or f"{shlex.quote(sys.executable)} -m tflint"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", help="comma-separated node counts (default 10000,100000,300000; --quick: 60,240)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: tiny graphs, one repeat")
    parser.add_argument(
        "--repeats", type=int, help="runs per measurement, the median is reported (default 3; --quick: 1)"
    )
    parser.add_argument(
        "--latency-repeats", type=int, help="runs for the pre-commit latency rows (default 11; --quick: 2)"
    )
    parser.add_argument(
        "--jobs-nodes",
        type=int,
        help=f"nodes of each of the {JOBS_FILES} files of the -j row (default {DEFAULT_JOBS_NODES})",
    )
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument(
        "--tf-python",
        metavar="PYTHON",
        help="a Python with TensorFlow: the import_graph_def anchors, and graphs TensorFlow writes (tf_graph.py)",
    )
    parser.add_argument(
        "--tflint",
        metavar="CMD",
        default=_default_tflint(),
        help="the tflint command, split like a shell would (default: the one beside this Python)",
    )
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        default=str(gen_graph.default_cache_dir()),
        help="where generated graphs are cached (default: %(default)s)",
    )
    parser.add_argument(
        "--weights",
        type=int,
        metavar="MIB",
        default=0,
        help="also time a weights-heavy graph of MIB MiB (gen_weights.py; 512 is issue 18's) and, with --tf-python, "
        f"a frozen {TF_WEIGHTS_MODEL} (tf_weights.py); --weights 512 --sizes '' measures only those",
    )
    parser.add_argument("--json", metavar="FILE", help="also write every measurement as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument(
        "--from-json", metavar="FILE", help="measure nothing: print the tables of a run saved with --json"
    )
    parser.add_argument("--worker", nargs=4, metavar=("KIND", "TEXT", "BINARY", "WARMUP"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker or args.from_json:
        return args
    if args.sizes is not None and (args.sizes.strip() or args.weights):
        args.sizes = sorted({int(size.replace("_", "")) for size in args.sizes.split(",") if size.strip()})
    else:
        args.sizes = list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
    args.repeats = args.repeats or (1 if args.quick else 3)
    args.latency_repeats = args.latency_repeats or (2 if args.quick else 11)
    args.jobs_nodes = args.jobs_nodes or (QUICK_JOBS_NODES if args.quick else DEFAULT_JOBS_NODES)
    args.tflint = shlex.split(args.tflint)
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text("utf-8"))
        for key in ("sizes", "tf_sizes"):
            if key in saved:
                saved[key] = {int(size): row for size, row in saved[key].items()}
        saved["targets"] = compute_targets(saved)
        sys.stdout.write(format_report(saved))
        return 0

    def log(message: str) -> None:
        if not args.quiet:
            print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    results: dict[str, Any] = {
        "environment": environment(args),
        "repeats": args.repeats,
        "seed": args.seed,
        "sizes": {},
    }
    small_text, _ = gen_graph.cached_graph(SMALL_GRAPH_NODES, args.seed, args.cache_dir)
    protoc = _protoc_commands()
    if args.weights:
        log(f"weights-heavy graphs ({args.weights} MiB generated) ...")
        path = gen_weights.cached_weights(args.weights, args.cache_dir)
        results["weights"] = {"generated": measure_weights(args, path, f"{args.weights}M generated", log)}
        if args.tf_python:
            try:
                path = cached_tf_weights(args.tf_python, args.cache_dir)
                results["weights"]["tf"] = measure_weights(args, path, f"{TF_WEIGHTS_MODEL} TF-written", log)
            except (RuntimeError, OSError, ValueError) as error:
                results["tf_weights_error"] = str(error)
                log(f"{TF_WEIGHTS_MODEL} written by TensorFlow: {error}")
    for nodes in args.sizes:
        results["sizes"][nodes] = measure_size(args, nodes, small_text, protoc, log)
        tf = results["sizes"][nodes].get("tensorflow")
        if tf and "version" in tf:  # not when TensorFlow failed
            results["environment"]["tensorflow"] = tf["version"]
    if args.tf_python:
        results["tf_sizes"] = {}
        for nodes in args.sizes:
            try:
                results["tf_sizes"][nodes] = measure_size(args, nodes, small_text, protoc, log, tf_written=True)
            except (RuntimeError, OSError, ValueError) as error:
                results["tf_error"] = str(error)
                log(f"graphs written by TensorFlow: {error}")
                break
    if args.sizes:  # a run of the weights-heavy graphs alone measures nothing else
        log("pre-commit latency ...")
        results["latency"] = measure_latency(args, small_text)
        log("-j ...")
        results["jobs"] = measure_jobs(args)
    results["targets"] = compute_targets(results)
    results["environment"]["load_after"] = os.getloadavg()[0]
    results["wall_seconds"] = time.perf_counter() - started
    sys.stdout.write(format_report(results))
    sys.stdout.write(f"(whole run: {results['wall_seconds']:.0f} s)\n")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, default=str) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
