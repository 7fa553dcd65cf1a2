"""How a model review is shown: `show` (a line-oriented rendering), `stats` and `diff` as text, Markdown or JSON.

`show` is written for people and for `git diff` (the textconv of a diff
driver): one line per fact, every list sorted, each node's attrs on lines of
their own, so that a small change to a model is a small change to the
rendering. It never names the file it shows (git hands textconv a temporary
file), and never prints a weight's values, only dtype, shape, bytes and a hash.

Every string that comes from a graph is escaped (tflint.escape) before colour
codes are added, so a node name cannot write to the terminal.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tflint.engine.model_diff import ModelDiff, NodeChange, WeightChange
from tflint.engine.review import GraphView, ModelView, NodeView, SignatureCost, Weight
from tflint.escape import escape
from tflint.tf.op_signatures import dtype_name
from tflint.tf.shapes.algebra import shape_text

_GREEN, _RED, _YELLOW, _BOLD, _RESET = "\033[32m", "\033[31m", "\033[33m", "\033[1m", "\033[0m"
# Longer lists fold into <details> in Markdown.
FOLD_AFTER = 10
JSON_VERSION = 1


def size_text(size: int) -> str:
    """Bytes for people: `848 B`, `1.5 KiB`, `64.0 MiB`."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def count_text(count: int) -> str:
    """A large count for people: `404`, `24.99 M`, `1.27 G`."""
    for limit, unit in ((10**9, "G"), (10**6, "M"), (10**4, "k")):
        if count >= limit:
            return f"{count / limit:.2f} {unit}"
    return str(count)


def _tensor(dtype: int, shape: tuple[int, ...] | None) -> str:
    return f"{dtype_name(dtype)} {shape_text(shape)}"


def _weight_text(weight: Weight) -> str:
    digest = f"  #{weight.digest}" if weight.digest else ""
    return f"{weight.name}  {_tensor(weight.dtype, weight.shape)}  {size_text(weight.size)}{digest}"


def _node_header(node: NodeView) -> str:
    inputs = list(node.inputs) + [f"^{name}" for name in node.control]
    device = f" @{node.device}" if node.device else ""
    return f"{node.name} = {node.op}({', '.join(inputs)}){device}"


def _cost_text(cost: SignatureCost) -> str:
    bound = "" if cost.exact else f" (a lower bound: {'; '.join(cost.unknown)})"
    return (
        f"{count_text(cost.flops)} FLOPs, activations {size_text(cost.activation_bytes)} at batch {cost.batch}{bound}"
    )


def _summary_lines(view: ModelView) -> list[str]:
    by_dtype = ", ".join(f"{name} {size_text(size)}" for name, size in view.parameter_bytes().items())
    ops = view.ops()
    lines = [
        f"format: {view.kind}",
        f"parameters: {view.parameters():,} ({by_dtype or 'none'}; from {view.parameters_from})",
        f"ops: {sum(ops.values())} nodes, {len(ops)} distinct",
    ]
    for graph in view.graphs:
        for cost in graph.costs:
            where = f"signature {cost.key}" if cost.key is not None else "graph"
            prefix = f"[{graph.label}] " if len(view.graphs) > 1 else ""
            lines.append(f"cost: {prefix}{where}: {_cost_text(cost)}")
    lines.extend(f"note: {note}" for note in view.notes)
    return lines


# -- show ----------------------------------------------------------------------------------------


def show_text(view: ModelView) -> str:
    """The line-oriented rendering of a model (deterministic; see the module docstring)."""
    lines = _summary_lines(view)
    for graph in view.graphs:
        lines.append("")
        lines.extend(_graph_lines(graph))
    if view.weights:
        lines.append("")
        lines.append(f"weights ({len(view.weights)}):")
        lines.extend(f"  {_weight_text(weight)}" for weight in view.weights.values())
    return "\n".join(escape(line) for line in lines) + "\n"


def _graph_lines(graph: GraphView) -> Iterable[str]:
    yield f"meta graph [{graph.label}]" if graph.tags is not None else "graph"
    for key, signature in graph.signatures.items():
        yield f"  signature {key} ({signature.method})"
        for direction, specs in (("input", signature.inputs), ("output", signature.outputs)):
            for name, spec in specs.items():
                if spec.dtype == 0:  # an op to run (the init op), not a tensor
                    yield f"    {direction} {name} <- {spec.tensor}"
                else:
                    yield f"    {direction} {name}: {_tensor(spec.dtype, spec.shape)} <- {spec.tensor}"
    count, functions = graph.machinery
    if count or functions:
        yield (
            f"  checkpoint machinery: {count} nodes, {len(functions)} functions "
            "(rebuilt from the variables on every save: not shown)"
        )
    yield f"  nodes ({len(graph.nodes)}):"
    yield from _node_lines(graph.nodes.values(), "    ")
    for name, body in graph.functions.items():
        yield f"  function {name} ({len(body)} nodes):"
        yield from _node_lines(body.values(), "    ")


