"""read/guarded: the reads `--fix` relies on: the file itself, never through a link, and whether it is unchanged."""

from __future__ import annotations

import os

import pytest

from tflint.read.guarded import UnreadableFile, read_unlinked, still_holds


def test_read_unlinked_gives_the_bytes_and_the_status_of_one_open(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_bytes(b"node {}\n")
    data, status = read_unlinked(path)
    assert data == b"node {}\n" and status.st_ino == path.stat().st_ino


def test_read_unlinked_refuses_a_symlink_and_what_is_not_a_file(tmp_path):
    (tmp_path / "g.pbtxt").write_bytes(b"node {}\n")
    (tmp_path / "link.pbtxt").symlink_to(tmp_path / "g.pbtxt")
    with pytest.raises(UnreadableFile, match=r"link\.pbtxt: a symbolic link, not followed$"):
        read_unlinked(tmp_path / "link.pbtxt")
    with pytest.raises(UnreadableFile, match=r"not a regular file \(a directory\)$"):
        read_unlinked(tmp_path)


@pytest.mark.parametrize(
    "change, holds",
    [
        pytest.param(None, True, id="unchanged"),
        pytest.param(lambda path: path.write_bytes(b"node {X}\n"), False, id="same-size-other-bytes"),
        pytest.param(lambda path: path.write_bytes(b"node {}\n\n"), False, id="grown"),
        pytest.param(lambda path: os.replace(path.with_name("copy"), path), False, id="other-file-same-bytes"),
        pytest.param(lambda path: (path.unlink(), path.symlink_to(path.with_name("copy"))), False, id="now-a-link"),
        pytest.param(lambda path: path.unlink(), False, id="gone"),
    ],
)
def test_still_holds_tells_the_same_file_with_the_same_bytes(tmp_path, change, holds):
    path = tmp_path / "g.pbtxt"
    path.write_bytes(b"node {}\n")
    (tmp_path / "copy").write_bytes(b"node {}\n")
    data, status = read_unlinked(path)
    if change is not None:
        change(path)
    assert still_holds(path, data, status) is holds


def test_still_holds_compares_a_big_file_piece_by_piece(tmp_path):
    path = tmp_path / "big.pb"
    content = os.urandom(3 << 20)
    path.write_bytes(content)
    data, status = read_unlinked(path)
    assert still_holds(path, data, status)
    with open(path, "r+b") as stream:  # one byte changed in place, in the last piece
        stream.seek(len(content) - 1)
        stream.write(bytes([content[-1] ^ 1]))
    assert not still_holds(path, data, status)
