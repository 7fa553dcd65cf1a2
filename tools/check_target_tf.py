"""Differential check of `--target-tf`: import graphs into real older TensorFlows and compare with tflint.

A maintainer tool (tflint never needs TensorFlow). Each TensorFlow lives in
its own virtualenv; give them as RELEASE=PYTHON pairs:

    python tools/check_target_tf.py --tf 1.15=/venvs/tf115/bin/python --tf 2.4=/venvs/tf24/bin/python \\
        --verdicts verdicts.jsonl --summary docs/target-tf.md GRAPH_OR_DIR...

For each graph and release, a worker process running under that release's
Python imports the graph the way a user of that release would:

- a GraphDef (text or binary): parsed with that TensorFlow's own protobuf
  classes (text_format.Parse for text), then `import_graph_def` into a new
  graph;
- a MetaGraphDef: `tf.compat.v1.train.import_meta_graph`;
- a SavedModel (directory or file): every meta graph imported with
  `import_meta_graph` (what the TF1 loader and TF Serving do before restoring
  variables), then every function of its library built with
  `function_deserialization.load_function_def_library` (what `tf.saved_model.load` does).

tflint's verdict for the same release is "rejects" when it reports an error
of a `target-*` rule (or any error) for `--target-tf RELEASE`, else
"imports". Verdicts are written as JSON lines (the raw material of the fast
tests in tests/test_target_tf_verdicts.py) and summarised per release as a
Markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# Runs under each TensorFlow's own Python (3.7 for TF <= 2.11): no f-string `=`, no walrus, no 3.8+ APIs.
WORKER = r"""
import json, os, sys
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import graph_pb2
from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2

v1 = tf.compat.v1
TF1 = tf.__version__.startswith("1.")


def first_line(error):
    text = "%s: %s" % (type(error).__name__, error)
    return text.strip().splitlines()[0][:400] if text.strip() else type(error).__name__


def import_graph(path, kind, text):
    data = b"" if kind == "SavedModel" else open(path, "rb").read()
    if kind == "GraphDef":
        graph_def = graph_pb2.GraphDef()
        if text:
            text_format.Parse(data.decode("utf-8"), graph_def)
        else:
            graph_def.ParseFromString(data)
        with tf.Graph().as_default():
            v1.import_graph_def(graph_def, name="")
        return
    if kind == "MetaGraphDef":
        meta = meta_graph_pb2.MetaGraphDef()
        if text:
            text_format.Parse(data.decode("utf-8"), meta)
        else:
            meta.ParseFromString(data)
        with tf.Graph().as_default():
            v1.train.import_meta_graph(meta, clear_devices=True)
        return
    if kind in ("SavedModelFile", "SavedModel"):
        model = saved_model_pb2.SavedModel()
        if kind == "SavedModel":
            name = os.path.join(path, "saved_model.pb")
            if os.path.exists(name):
                model.ParseFromString(open(name, "rb").read())
            else:
                text_format.Parse(open(os.path.join(path, "saved_model.pbtxt")).read(), model)
        elif text:
            text_format.Parse(data.decode("utf-8"), model)
        else:
            model.ParseFromString(data)
        # What every loader does first: import each meta graph (the TF1 loader and TF Serving stop
        # here, then restore variables); then what tf.saved_model.load does: build every function
        # of the library, callees first (its own helper, so the order and checks are the release's).
        from tensorflow.python.saved_model import function_deserialization

        for meta in model.meta_graphs:
            with tf.Graph().as_default():
                v1.train.import_meta_graph(meta, clear_devices=True)
            with tf.Graph().as_default():
                function_deserialization.load_function_def_library(meta.graph_def.library)
        return
    raise ValueError("unknown kind " + kind)


for line in sys.stdin:
    item = json.loads(line)
    try:
        import_graph(item["path"], item["kind"], item["text"])
        verdict = {"verdict": "imports", "message": ""}
    except BaseException as error:  # the message is the answer
        verdict = {"verdict": "rejects", "message": first_line(error)}
    verdict["path"] = item["path"]
    sys.stdout.write(json.dumps(verdict) + "\n")
    sys.stdout.flush()