def _node_lines(nodes: Iterable[NodeView], indent: str) -> Iterable[str]:
    for node in nodes:
        yield indent + _node_header(node)
        for key, value in node.attrs:
            yield f"{indent}    {key} = {value}"


def show_dict(view: ModelView) -> dict[str, Any]:
    """`tflint show --format json`: the same view as the text rendering, with the costs of `stats`."""
    document = stats_dict(view)
    document["graphs"] = [
        {
            "tags": list(graph.tags) if graph.tags is not None else None,
            "signatures": {
                key: {
                    "method": signature.method,
                    "inputs": {name: _spec_dict(spec) for name, spec in signature.inputs.items()},
                    "outputs": {name: _spec_dict(spec) for name, spec in signature.outputs.items()},
                }
                for key, signature in graph.signatures.items()
            },
            "checkpoint_machinery": {"nodes": graph.machinery[0], "functions": list(graph.machinery[1])},
            "nodes": [_node_dict("graph", node) for node in graph.nodes.values()],
            "functions": {
                name: [_node_dict(name, node) for node in body.values()] for name, body in graph.functions.items()
            },
            "costs": [_cost_dict(cost) for cost in graph.costs],
        }
        for graph in view.graphs
    ]
    document["weights"] = [_weight_dict(weight) for weight in view.weights.values()]
    return document


def _spec_dict(spec: Any) -> dict[str, Any]:
    return {
        "tensor": spec.tensor,
        "dtype": dtype_name(spec.dtype) if spec.dtype else None,
        "shape": list(spec.shape) if spec.shape is not None else None,
    }


# -- stats ---------------------------------------------------------------------------------------


def stats_dict(view: ModelView) -> dict[str, Any]:
    """What a model costs, as JSON: parameters and bytes by dtype, op histogram, per signature FLOPs."""
    return {
        "version": JSON_VERSION,
        "format": view.kind,
        "parameters": view.parameters(),
        "parameters_from": view.parameters_from,
        "parameter_bytes": view.parameter_bytes(),
        "ops": dict(sorted(view.ops().items())),
        "graphs": [
            {
                "tags": list(graph.tags) if graph.tags is not None else None,
                "costs": [_cost_dict(cost) for cost in graph.costs],
            }
            for graph in view.graphs
        ],
        "notes": view.notes,
    }


def _cost_dict(cost: SignatureCost) -> dict[str, Any]:
    return {
        "signature": cost.key,
        "batch": cost.batch,
        "flops": cost.flops,
        "activation_bytes": cost.activation_bytes,
        "exact": cost.exact,
        "unknown": list(cost.unknown),
    }


def stats_text(view: ModelView, markdown: bool = False) -> str:
    """`tflint stats` as text or Markdown: the summary, then the op histogram."""
    lines = _summary_lines(view)
    histogram = sorted(view.ops().items(), key=lambda item: (-item[1], item[0]))
    if markdown:
        out = ["## Model cost", ""] + [f"- {escape(line)}" for line in lines]
        out += ["", "| op | nodes |", "|---|---:|"]
        out += [f"| `{_code(op)}` | {count} |" for op, count in histogram]
        return "\n".join(out) + "\n"
    lines.append("op histogram:")
    width = max((len(op) for op, _ in histogram), default=0)
    lines.extend(f"  {op:<{width}}  {count}" for op, count in histogram)
    return "\n".join(escape(line) for line in lines) + "\n"


# -- diff ----------------------------------------------------------------------------------------


def _node_change_text(change: NodeChange) -> str:
    name = change.new_name if change.old_name == change.new_name else f"{change.old_name} -> {change.new_name}"
    parts = [
        f"{what}: {old or new}" if what.startswith("control ") else f"{what}: {old} -> {new}"
        for what, old, new in change.fields
    ] or ["renamed"]
    return f"{name}: {'; '.join(parts)}"


def _weight_change_text(item: WeightChange) -> str:
    a, b = item.old, item.new
    parts = []
    if a.dtype != b.dtype:
        parts.append(f"dtype {dtype_name(a.dtype)} -> {dtype_name(b.dtype)}")
    if a.shape != b.shape:
        parts.append(f"shape {shape_text(a.shape)} -> {shape_text(b.shape)}")
    if a.size != b.size:
        parts.append(f"{size_text(a.size)} -> {size_text(b.size)}")
    if not parts:
        parts.append("content changed")
    change = item.change
    if change is not None and change.changed is not None:
        sampled = "" if change.compared == change.total else f" (of {change.compared:,} sampled)"
        moved = "" if change.relative is None else f", |new-old|/|old| = {change.relative:.3g}"
        parts.append(f"{change.changed:.1%} of elements differ{sampled}{moved}")
    return f"{a.name}: {'; '.join(parts)}"


