"""Label TensorFlow graph files with TensorFlow's own import verdict, one JSON line per file (maintainer tool; needs TensorFlow)."""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any

# tf_message / tf_log are cut to this many characters, as in shared/wild/labels.jsonl.
MAX_MESSAGE = 400
# Order matters twice: text parses are tried in this order (the empty file parses as all three
# and is called a GraphDef), and an unparseable file reports the GraphDef error.
MESSAGE_TYPES = ("GraphDef", "MetaGraphDef", "SavedModel")
CHILD_TIMEOUT_S = 600

# C++ (absl) log line, e.g. "E0000 00:00:1795313818.804291    3199 node_def_util.cc:682] msg",
# and the pre-absl form "2021-01-01 00:00:00.000000: W tensorflow/core/...cc:123] msg".
_ABSL_LOG = re.compile(r"^([IWEF])\d{4} \d\d:\d\d:[\d.]+\s+\d+ [^\]]*\] ?(.*)$")
_OLD_LOG = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+: ([IWEF]) [^\]]*\] ?(.*)$")
# Python-side tf_logging, e.g. "WARNING:tensorflow:msg".
_PY_LOG = re.compile(r"^(WARNING|ERROR|FATAL|CRITICAL):tensorflow:(.*)$")


def _proto_classes() -> dict[str, type]:
    # Imported lazily: this drags in the whole tensorflow package (slow) and the parent process
    # needs it only to parse, never to run anything.
    from tensorflow.core.framework import graph_pb2
    from tensorflow.core.protobuf import meta_graph_pb2, saved_model_pb2

    return {
        "GraphDef": graph_pb2.GraphDef,
        "MetaGraphDef": meta_graph_pb2.MetaGraphDef,
        "SavedModel": saved_model_pb2.SavedModel,
    }


def _cut(text: str) -> str:
    return text[:MAX_MESSAGE]


def _first_line(text: str) -> str:
    # splitlines, not split("\n"): a CR inside a quoted source line (CRLF files) ends the line too.
    lines = text.splitlines()
    return lines[0] if lines else ""


def resolve_path(path: str) -> str:
    """A SavedModel directory stands for its saved_model.pb (or saved_model.pbtxt)."""
    if os.path.isdir(path):
        for name in ("saved_model.pb", "saved_model.pbtxt"):
            candidate = os.path.join(path, name)
            if os.path.isfile(candidate):
                return candidate
        raise FileNotFoundError(f"{path}: directory holds no saved_model.pb or saved_model.pbtxt")
    return path