"""


def graph_items(paths: list[str]) -> list[dict]:
    """The graphs under `paths`, each with how TF should import it (kind, text or binary)."""
    from tflint.read.load import load_path
    from tflint.read.walk import iter_graph_files

    items = []
    for path in iter_graph_files(paths):
        if os.path.isdir(path):
            items.append({"path": path, "kind": "SavedModel", "text": False})
            continue
        artifact = load_path(path)
        if artifact.failure is not None or artifact.message_type is None:
            continue
        kind = artifact.message_type
        if kind == "SavedModel":
            kind = "SavedModelFile"
        items.append({"path": path, "kind": kind, "text": artifact.form == "text"})
    return items


def tf_verdicts(python: str, items: list[dict], timeout: float) -> dict[str, dict]:
    """Import each item under `python`: one worker for all, restarted after the graph it crashed or hung on."""
    # In a directory of its own: the script's directory leads sys.path, and /tmp may hold a `timeit.py`.
    directory = tempfile.mkdtemp(prefix="check_target_tf.")
    worker = os.path.join(directory, "worker.py")
    with open(worker, "w") as file:
        file.write(WORKER)
    out: dict[str, dict] = {}
    todo = list(items)
    try:
        while todo:
            feed = "".join(json.dumps(item) + "\n" for item in todo)
            try:
                done = subprocess.run(
                    [python, worker],
                    input=feed,
                    capture_output=True,
                    text=True,
                    timeout=timeout * len(todo),
                    env={**os.environ, "CUDA_VISIBLE_DEVICES": "-1"},
                )
                stdout, stderr, why = done.stdout, done.stderr, "crash"
            except subprocess.TimeoutExpired as expired:
                stdout = expired.stdout.decode() if isinstance(expired.stdout, bytes) else expired.stdout or ""
                stderr, why = "", "timeout"
            for line in stdout.splitlines():
                if line.startswith("{"):
                    answer = json.loads(line)
                    out[answer.pop("path")] = answer
            todo = [item for item in todo if item["path"] not in out]
            if todo:  # the first unanswered graph killed the worker
                tail = stderr.strip().splitlines()[-1:] or ["no output"]
                out[todo[0]["path"]] = {"verdict": why, "message": tail[0][:400]}
                todo = todo[1:]
    finally:
        os.unlink(worker)
        os.rmdir(directory)
    return out


def tflint_verdict(path: str, release: str) -> tuple[str, list[str]]:
    """tflint's verdict for `release`: "rejects" with its errors' messages (target rules' first), or "imports"."""
    from tflint.api import lint_paths

    report = lint_paths([path], {}, target_tf=release, baseline=False)
    errors = [f for f in report.findings if f.severity.name == "ERROR"]
    errors.sort(key=lambda f: not f.rule.startswith("target-"))
    return ("rejects" if errors else "imports"), [f"{f.rule}: {f.message}" for f in errors]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="graph files, SavedModel directories, directories to search")
    parser.add_argument("--tf", action="append", required=True, metavar="RELEASE=PYTHON")
    parser.add_argument("--verdicts", type=Path, help="write every verdict here as JSON lines")
    parser.add_argument("--summary", type=Path, help="write the Markdown summary table here")
    parser.add_argument(
        "--record",
        type=Path,
        help="write the TF verdicts on graphs of tests/data here (the fast tests' tests/data/target_tf/verdicts.jsonl)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per import (default 300)")
    parser.add_argument(
        "--cache", type=Path, help="JSON lines of TF verdicts kept between runs (keyed by release, path, size)"
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    items = graph_items(args.paths)
    rows = []
    for pair in args.tf:
        release, _, python = pair.partition("=")
        cached = _cache(args.cache, release)
        missing = [item for item in items if _key(item) not in cached]
        print(f"TF {release}: importing {len(missing)} of {len(items)} graphs", file=sys.stderr)
        fresh = tf_verdicts(python, missing, args.timeout) if missing else {}
        if args.cache and fresh:
            with args.cache.open("a") as file:
                for item in missing:
                    file.write(json.dumps({"release": release, "key": _key(item), **fresh[item["path"]]}) + "\n")
        verdicts = {item["path"]: fresh.get(item["path"]) or cached[_key(item)] for item in items}
        for item in items:
            theirs = verdicts[item["path"]]
            ours, reasons = tflint_verdict(item["path"], release)
            rows.append(
                {
                    "release": release,
                    "path": os.path.relpath(item["path"]),
                    "kind": item["kind"],
                    "form": "text" if item["text"] else "binary",
                    "tf": theirs["verdict"],
                    "tf_message": theirs["message"],
                    "tflint": ours,
                    "tflint_reasons": reasons[:5],
                }
            )
    if args.verdicts:
        args.verdicts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    if args.record:
        data = REPO / "tests" / "data"
        recorded = []
        for row in rows:
            path = Path(row["path"]).resolve()
            if data in path.parents and row["tf"] in ("imports", "rejects"):
                file = path.relative_to(data).as_posix()
                recorded.append(
                    {"release": row["release"], "file": file, "tf": row["tf"], "tf_message": row["tf_message"]}
                )
        args.record.write_text("".join(json.dumps(row) + "\n" for row in recorded))
    table = summary(rows)
    if args.summary:
        args.summary.write_text(table)
    print(table)
    return 0


def _key(item: dict) -> str:
    path = item["path"]
    size = (
        sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())
        if os.path.isdir(path)
        else os.path.getsize(path)
    )
    return f"{os.path.abspath(path)}:{size}"


def _cache(path: Path | None, release: str) -> dict[str, dict]:
    if path is None or not path.exists():
        return {}
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {row["key"]: row for row in rows if row["release"] == release}


def summary(rows: list[dict]) -> str:
    """Per release: graphs, rejected by TF, caught by tflint, false errors, agreement."""
    lines = [
        "| release | graphs | TF rejects | tflint errors on those | tflint errors on graphs TF imports | agreement |",
        "|---|---|---|---|---|---|",
    ]
    releases = sorted({row["release"] for row in rows}, key=lambda name: tuple(int(p) for p in name.split(".")))
    for release in releases:
        mine = [row for row in rows if row["release"] == release and row["tf"] in ("imports", "rejects")]
        rejected = [row for row in mine if row["tf"] == "rejects"]
        caught = sum(row["tflint"] == "rejects" for row in rejected)
        false = sum(row["tflint"] == "rejects" for row in mine if row["tf"] == "imports")
        agree = sum(row["tflint"] == row["tf"] for row in mine)
        lines.append(f"| {release} | {len(mine)} | {len(rejected)} | {caught} | {false} | {agree}/{len(mine)} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
