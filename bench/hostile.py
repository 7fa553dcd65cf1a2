"""Peak memory and time of tflint on small hostile inputs, against a trivial graph (issue 15's bound).

    python bench/hostile.py            # every case, one fresh `python -m tflint` process each
    python bench/hostile.py unpack     # the cases whose name contains "unpack"

Each case is at most about 1 KB (a graph, and a config when the case needs one), written
to a temporary directory and linted by `python -m tflint` in a child process; its peak RSS
comes from `resource.getrusage(RUSAGE_CHILDREN)` after the child exits (ru_maxrss of the
largest child so far, hence one fresh measuring process per case), its time from the wall
clock. The promise: no case uses more than ~100 MB above the trivial graph, or more than a
few seconds. The table is printed; the exit status is 1 if a case breaks the promise.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MAX_EXTRA_MB = 100
MAX_SECONDS = 5.0

PLACEHOLDER = 'node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }\n'


def _unpack(name: str, count: int) -> str:
    return (
        f'node {{ name: "{name}" op: "Unpack" input: "x" attr {{ key: "T" value {{ type: DT_FLOAT }} }} '
        f'attr {{ key: "num" value {{ i: {count} }} }} attr {{ key: "axis" value {{ i: 0 }} }} }}\n'
    )


def _cases() -> dict[str, tuple[str, str | None]]:
    """name -> (graph text, config text or None)."""
    alias_bomb = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 8):
        alias_bomb.append(f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 9)}]")
    alias_bomb.append("fail-on: *a7")
    slow_names = "".join(f'node {{ name: "{"a" * 24}{index}!" op: "NoOp" }}\n' for index in range(20))
    return {
        "trivial": ('node { name: "a" op: "NoOp" }\n', None),
        "unpack-2^31": (PLACEHOLDER + _unpack("u", 2**31 - 1), None),
        "unpack-200M": (PLACEHOLDER + _unpack("u", 200_000_000), None),
        "unpack-65536-x6-distinct": (PLACEHOLDER + "".join(_unpack(f"u{i}", 65_536 - i) for i in range(6)), None),
        "split-2^31": (
            PLACEHOLDER
            + 'node { name: "d" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" '
            "value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }\n"
            'node { name: "s" op: "Split" input: "d" input: "x" attr { key: "T" value { type: DT_FLOAT } } '
            'attr { key: "num_split" value { i: 2147483647 } } }\n',
            None,
        ),
        "control-inputs-x70": (
            'node { name: "a" op: "NoOp" }\nnode { name: "b" op: "NoOp"' + ' input: "^a"' * 70 + " }\n",
            None,
        ),
        "unknown-ops-x40": ("".join(f'node {{ name: "n{i}" op: "Qq{i}" }}\n' for i in range(40)), None),
        "const-2^40-elements": (
            'node { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { '
            "tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1099511627776 } } float_val: 1 } } } }\n",
            None,
        ),
        "fill-2^40": (
            'node { name: "s" op: "Const" attr { key: "dtype" value { type: DT_INT32 } } attr { key: "value" value { '
            "tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1048576 } } } }\n"
            'node { name: "v" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { '
            "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 1 } } } }\n"
            'node { name: "f" op: "Fill" input: "s" input: "v" attr { key: "T" value { type: DT_FLOAT } } }\n',
            None,
        ),
        "deep-nesting": (
            'node { name: "a" op: "NoOp" attr { key: "x" value { ' + "list { " * 150 + "}" * 152 + "\n",
            None,
        ),
        "config-alias-bomb": ('node { name: "a" op: "NoOp" }\n', "\n".join(alias_bomb) + "\n"),
        "config-regex-compile-bomb": (
            'node { name: "a" op: "NoOp" }\n',
            "rules:\n  empty-op:\n    ignore-nodes: ['(?:(?:a{1000}){1000}){1000}']\n",
        ),
        "config-regex-just-under-timeout": (
            slow_names,
            "rules:\n  node-name-pattern:\n    level: warning\n    forbid: ['(a|aa)+$', '(a|aa|aaa)+$', '(b|a+)+$']\n",
        ),
    }


def measure(graph: str, config: str | None) -> tuple[int, float, int, int]:
    """(peak RSS in KB, seconds, exit code, output bytes) of one `python -m tflint` run."""
    with tempfile.TemporaryDirectory() as directory:
        work = Path(directory)
        (work / "g.pbtxt").write_text(graph)
        args = [sys.executable, "-m", "tflint", "g.pbtxt"]
        if config is not None:
            (work / "c.yaml").write_text(config)
            args[3:3] = ["--config", "c.yaml"]
        script = (
            "import resource, subprocess, sys, time, json\n"
            "start = time.perf_counter()\n"
            "done = subprocess.run(sys.argv[1:], capture_output=True)\n"
            "elapsed = time.perf_counter() - start\n"
            "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
            "print(json.dumps([peak, elapsed, done.returncode, len(done.stdout) + len(done.stderr)]))\n"
        )
        result = subprocess.run([sys.executable, "-c", script, *args], cwd=work, capture_output=True, text=True)
        peak, elapsed, code, size = json.loads(result.stdout)
        return peak, elapsed, code, size


def main(argv: list[str]) -> int:
    cases = {
        name: case for name, case in _cases().items() if not argv or name == "trivial" or any(a in name for a in argv)
    }
    baseline = None
    broken = 0
    print(f"{'case':<34} {'input B':>8} {'peak MB':>8} {'+MB':>6} {'seconds':>8} {'exit':>4} {'output B':>9}")
    for name, (graph, config) in cases.items():
        size = len(graph.encode()) + (len(config.encode()) if config else 0)
        peak, elapsed, code, output = measure(graph, config)
        if baseline is None:
            baseline = peak
        extra = (peak - baseline) / 1024
        bad = extra > MAX_EXTRA_MB or elapsed > MAX_SECONDS or code not in (0, 1, 2)
        broken += bad
        print(
            f"{name:<34} {size:>8} {peak / 1024:>8.0f} {extra:>6.0f} {elapsed:>8.2f} {code:>4} {output:>9}"
            + ("  <- over the bound" if bad else "")
        )
    return 1 if broken else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main(sys.argv[1:]))
