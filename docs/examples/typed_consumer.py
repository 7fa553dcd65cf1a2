"""A typed consumer of tflint's Python API: CI checks it with `mypy --strict` (tests/test_typing.py).

    python docs/examples/typed_consumer.py model/graph.pbtxt export/1/

Everything used here is public (`tflint.__all__`) and typed (tflint ships `py.typed`).
"""

from __future__ import annotations

import sys

import tflint


def errors_in(path: str) -> list[str]:
    """`path:line:col rule: message` for each error-level finding of one graph file or SavedModel."""
    report: tflint.Report = tflint.lint_file(path)
    found: list[tflint.Finding] = [f for f in report.findings if f.severity >= tflint.Severity.ERROR]
    return [f"{finding.location()} {finding.rule}: {finding.message}" for finding in found]


def ready_to_serve(path: str) -> bool:
    """Whether a SavedModel passes the serving checks; the failing findings are printed."""
    try:
        tflint.validate(path)
    except tflint.GraphValidationError as error:
        for finding in error.findings:
            print(finding.location(), finding.graph, finding.rule, finding.message, file=sys.stderr)
        return False
    except (tflint.ConfigError, tflint.UsageError) as error:
        print(f"tflint: {error}", file=sys.stderr)
        return False
    return True


def passes(graph: bytes) -> bool:
    """Whether a serialized graph (text or binary, as a model server would receive it) passes validation."""
    try:
        tflint.validate(graph)
    except tflint.GraphValidationError:
        return False
    return True


def main(paths: list[str]) -> int:
    report = tflint.lint_paths(paths, fail_on="warning")
    sarif: str = report.to_sarif()
    failing: tuple[tflint.Finding, ...] = report.failing()
    print(f"tflint {tflint.__version__}: {len(failing)} failing of {len(report.findings)}; SARIF {len(sarif)} bytes")
    return 0 if report.ok else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
