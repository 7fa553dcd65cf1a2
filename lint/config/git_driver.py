"""`tflint git-setup`: make `git diff` and `git log -p` show graphs through `tflint show`.

git runs a diff driver's `textconv` command on both sides of a changed file
and diffs what it prints. Two settings do it: `.gitattributes` maps graph
files to a driver (`*.pb diff=tflint`), committed so the whole team gets it,
and `git config diff.tflint.textconv "tflint show --textconv"` names the
command, per clone (git never runs a command a repository's own files
name). `cachetextconv` lets git keep a rendering per blob in its notes.
"""

from __future__ import annotations

import os
import subprocess

from tflint.errors import UsageError
from tflint.read.guarded import read_bytes

DRIVER = "tflint"
PATTERNS = ("*.pb", "*.pbtxt", "*.meta")
TEXTCONV = "tflint show --textconv"
MAX_ATTRIBUTES_BYTES = 1 << 20


def _git(arguments: list[str], cwd: str) -> str:
    try:
        done = subprocess.run(["git", *arguments], cwd=cwd, capture_output=True, text=True, check=False)
    except OSError as error:
        raise UsageError(f"cannot run git: {error.strerror or error}") from None
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        raise UsageError(f"git {arguments[0]}: {lines[0] if lines else 'failed'}")
    return done.stdout.strip()


def attributes_lines(patterns: tuple[str, ...] = PATTERNS) -> list[str]:
    """The .gitattributes lines that send graph files to the driver."""
    return [f"{pattern} diff={DRIVER}" for pattern in patterns]


def setup(cwd: str, command: str = TEXTCONV, global_config: bool = False) -> list[str]:
    """Configure the repository around `cwd` (or the user's git, `global_config`); what was done, one line each."""
    done = []
    scope = ["--global"] if global_config else []
    if not global_config:
        root = _git(["rev-parse", "--show-toplevel"], cwd)
        path = os.path.join(root, ".gitattributes")
        existing = ""
        if os.path.exists(path):
            existing = read_bytes(path, ".gitattributes", limit=MAX_ATTRIBUTES_BYTES).decode("utf-8", "replace")
        present = {line.strip() for line in existing.splitlines()}
        missing = [line for line in attributes_lines() if line not in present]
        if missing:
            with open(path, "a", encoding="utf-8") as file:
                if existing and not existing.endswith("\n"):
                    file.write("\n")
                file.write("\n".join(missing) + "\n")
            done.append(f"{path}: added {', '.join(missing)}")
    _git(["config", *scope, f"diff.{DRIVER}.textconv", command], cwd)
    _git(["config", *scope, f"diff.{DRIVER}.cachetextconv", "true"], cwd)
    done.append(f"git config{' --global' if global_config else ''} diff.{DRIVER}.textconv '{command}'")
    return done