def _flops_pairs(diff: ModelDiff) -> list[tuple[str, int | None, int | None]]:
    found: dict[str, list[int | None]] = {}
    for position, view in enumerate((diff.old, diff.new)):
        for graph in view.graphs:
            for cost in graph.costs:
                key = cost.key or "graph"
                found.setdefault(key, [None, None])[position] = cost.flops
    return [(key, pair[0], pair[1]) for key, pair in sorted(found.items())]


def diff_sections(diff: ModelDiff) -> list[tuple[str, list[tuple[str, str]]]]:
    """The diff as titled sections of (mark, line): mark `+` added, `-` removed, `~` changed, `!` contract."""
    sections: list[tuple[str, list[tuple[str, str]]]] = []
    summary = [
        ("", f"parameters: {diff.old.parameters():,} -> {diff.new.parameters():,} ({_delta(diff)})"),
    ]
    added, removed = diff.ops_added(), diff.ops_removed()
    if added or removed:
        summary.append(("", f"op set: +[{', '.join(added)}] -[{', '.join(removed)}]"))
    for key, old, new in _flops_pairs(diff):
        before = "absent" if old is None else count_text(old)
        after = "absent" if new is None else count_text(new)
        summary.append(("", f"FLOPs {key} at batch {_batch(diff)}: {before} -> {after}"))
    sections.append(("summary", summary))
    if diff.compat:
        sections.append(
            (
                "serving contract (tflint compat)",
                [("!", f"{finding.severity}: {finding.message} [{finding.rule}]") for finding in diff.compat],
            )
        )
    graph_lines: list[tuple[str, str]] = []
    graph_lines += [("-", f"meta graph [{label}]") for label in diff.graphs_removed]
    graph_lines += [("+", f"meta graph [{label}]") for label in diff.graphs_added]
    for graph in diff.graphs:
        prefix = f"[{graph.label}] " if len(diff.graphs) > 1 else ""
        graph_lines += [("-", f"{prefix}signature {key}") for key in graph.signatures_removed]
        graph_lines += [("+", f"{prefix}signature {key}") for key in graph.signatures_added]
        graph_lines += [("~", f"{prefix}signature {a} renamed to {b}") for a, b in graph.signatures_renamed]
        graph_lines += [
            ("~", f"{prefix}signature {key}: {'; '.join(changes)}") for key, changes in graph.signatures_changed
        ]
        graph_lines += [("-", f"{prefix}function {name}") for name in graph.functions_removed]
        graph_lines += [("+", f"{prefix}function {name}") for name in graph.functions_added]
        for scope, node in graph.nodes_removed:
            graph_lines.append(("-", f"{prefix}{_scope(scope)}{_node_header(node)}"))
        for scope, node in graph.nodes_added:
            graph_lines.append(("+", f"{prefix}{_scope(scope)}{_node_header(node)}"))
        for change in graph.nodes_changed:
            graph_lines.append(("~", f"{prefix}{_scope(change.scope)}{_node_change_text(change)}"))
    if graph_lines:
        sections.append(("graph", graph_lines))
    weight_lines = [("-", _weight_text(weight)) for weight in diff.weights_removed]
    weight_lines += [("+", _weight_text(weight)) for weight in diff.weights_added]
    weight_lines += [("~", f"{a.name} renamed to {b.name} (same content)") for a, b in diff.weights_renamed]
    weight_lines += [("~", _weight_change_text(item)) for item in diff.weights_changed]
    if weight_lines:
        sections.append(("weights", weight_lines))
    return sections


def _scope(scope: str) -> str:
    return "" if scope == "graph" else f"in {scope}: "


def _batch(diff: ModelDiff) -> int:
    for graph in diff.new.graphs:
        for cost in graph.costs:
            return cost.batch
    return 1


def _delta(diff: ModelDiff) -> str:
    change = diff.new.parameters() - diff.old.parameters()
    return "unchanged" if change == 0 else f"{change:+,}"


def diff_text(diff: ModelDiff, old_name: str, new_name: str, color: bool = False) -> str:
    """`tflint diff` as text: a headline, then one line per change, coloured by kind on a terminal."""
    headline = f"{old_name} -> {new_name}: " + ("changed" if diff.changed else "no changes")
    out = [f"{_BOLD}{escape(headline)}{_RESET}" if color else escape(headline)]
    colors = {"+": _GREEN, "-": _RED, "~": _YELLOW, "!": _RED}
    for title, lines in diff_sections(diff):
        if title == "summary" and not diff.changed:
            lines = lines[:1]
        out.append(f"{title}:")
        for mark, line in lines:
            text = escape(f"  {mark} {line}" if mark else f"  {line}")
            out.append(f"{colors[mark]}{text}{_RESET}" if color and mark in colors else text)
    return "\n".join(out) + "\n"


