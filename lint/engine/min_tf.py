"""`--min-tf`: the oldest bundled TensorFlow release whose importer accepts a graph file.

Each bundled release's importer is replayed on the file's graphs (`tflint.tf.target`), and its text
(if text) is checked against each release's protobuf schema; a requirement failing on some releases
needs the release after the newest of them. Kernels count too, where they are bundled
(`tflint.tf.kernels`): a node with no kernel on an older release with kernel data (as
`missing-kernel` places it, with its options) needs the release after it, and is taken to be
missing on every older release as well (kernels are added, seldom removed).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tflint.engine.run import build_index
from tflint.finding import Finding, Severity
from tflint.read.load import load_path
from tflint.records import record
from tflint.tf.index import GraphIndex
from tflint.tf.registry import OpRegistry


@record(frozen=True)
class MinTf:
    """The oldest bundled TensorFlow release that imports a graph file, and why no older one does.

    `release` is None when not even the newest bundled release imports it
    (`blockers` then lists the rules that failed). `needs` holds, newest
    first, (release, reasons): the reasons that need at least that release
    ("op XlaCallModule", "GatherV2.batch_dims = 1 (not the default)").
    """

    path: str
    release: str | None
    needs: tuple[tuple[str, tuple[str, ...]], ...]
    blockers: tuple[str, ...]

    def __init__(
        self,
        path: str,
        release: str | None,
        needs: tuple[tuple[str, tuple[str, ...]], ...] = (),
        blockers: tuple[str, ...] = (),
    ) -> None:
        vars(self).update(path=path, release=release, needs=needs, blockers=blockers)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.path,
            "min_tf": self.release,
            "needs": [{"release": release, "reasons": list(reasons)} for release, reasons in self.needs],
            "blockers": list(self.blockers),
        }

    def text(self) -> str:
        if self.release is None:
            return f"{self.path}: no bundled TensorFlow imports it ({', '.join(self.blockers)})"
        if not self.needs:
            return f"{self.path}: TF {self.release} (the oldest bundled release) imports it"
        reasons = "; ".join(f"\u2265 {release}: {', '.join(items)}" for release, items in self.needs)
        return f"{self.path}: TF {self.release} (needs TF {reasons})"


def oldest_release(
    shown: str,
    registry: OpRegistry,
    saver_rule: str,
    input_type: str | None = None,
    kernel_options: Mapping[str, Any] | None = None,
) -> MinTf:
    """The oldest of `registry`'s targets (every bundled release) that imports the file at `shown`, which
    lints without errors; a SaverDef no release loads blocks them all, as the rule `saver_rule` says.
    `kernel_options` (missing-kernel's `devices` and `soft-placement`, None when the rule is off) has
    the older releases' kernels judged too."""
    from tflint import protos
    from tflint.tf.functions import called_functions
    from tflint.tf.releases import known_releases, schema_gaps
    from tflint.tf.target import ATTR_IGNORED, SAVER, problems

    names = known_releases()
    failing: dict[str, set[int]] = {}  # requirement -> indices (into names) of the releases it fails on
    artifact = load_path(shown, input_type)
    index_of = {release.name: names.index(release.name) for release in registry.targets}
    for source in artifact.graphs:
        graph = build_index(source, registry, artifact)
        try:
            for release in registry.targets:
                for problem in problems(graph, release):
                    if problem.kind == SAVER:  # every release's loader fails on it
                        return MinTf(shown, None, blockers=(saver_rule,))
                    function = problem.node.function if problem.node is not None else None
                    if function is not None and not problem.built and function not in called_functions(graph):
                        continue  # a body only instantiation checks, and nothing calls it: the import succeeds
                    if problem.kind != ATTR_IGNORED and not problem.deferred:
                        failing.setdefault(problem.requirement, set()).add(index_of[release.name])
            if kernel_options is not None:
                for requirement, newest_failing in kernel_requirements(graph, kernel_options):
                    failing.setdefault(requirement, set()).update(range(names.index(newest_failing) + 1))
        finally:
            graph.release()
    root = getattr(protos, artifact.message_type or "", None)
    if artifact.form == "text" and artifact.text and root is not None:
        everyone = sum(1 << release.bit for release in registry.targets)
        gaps = schema_gaps(registry.targets)
        for use in artifact.schema_uses(root.DESCRIPTOR, gaps, everyone):
            owner = use.owner.removeprefix("tensorflow.")
            what = f"text field {owner}.{use.name}" if use.kind == "messages" else f"text enum value {use.name}"
            bits = {bit for bit in range(len(names)) if use.lacking & (1 << bit)}
            failing.setdefault(what, set()).update(bits)
    by_release: dict[int, list[str]] = {}
    for requirement, indices in failing.items():
        by_release.setdefault(max(indices) + 1, []).append(requirement)
    oldest = max(by_release, default=0)
    needs = tuple((names[i], tuple(sorted(by_release[i]))) for i in sorted(by_release, reverse=True))
    return MinTf(shown, names[oldest], needs)


def kernel_requirements(graph: GraphIndex, options: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(requirement, release) for each node that has no kernel on an older release whose kernels are bundled,
    the newest such release for each requirement ("kernel Range[Tidx=half] on CPU")."""
    from tflint.tf.kernels import build_for, releases_with_kernels
    from tflint.tf.placement import NO_KERNEL, Server, kernel_requirement, placement_problems
    from tflint.tf.registry import snapshot_info

    devices = tuple(dict.fromkeys(str(kind).upper() for kind in options["devices"]))
    newest = ".".join(snapshot_info().tensorflow_version.split(".")[:2])
    seen: set[str] = set()
    for name in sorted(releases_with_kernels(), key=lambda item: tuple(int(part) for part in item.split(".")))[::-1]:
        build = build_for(name, devices)
        if name == newest or build is None:
            continue  # the newest release's kernels are missing-kernel's, which blocks every release
        server = Server(build, devices, bool(options["soft-placement"]))
        for problem in placement_problems(graph, server):
            if problem.kind == NO_KERNEL:
                requirement = kernel_requirement(graph, problem.node, server)
                if requirement not in seen:
                    seen.add(requirement)
                    yield requirement, name


def blocking_rules(findings: Iterable[Finding]) -> tuple[str, ...]:
    """The rules of the errors a file's lint found: while any is there, no release imports it."""
    return tuple(sorted({finding.rule for finding in findings if finding.severity >= Severity.ERROR}))
