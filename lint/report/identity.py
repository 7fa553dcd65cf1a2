"""Stable identities for findings: repo-relative paths, subjects, fingerprints.

A finding is identified by its file, its rule and its subject (the node, in
its function and meta graph), never by its line: lines move whenever a
graph is regenerated, node names do not. Baselines key on these, SARIF's
partialFingerprints and JSON's `fingerprint` hash them.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

from tflint.finding import Finding
from tflint.read.walk import work_tree_root


def find_root(start: str | None = None) -> str:
    """The repository root (the nearest directory with `.git`) at or above `start`, else `start`.

    `start` defaults to the current directory. SARIF and GitHub want paths
    relative to the repository root; baselines and fingerprints use them so
    that they do not depend on where tflint ran or where the baseline lives.
    """
    directory = os.path.abspath(start or os.getcwd())
    return work_tree_root(directory) or directory


def repo_path(file: str, root: str | None) -> str:
    """`file` relative to `root` with `/` separators; absolute when outside it.

    Names that are not paths (`<stdin>`, a `--stdin-filename`) pass through.
    """
    if root is None or file.startswith("<"):
        return file.replace(os.sep, "/")
    absolute = os.path.abspath(file)
    relative = os.path.relpath(absolute, os.path.abspath(root))
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return absolute.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def subject(finding: Finding) -> str:
    """What a finding is about, without its position.

    The node name alone in the common case; with its meta graph and function
    when it has them (`meta graph [serve] > function f > node x`); empty for
    a finding about the file as a whole.
    """
    if finding.graph is None and finding.function is None:
        return finding.node or ""
    parts = []
    if finding.graph:
        parts.append(finding.graph)
    if finding.function is not None:
        parts.append(f"function {finding.function}")
    if finding.node is not None:
        parts.append(f"node {finding.node}")
    return " > ".join(parts)


def fingerprints(findings: Sequence[Finding], root: str | None) -> list[str]:
    """One fingerprint per finding: a hash of (repo path, rule, subject) and its occurrence.

    Findings that share all three (two problems of one rule on one node)
    are told apart by their order, which follows the graph.
    """
    import hashlib  # here: only SARIF needs it, and it costs start-up time otherwise

    seen: Counter[tuple[str, str, str]] = Counter()
    result = []
    for finding in findings:
        key = (repo_path(finding.file, root), finding.rule, subject(finding))
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\0".join(key).encode("utf-8")).hexdigest()[:32]
        result.append(f"{digest}:{occurrence}")
    return result
