"""A model as it was at a git revision (`tflint diff HEAD~1:model.pb model.pb`), written out to compare.

`REV:PATH` is git's own notation (`git show HEAD~1:models/resnet`): PATH is
relative to the current directory, and may name a file or a directory (a
SavedModel, its variables included). The blobs are streamed by `git cat-file`
into a temporary directory, a piece at a time; their total size, as `git
ls-tree -l` reports it, is bounded before anything is written.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from tflint.errors import UsageError

# The most a revision's files may hold in all (a few SavedModels of the largest kind).
MAX_REVISION_BYTES = 16 << 30
_PIECE_BYTES = 1 << 20


def is_revision(argument: str) -> bool:
    """Whether a diff argument is `REV:PATH` rather than a path on disk."""
    if os.path.exists(argument):
        return False
    revision, colon, path = argument.partition(":")
    drive = len(revision) == 1 and path.startswith(("\\", "/"))  # C:\models on Windows
    return bool(colon and revision and path) and not drive


def _git(arguments: list[str]) -> bytes:
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, check=False)
    except OSError as error:
        raise UsageError(f"cannot run git: {error.strerror or error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(f"git {arguments[0]}: {message[0] if message else 'failed'}")
    return done.stdout


def checkout(argument: str, into: str) -> str:
    """Write the file or directory `REV:PATH` names under `into`; returns the path written (same base name)."""
    revision, _, path = argument.partition(":")
    if revision.startswith("-"):  # git would take it for an option
        raise UsageError(f"{argument}: a revision cannot start with '-'")
    path = os.path.normpath(path)
    listing = _git(["ls-tree", "-r", "-z", "-l", revision, "--", path])
    entries = []
    total = 0
    for record in listing.split(b"\0"):
        if not record:
            continue
        header, _, raw_name = record.partition(b"\t")
        fields = header.split()
        if len(fields) < 4 or fields[1] != b"blob":
            continue
        size = int(fields[3]) if fields[3].isdigit() else 0
        total += size
        entries.append((fields[2].decode(), os.fsdecode(raw_name), size))
    if not entries:
        raise UsageError(f"{argument}: no such path in revision {revision}")
    if total > MAX_REVISION_BYTES:
        raise UsageError(f"{argument}: {total:,} bytes, more than the {MAX_REVISION_BYTES:,} tflint writes out")
    target = os.path.join(into, os.path.basename(path.rstrip("/")) or "model")
    single = len(entries) == 1 and os.path.normpath(entries[0][1]) == path
    for obj, name, _ in entries:
        relative = os.path.relpath(os.path.normpath(name), path)
        destination = target if single else os.path.join(target, relative)
        if relative.startswith(".."):
            continue  # listed outside PATH (cannot happen with `--`): never written
        os.makedirs(os.path.dirname(destination) or ".", exist_ok=True)
        _write_blob(obj, destination)
    return target


def _write_blob(obj: str, destination: str) -> None:
    with open(destination, "wb") as out:
        process = subprocess.Popen(["git", "cat-file", "blob", obj], stdout=subprocess.PIPE)
        assert process.stdout is not None
        try:
            shutil.copyfileobj(process.stdout, out, _PIECE_BYTES)
        finally:
            process.stdout.close()
            if process.wait() != 0:
                raise UsageError(f"git cat-file: cannot read object {obj}")