def _code(text: str) -> str:
    """Text inside a Markdown code span: escaped, backticks and pipes made harmless."""
    return escape(text).replace("`", "'").replace("|", "\\|")


def diff_markdown(diff: ModelDiff, old_name: str, new_name: str) -> str:
    """`tflint diff --format markdown`: a pull-request comment or job summary; long lists fold into <details>."""
    verdict = "changed" if diff.changed else "no changes"
    out = [f"### Model diff: `{_code(old_name)}` → `{_code(new_name)}` ({verdict})", ""]
    marks = {"+": "➕", "-": "➖", "~": "✏️", "!": "⚠️", "": ""}
    for title, lines in diff_sections(diff):
        if title == "summary":
            out += [f"- {_code(line)}" for _, line in lines] + [""]
            continue
        rows = [f"- {marks[mark]} `{_code(line)}`" for mark, line in lines]
        if len(rows) > FOLD_AFTER:
            out += [f"<details><summary>{escape(title)} ({len(rows)})</summary>", "", *rows, "", "</details>", ""]
        else:
            out += [f"**{escape(title)}**", "", *rows, ""]
    return "\n".join(out).rstrip("\n") + "\n"


def diff_dict(diff: ModelDiff, old_name: str, new_name: str) -> dict[str, Any]:
    """`tflint diff --format json`: `changed` says plainly whether anything did."""
    return {
        "version": JSON_VERSION,
        "old": old_name,
        "new": new_name,
        "changed": diff.changed,
        "parameters": {"old": diff.old.parameters(), "new": diff.new.parameters()},
        "ops": {"added": diff.ops_added(), "removed": diff.ops_removed()},
        "flops": [{"signature": key, "old": old, "new": new} for key, old, new in _flops_pairs(diff)],
        "contract": [
            {"rule": finding.rule, "severity": str(finding.severity), "message": finding.message}
            for finding in diff.compat
        ],
        "meta_graphs": {"added": diff.graphs_added, "removed": diff.graphs_removed},
        "graphs": [
            {
                "tags": graph.label,
                "signatures": {
                    "added": graph.signatures_added,
                    "removed": graph.signatures_removed,
                    "renamed": [{"old": a, "new": b} for a, b in graph.signatures_renamed],
                    "changed": {key: changes for key, changes in graph.signatures_changed},
                },
                "functions": {"added": graph.functions_added, "removed": graph.functions_removed},
                "nodes": {
                    "added": [_node_dict(scope, node) for scope, node in graph.nodes_added],
                    "removed": [_node_dict(scope, node) for scope, node in graph.nodes_removed],
                    "changed": [
                        {
                            "scope": change.scope,
                            "old_name": change.old_name,
                            "new_name": change.new_name,
                            "changes": [{"what": what, "old": old, "new": new} for what, old, new in change.fields],
                        }
                        for change in graph.nodes_changed
                    ],
                },
            }
            for graph in diff.graphs
        ],
        "weights": {
            "added": [_weight_dict(weight) for weight in diff.weights_added],
            "removed": [_weight_dict(weight) for weight in diff.weights_removed],
            "renamed": [{"old": a.name, "new": b.name} for a, b in diff.weights_renamed],
            "changed": [_weight_change_dict(item) for item in diff.weights_changed],
        },
    }


def _node_dict(scope: str, node: NodeView) -> dict[str, Any]:
    return {
        "scope": scope,
        "name": node.name,
        "op": node.op,
        "inputs": list(node.inputs),
        "control": list(node.control),
        "device": node.device,
        "attrs": dict(node.attrs),
    }


def _weight_dict(weight: Weight) -> dict[str, Any]:
    return {
        "name": weight.name,
        "dtype": dtype_name(weight.dtype),
        "shape": list(weight.shape) if weight.shape is not None else None,
        "bytes": weight.size,
        "hash": weight.digest,
    }


def _weight_change_dict(item: WeightChange) -> dict[str, Any]:
    found: dict[str, Any] = {"name": item.old.name, "old": _weight_dict(item.old), "new": _weight_dict(item.new)}
    if item.change is not None:
        found["elements_compared"] = item.change.compared
        found["fraction_changed"] = item.change.changed
        found["relative_change"] = item.change.relative
    return found


def json_text(document: Any) -> str:
    """A JSON document as tflint prints them (indented, keys in the order built)."""
    return json.dumps(document, indent=2) + "\n"
