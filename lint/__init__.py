"""tflint: lint TensorFlow graphs (GraphDef, MetaGraphDef, SavedModel) without TensorFlow.

    import tflint
    report = tflint.lint_file("model/graph.pbtxt")
    for finding in report.findings:
        print(finding.location(), finding.message)
    tflint.validate("export/saved_model_dir")   # raises GraphValidationError on failure

Attributes are imported lazily so that `tflint --version` stays fast.
"""

from __future__ import annotations

import os
import sys


def _started_as_command() -> bool:
    """Whether this import is the start of the `tflint` command (`python -m tflint` or the console script)."""
    if sys.argv[:1] == ["-m"]:  # `python -m X` sets it while X's packages are imported to find X
        argv = getattr(sys, "orig_argv", [])
        for number, flag in enumerate(argv):
            if flag.startswith("-m"):  # `-m tflint` or `-mtflint`
                module = flag[2:] or (argv[number + 1] if number + 1 < len(argv) else "")
                return module.partition(".")[0] == "tflint"
        return False
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    return (
        script is not None and sys.argv[:1] == [script] and os.path.basename(script) in ("tflint", "tflint-script.py")
    )


if _started_as_command():
    # Ctrl-C exits 130 from here on, imports included (tflint.runtime.interrupts says why it never
    # raises KeyboardInterrupt in the command). `_signal` is loaded by every interpreter at
    # start-up, so taking it imports nothing: no window in which an interrupt would be a traceback.
    import _signal  # type: ignore[import-not-found]  # (no stub: the C half of the signal module)

    _signal.signal(_signal.SIGINT, lambda signum, frame: os._exit(128 + signum))
    from tflint.runtime import interrupts

    interrupts.install()

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: `tflint --version` needs none

__version__ = "0.1.0"

# The package's folder, which holds its bundled files (tf/data/, config/presets/): they are read by path, as
# pip installs packages as plain files and importlib.resources costs 5-7 ms of imports at start-up.
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_LAZY = {
    "Finding": "tflint.finding",
    "Severity": "tflint.finding",
    "Report": "tflint.api",
    "GraphValidationError": "tflint.api",
    "compat": "tflint.api",
    "lint_file": "tflint.api",
    "lint_graph": "tflint.api",
    "lint_paths": "tflint.api",
    "validate": "tflint.api",
    "ConfigError": "tflint.errors",
    "UsageError": "tflint.errors",
}

__all__ = [
    "ConfigError",
    "Finding",
    "GraphValidationError",
    "Report",
    "Severity",
    "UsageError",
    "__version__",
    "compat",
    "lint_file",
    "lint_graph",
    "lint_paths",
    "validate",
]

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from tflint.api import (
        GraphValidationError,
        Report,
        compat,
        lint_file,
        lint_graph,
        lint_paths,
        validate,
    )
    from tflint.errors import ConfigError, UsageError
    from tflint.finding import Finding, Severity


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'tflint' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
