"""tflint, modelscan and modelaudit side by side on unsafe-op's malicious and benign SavedModels.

The models are tests/data/security (tools/gen_security_suite.py wrote them
with TensorFlow and proved each malicious side effect). Each scanner runs in
a virtualenv of its own, never a dependency of tflint:

    python bench/security.py --modelscan VENV/bin/modelscan --modelaudit VENV/bin/modelaudit [--json OUT]

Per model and tool: detected (a malicious model reported; for tflint at
warning or above, or for the dormant model as `dormant`; for the scanners, a report that names
something besides the model's own saver), the trigger right
(tflint alone says when an op fires), a false alarm (a benign model reported;
for tflint at warning or above), and how many reports name the model's own
saver (`SaveV2`, `RestoreV2`, `MergeV2Checkpoints`: noise, every model has
them). Times are the whole suite's, wall and CPU (children's user + system),
each tool run once per model as a user would.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "tests" / "data" / "security"
SAVER_OPS = ("SaveV2", "RestoreV2", "MergeV2Checkpoints")


def _suite(work: Path) -> tuple[dict[str, Any], Path]:
    """A copy of the suite with the symlinked asset put back (to a file outside the model)."""
    verdicts = json.loads((SUITE / "verdicts.json").read_text())
    root = work / "suite"
    shutil.copytree(SUITE, root)
    outside = work / "secret.txt"
    outside.write_text("s3cr3t-token\n")
    for name, verdict in verdicts.items():
        if verdict["symlink_asset"]:
            link = root / name / "assets" / verdict["symlink_asset"]
            link.unlink()
            link.symlink_to(outside)
    return verdicts, root


def _run(command: list[str]) -> tuple[str, float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def _json_in(text: str) -> Any:
    """The JSON document in a tool's output (modelscan prints progress lines before it)."""
    start = min((index for index in (text.find("{"), text.find("[")) if index >= 0), default=-1)
    return json.loads(text[start:]) if start >= 0 else None


def tflint(model: Path, verdict: dict[str, Any]) -> dict[str, Any]:
    command = [sys.executable, "-m", "tflint", "--preset", "serving", "--select", "unsafe-op", "--format", "json"]
    out, wall, cpu = _run([*command, str(model)])
    findings = _json_in(out) or []
    serious = [f for f in findings if f["severity"] in ("warning", "error")]
    triggers = {(f.get("properties") or {}).get("trigger") for f in findings}
    expected = verdict["trigger"]
    if verdict["malicious"]:
        detected = bool(serious) if expected != "dormant" else "dormant" in triggers
    else:
        detected = bool(serious)
    return {
        "reported": detected,
        "trigger_right": expected in triggers if verdict["malicious"] else None,
        "saver_reports": sum(any(op in f["message"] for op in SAVER_OPS) for f in serious),
        "wall": wall,
        "cpu": cpu,
    }


def modelscan(executable: str, model: Path, verdict: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as work:
        # Its JSON on stdout is wrapped to the terminal's width: the report file is the document.
        report_path = Path(work) / "report.json"
        _, wall, cpu = _run([executable, "scan", "-p", str(model), "-r", "json", "-o", str(report_path)])
        report = json.loads(report_path.read_text()) if report_path.exists() else {}
    issues = report.get("issues", [])
    errors = report.get("errors", [])
    return {
        "reported": any(not any(op in json.dumps(issue) for op in SAVER_OPS) for issue in issues),
        "trigger_right": None,
        "saver_reports": sum(any(op in json.dumps(issue) for op in SAVER_OPS) for issue in issues),
        "errors": len(errors),
        "wall": wall,
        "cpu": cpu,
    }


def modelaudit(executable: str, model: Path, verdict: dict[str, Any]) -> dict[str, Any]:
    out, wall, cpu = _run([executable, "scan", "--format", "json", "--no-cache", str(model)])
    report = _json_in(out) or {}
    issues = [issue for issue in report.get("issues", []) if issue.get("severity") in ("critical", "warning")]
    return {
        "reported": any(not any(op in issue.get("message", "") for op in SAVER_OPS) for issue in issues),
        "trigger_right": None,
        "saver_reports": sum(any(op in issue.get("message", "") for op in SAVER_OPS) for issue in issues),
        "wall": wall,
        "cpu": cpu,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--modelscan", help="the modelscan command of its own virtualenv (with TensorFlow)")
    parser.add_argument("--modelaudit", help="the modelaudit command of its own virtualenv")
    parser.add_argument("--json", help="write every row here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        verdicts, root = _suite(Path(work))
        tools: dict[str, Any] = {"tflint": tflint}
        if args.modelscan:
            tools["modelscan"] = lambda model, verdict: modelscan(args.modelscan, model, verdict)
        if args.modelaudit:
            tools["modelaudit"] = lambda model, verdict: modelaudit(args.modelaudit, model, verdict)
        rows: dict[str, dict[str, Any]] = {}
        for name in sorted(verdicts):
            rows[name] = {tool: run(root / name, verdicts[name]) for tool, run in tools.items()}
    _print(verdicts, rows, list(tools))
    if args.json:
        Path(args.json).write_text(json.dumps({"verdicts": verdicts, "rows": rows}, indent=2) + "\n")


def _print(verdicts: dict[str, Any], rows: dict[str, Any], tools: list[str]) -> None:
    print("| model | " + " | ".join(tools) + " |")
    print("|---|" + "---|" * len(tools))
    for name, row in rows.items():
        cells = []
        for tool in tools:
            result = row[tool]
            mark = "reported" if result["reported"] else "-"
            if result.get("trigger_right") is not None:
                mark += ", trigger right" if result["trigger_right"] else ", trigger WRONG"
            if result["saver_reports"]:
                mark += f" (+{result['saver_reports']} on the saver)"
            cells.append(mark)
        kind = "malicious" if verdicts[name]["malicious"] else "benign"
        print(f"| {name} ({kind}) | " + " | ".join(cells) + " |")
    malicious = [name for name in rows if verdicts[name]["malicious"]]
    benign = [name for name in rows if not verdicts[name]["malicious"]]
    print()
    print("| tool | malicious detected | triggers right | false alarms (benign) | saver reports | wall s | cpu s |")
    print("|---|---|---|---|---|---|---|")
    for tool in tools:
        detected = sum(rows[name][tool]["reported"] for name in malicious)
        rights = [rows[name][tool]["trigger_right"] for name in malicious]
        right = f"{sum(bool(r) for r in rights)}/{len(malicious)}" if None not in rights else "n/a"
        alarms = sum(rows[name][tool]["reported"] for name in benign)
        saver = sum(row[tool]["saver_reports"] for row in rows.values())
        wall = sum(row[tool]["wall"] for row in rows.values())
        cpu = sum(row[tool]["cpu"] for row in rows.values())
        found = f"{detected}/{len(malicious)}"
        print(f"| {tool} | {found} | {right} | {alarms}/{len(benign)} | {saver} | {wall:.1f} | {cpu:.1f} |")


if __name__ == "__main__":
    main()