def looks_textual(data: bytes) -> bool:
    """True when the bytes are UTF-8 with no control characters but whitespace.

    Binary protobuf nearly always holds tag bytes such as 0x12 or 0x1a, which are control
    characters, so this separates the two formats without trying a parse first.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(ch.isprintable() or ch in "\t\n\r\f\v" for ch in text)


def _count_unknown(msg: Any) -> int:
    """Unknown fields anywhere in a parsed message: the sign of a binary parse as the wrong type."""
    from google.protobuf import unknown_fields

    count = len(unknown_fields.UnknownFieldSet(msg))
    for fd, value in msg.ListFields():
        if fd.message_type is None:
            continue
        if fd.message_type.GetOptions().map_entry:
            value_fd = fd.message_type.fields_by_name["value"]
            if value_fd.message_type is not None:
                count += sum(_count_unknown(v) for v in value.values())
        elif fd.is_repeated:
            count += sum(_count_unknown(v) for v in value)
        else:
            count += _count_unknown(value)
    return count


def _graphs(message_type: str, msg: Any) -> list[Any]:
    """Every GraphDef the message holds, in file order."""
    if message_type == "GraphDef":
        return [msg]
    if message_type == "MetaGraphDef":
        return [msg.graph_def]
    return [mg.graph_def for mg in msg.meta_graphs]


def _plausible(message_type: str, msg: Any) -> bool:
    """Whether a binary parse looks like what TensorFlow writes for that message type."""
    if message_type == "SavedModel":
        return len(msg.meta_graphs) > 0
    if message_type == "MetaGraphDef":
        return msg.HasField("graph_def") or msg.HasField("meta_info_def")
    return all(n.name and n.op for n in msg.node)


@dataclass
class Parsed:
    """A file's bytes decoded as one of the three messages, or why none fits."""

    fmt: str
    message_type: str | None = None
    message: Any = None
    error: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def parse_file(path: str) -> Parsed:
    """Detect text/binary and GraphDef/MetaGraphDef/SavedModel from content alone."""
    from google.protobuf import message as pb_message
    from google.protobuf import text_format

    data = open(path, "rb").read()
    classes = _proto_classes()
    text_error = ""
    if looks_textual(data):
        text = data.decode("utf-8")
        for name in MESSAGE_TYPES:
            msg = classes[name]()
            try:
                text_format.Parse(text, msg)
            except text_format.ParseError as exc:
                if not text_error:
                    text_error = f"{name}: {exc}"
                continue
            return Parsed("text", name, msg)
    # Binary: the wire format rarely fails outright for the wrong type (mismatched fields become
    # unknown fields), so rank the candidates instead of taking the first that decodes.
    candidates: list[tuple[int, int, int, str, Any]] = []
    binary_error = ""
    for rank, name in enumerate(MESSAGE_TYPES):
        msg = classes[name]()
        try:
            msg.ParseFromString(data)
        except pb_message.DecodeError as exc:
            if not binary_error:
                binary_error = f"{name}: {exc}"
            continue
        candidates.append((_count_unknown(msg), 0 if _plausible(name, msg) else 1, rank, name, msg))
    if candidates:
        unknown, implausible, _, name, msg = min(candidates, key=lambda c: c[:3])
        # Text that failed to parse as text decodes as binary only by accident: accept the binary
        # reading then only if it is flawless.
        if not text_error or (unknown == 0 and not implausible):
            return Parsed("binary", name, msg)
    if text_error:
        return Parsed("text", error=text_error)
    return Parsed("binary", error=binary_error or "no message parses")


def describe(path: str, parsed: Parsed) -> dict[str, Any]:
    """The static part of a label: what the file holds, before TensorFlow imports it."""
    record: dict[str, Any] = {"file": path, "message_type": parsed.message_type}
    if parsed.message_type is None:
        record.update(producer=None, nodes=None, functions=None)
        return record
    graphs = _graphs(parsed.message_type, parsed.message)
    first = graphs[0] if graphs else None
    has_versions = first is not None and first.HasField("versions")
    record["producer"] = first.versions.producer if has_versions else None
    record["nodes"] = sum(len(g.node) for g in graphs)
    record["functions"] = sum(len(g.library.function) for g in graphs)
    tail: dict[str, Any] = {}
    if has_versions:
        tail["min_consumer"] = first.versions.min_consumer
    meta = None
    if parsed.message_type == "MetaGraphDef":
        meta = parsed.message
    elif parsed.message_type == "SavedModel" and parsed.message.meta_graphs:
        meta = parsed.message.meta_graphs[0]
    if meta is not None and meta.meta_info_def.tensorflow_version:
        tail["tensorflow_version"] = meta.meta_info_def.tensorflow_version
    if parsed.message_type == "SavedModel":
        tail["meta_graphs"] = len(parsed.message.meta_graphs)
    parsed.extra = tail
    return record


# ---------------------------------------------------------------------------------------------
# Child process: imports every graph of one file. Run apart from the parent so that a CHECK
# failure or segfault inside TensorFlow kills only the child and becomes verdict "crashes".


def _log_lines(stderr_text: str, levels: str) -> list[str]:
    found = []
    for line in stderr_text.splitlines():
        for pattern in (_ABSL_LOG, _OLD_LOG):
            m = pattern.match(line)
            if m and m.group(1) in levels:
                found.append(m.group(2))
                break
        else:
            m = _PY_LOG.match(line)
            if m and m.group(1)[0] in levels:
                found.append(m.group(2))
    return found


def _exc_message(exc: BaseException) -> str:
    return _cut(f"{type(exc).__name__}: {_first_line(str(exc))}")


