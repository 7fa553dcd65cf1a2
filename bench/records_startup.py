"""What tflint's record classes would cost at start-up as `@dataclass(slots=True)` instead of `@record`.

Issue 30 asks whether record classes static tools can follow (`@dataclass`, whose fields type
checkers, IDEs and code walkers understand) are affordable. This writes two modules defining
classes with the fields of every record tflint has (read from the package): one as tflint
writes them (`@record` and a written-out `__init__`), one as `@dataclass(slots=True)` (frozen
where the record is), compiles both to .pyc, then imports each in fresh interpreters, interleaved,
and prints the medians and their difference (one run: ratios and differences, not absolutes).

    python bench/records_startup.py [--repeats 21]
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def record_classes() -> list[tuple[str, tuple[str, ...], bool, bool]]:
    """(name, fields, frozen, has __slots__) of every record class in tflint."""
    import tflint
    import tflint.rules

    found = {}
    for package in (tflint, tflint.rules):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith("__main__"):
                continue  # runs the command line when imported
            try:
                module = importlib.import_module(info.name)
            except Exception:  # a module that needs what this machine lacks: not a record's home
                continue
            for value in vars(module).values():
                fields = getattr(value, "__record_fields__", None)
                if isinstance(value, type) and fields is not None and value.__module__ == info.name:
                    frozen = getattr(value.__setattr__, "__name__", "") == "_refuse_assignment"
                    found[f"{info.name}.{value.__qualname__}"] = (fields, frozen, "__slots__" in vars(value))
    return [(f"C{number}", *found[name]) for number, name in enumerate(sorted(found))]


def as_records(classes: list[tuple[str, tuple[str, ...], bool, bool]]) -> str:
    lines = ["from __future__ import annotations", "from typing import Any", "from tflint.records import record", ""]
    for name, fields, frozen, slots in classes:
        lines += [f"@record(frozen={frozen})", f"class {name}:"]
        if slots:
            lines.append(f"    __slots__ = {fields!r}")
        lines += [f"    {field}: Any" for field in fields]
        lines.append(f"    def __init__(self, {', '.join(fields)}) -> None:")
        if frozen and slots:
            lines += [f"        object.__setattr__(self, {field!r}, {field})" for field in fields]
        elif frozen:
            lines.append(f"        vars(self).update({', '.join(f'{field}={field}' for field in fields)})")
        else:
            lines += [f"        self.{field} = {field}" for field in fields]
        lines.append("")
    return "\n".join(lines) + "\n"


def as_dataclasses(classes: list[tuple[str, tuple[str, ...], bool, bool]]) -> str:
    lines = ["from __future__ import annotations", "from dataclasses import dataclass", "from typing import Any", ""]
    for name, fields, frozen, _ in classes:
        lines += [f"@dataclass(slots=True, frozen={frozen})", f"class {name}:"]
        lines += [f"    {field}: Any" for field in fields]
        lines.append("")
    return "\n".join(lines) + "\n"


def time_import(python: str, folder: str, module: str) -> float:
    """Seconds a fresh interpreter spends importing `module` (tflint.records already imported: both need it)."""
    code = (
        "import sys, time; sys.path.insert(0, %r); import tflint.records; "
        "start = time.perf_counter(); import %s; print(time.perf_counter() - start)" % (folder, module)
    )
    return float(subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    args = parser.parse_args()
    classes = record_classes()
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "as_records.py").write_text(as_records(classes))
        Path(folder, "as_dataclasses.py").write_text(as_dataclasses(classes))
        for module in ("as_records", "as_dataclasses"):  # compile to .pyc, as an installed tflint is
            time_import(sys.executable, folder, module)
        times: dict[str, list[float]] = {"as_records": [], "as_dataclasses": []}
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        for _ in range(args.repeats):
            for module in times:
                times[module].append(time_import(sys.executable, folder, module))
    records, dataclasses = (statistics.median(times[key]) * 1000 for key in ("as_records", "as_dataclasses"))
    fields = sum(len(item[1]) for item in classes)
    print(f"{started}, Python {sys.version.split()[0]}, {args.repeats} interleaved runs each, medians")
    print(f"{len(classes)} record classes, {fields} fields")
    print(f"  @record + written __init__:   {records:6.1f} ms")
    extra = f"+{dataclasses - records:.1f} ms, x{dataclasses / records:.1f}"
    print(f"  @dataclass(slots=True):       {dataclasses:6.1f} ms  ({extra})")


if __name__ == "__main__":
    main()
