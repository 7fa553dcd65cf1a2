"""warmup-record: the warm-up file reads as TFRecords of PredictionLogs, as TF Serving reads it."""

from __future__ import annotations

import pytest
from savedmodel_files import field, flip, tfrecord, write_model

from tflint.api import lint_file
from tflint.read.warmup import MAX_RECORDS, parse_warmup

RULE = "warmup-record"
TEXT = '  meta_info_def { tags: "serve" }\n  graph_def { node { name: "x" op: "NoOp" } }\n'
REQUEST = [{"signature": "", "inputs": {}}]
WARMUP = "assets.extra/tf_serving_warmup_requests"


def _write(path, data):
    path.write_bytes(data)


@pytest.mark.parametrize(
    "damage, expected",
    [
        pytest.param(None, None, id="sound"),
        pytest.param(lambda path: flip(path, -1), "corrupted record at 0", id="data-crc"),
        pytest.param(lambda path: flip(path, 9), "corrupted record at 0", id="length-crc"),
        pytest.param(lambda path: _write(path, path.read_bytes()[:-2]), "truncated record at 0", id="cut"),
        pytest.param(lambda path: _write(path, path.read_bytes() + b"\0" * 5), "truncated record at 29", id="tail"),
        pytest.param(lambda path: _write(path, tfrecord(b"\xff\xff\xff")), "Failed to parse warmup record 0", id="garbage"),
        pytest.param(lambda path: _write(path, b""), None, id="empty"),
        pytest.param(lambda path: _write(path, tfrecord(field(6, b"\x0a\x80"))), "Failed to parse warmup record 0", id="inner"),
    ],
)  # fmt: skip
def test_rule(damage, expected, tmp_path):
    model = write_model(tmp_path / "m", TEXT, warmup=REQUEST)
    if damage is not None:
        damage(model / WARMUP)
    findings = [f for f in lint_file(model).findings if f.rule == RULE]
    assert [(f.rule, f.node, f.line) for f in findings] == ([(RULE, None, 2)] if expected else [])
    if expected:
        assert findings[0].message == f"{WARMUP}: {expected}; TF Serving refuses the model at load (warm-up)"


def test_more_records_than_tf_serving_reads():
    one = tfrecord(b"")
    assert parse_warmup(one * MAX_RECORDS).problem is None
    read = parse_warmup(one * (MAX_RECORDS + 1))
    assert read.problem == "Number of warmup records exceeds the maximum (1000)"
    assert len(read.requests) == MAX_RECORDS


@pytest.mark.parametrize(
    "data",
    [
        pytest.param((1 << 62).to_bytes(8, "little"), id="length-2^62"),
        pytest.param(b"\xff" * 12, id="length-max"),
    ],
)
def test_hostile_lengths_are_bounded_problems(data):
    from tflint.read import crc32c

    framed = data[:8] + crc32c.mask(crc32c.value(data[:8])).to_bytes(4, "little")
    assert parse_warmup(framed).problem == "truncated record at 0"
    assert parse_warmup(data[:8] + bytes(4)).problem == "corrupted record at 0"


def test_a_warm_up_file_too_big_to_read_is_a_warning(tmp_path, monkeypatch):
    from tflint.read import warmup

    monkeypatch.setattr(warmup, "MAX_WARMUP_BYTES", 10)
    model = write_model(tmp_path / "m", TEXT, warmup=REQUEST)
    (finding,) = [f for f in lint_file(model).findings if f.rule == RULE]
    assert str(finding.severity) == "warning"
    assert "tflint could not read it" in finding.message and "its requests are not checked" in finding.message


def test_data_past_the_checksum_budget_is_framed_but_not_checksummed(monkeypatch):
    from tflint.read import warmup

    good = tfrecord(b"")
    bad = bytearray(tfrecord(b"\x32\x00"))  # an empty predict log, its data CRC flipped
    bad[-1] ^= 0xFF
    assert parse_warmup(good + bytes(bad)).problem == "corrupted record at 16"
    monkeypatch.setattr(warmup, "MAX_CHECKSUMMED_BYTES", 1)
    assert parse_warmup(good + bytes(bad)).problem is None
    assert parse_warmup(good + bytes(bad)[:-3]).problem == "truncated record at 16"