def child_main(path: str) -> None:
    """Import each graph of PATH with tf.graph_util.import_graph_def; print one JSON result line."""
    parsed = parse_file(path)
    import tensorflow as tf

    result: dict[str, Any] = {"tf_verdict": "imports", "tf_message": ""}
    # Capture fd 2 only around the imports, so the noise TensorFlow logs when it loads
    # (CPU features, oneDNN) never counts as the graph's log.
    sys.stderr.flush()
    saved_fd = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as capture:
        os.dup2(capture.fileno(), 2)
        try:
            for graph_def in _graphs(parsed.message_type, parsed.message):
                try:
                    with tf.Graph().as_default():
                        tf.graph_util.import_graph_def(graph_def, name="")
                except Exception as exc:  # noqa: BLE001 - any raise is the verdict
                    result = {"tf_verdict": "rejects", "tf_message": _exc_message(exc)}
                    break
        finally:
            sys.stderr.flush()
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
        capture.seek(0)
        logged = capture.read().decode("utf-8", "replace")
    warnings = _log_lines(logged, "WEF")
    if warnings:
        result["tf_log"] = _cut(warnings[0])
    if parsed.message_type == "MetaGraphDef":
        try:
            with tf.Graph().as_default():
                tf.compat.v1.train.import_meta_graph(parsed.message)
            result["import_meta_graph"] = "ok"
        except Exception as exc:  # noqa: BLE001
            result["import_meta_graph"] = _exc_message(exc)
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    sys.stdout.flush()


def _crash_message(proc: subprocess.CompletedProcess[str]) -> str:
    fatal = _log_lines(proc.stderr, "F")
    if fatal:
        return _cut(fatal[0])
    if proc.returncode < 0:
        try:
            return f"killed by {signal.Signals(-proc.returncode).name}"
        except ValueError:
            return f"killed by signal {-proc.returncode}"
    tail = [line for line in proc.stderr.splitlines() if line.strip()]
    return _cut(f"exit status {proc.returncode}" + (f": {tail[-1]}" if tail else ""))


def label(path: str) -> dict[str, Any]:
    """The full label of one file (or SavedModel directory), as in wild/labels.jsonl."""
    real = resolve_path(path)
    parsed = parse_file(real)
    record = describe(path, parsed)
    if parsed.message_type is None:
        record.update(tf_verdict="unparseable", tf_message=_cut(_first_line(parsed.error)))
    else:
        try:
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", real],
                capture_output=True,
                text=True,
                timeout=CHILD_TIMEOUT_S,
                errors="replace",
            )
            lines = [line for line in proc.stdout.splitlines() if line.startswith("{")]
            if proc.returncode == 0 and lines:
                outcome = json.loads(lines[-1])
            else:
                outcome = {"tf_verdict": "crashes", "tf_message": _crash_message(proc)}
        except subprocess.TimeoutExpired:
            outcome = {"tf_verdict": "crashes", "tf_message": f"timed out after {CHILD_TIMEOUT_S}s"}
        record["tf_verdict"] = outcome.pop("tf_verdict")
        record["tf_message"] = outcome.pop("tf_message")
    record["format"] = parsed.fmt
    record["size_bytes"] = os.path.getsize(real)
    record.update(parsed.extra)
    if parsed.message_type is not None:
        # Same key order as wild/labels.jsonl: import_meta_graph, then tf_log.
        if "import_meta_graph" in outcome:
            record["import_meta_graph"] = outcome["import_meta_graph"]
        if "tf_log" in outcome:
            record["tf_log"] = outcome["tf_log"]
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("files", nargs="*", help="graph files or SavedModel directories")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="files labelled in parallel")
    parser.add_argument("--child", metavar="FILE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_main(args.child)
        return 0
    if not args.files:
        parser.error("no files given")

    def safe_label(path: str) -> dict[str, Any] | None:
        try:
            return label(path)
        except OSError as exc:  # a missing or unreadable file is no verdict: say so, go on
            print(f"tf_verdict: {path}: {exc}", file=sys.stderr)
            return None

    status = 0
    # Pool of threads, each waiting on its own child process; output keeps the argument order.
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for result in pool.map(safe_label, args.files):
            if result is None:
                status = 1
            else:
                print(json.dumps(result, ensure_ascii=False), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
