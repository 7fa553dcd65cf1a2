"""The new version needs a newer TensorFlow than the old one did.

A server that serves the old version runs some TensorFlow; the new version
may need more of it:

- a GraphDef `min_consumer` above the old one's: TensorFlow whose GraphDef
  version is below it refuses to load the graph (**error**);
- an attr that an op's OpDef has in the new version's `stripped_op_list` but
  not in the old one's, where the op is used by both: the TensorFlow that
  wrote the old version does not know it and rejects nodes that set it
  ("NodeDef mentions attr ... not in Op"): an **error** when the attr has no
  default (every node sets it), a **warning** when it has one (only nodes
  setting another value);
- an op the old version does not use and that the run's op registry does
  not know (the bundled TensorFlow's, plus `op-defs`): a custom op, whose
  library the server must load (**warning**);
- a GraphDef `producer` above the old one's: written by a newer TensorFlow
  (**info**, with the TensorFlow versions the files record), and ops the
  old version did not use (**info**: the server's TensorFlow must have them).

The rule's levels, unless you configure one. Both versions' own
`stripped_op_list`s are compared, so no per-release registry is needed for
attrs. An op new in a version is named with the first bundled TensorFlow
release that registers it ("TensorFlow 2.10+"), unless every bundled release
(1.15 on) has it.

How to fix: upgrade the servers' TensorFlow before rolling out the new
version, or export it with the TensorFlow they run.

Okay:
  meta_info_def { tags: "serve" tensorflow_version: "2.15.1" }
  graph_def { versions { producer: 1645 min_consumer: 12 } }
  ---
  meta_info_def { tags: "serve" tensorflow_version: "2.15.1" }
  graph_def { versions { producer: 1645 min_consumer: 12 } }
Fail:
  meta_info_def { tags: "serve" tensorflow_version: "2.15.1" }
  graph_def { versions { producer: 1645 min_consumer: 12 } }
  ---
  meta_info_def { tags: "serve" tensorflow_version: "2.21.0" }   # newer-tensorflow, newer-tensorflow
  graph_def { versions { producer: 2474 min_consumer: 21 } }
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from tflint.finding import Issue, Severity
from tflint.tf.compat import MetaGraphInterface, VersionPair, Where, change, new_attrs, op_added_in, shown

ID = "newer-tensorflow"
CATEGORY = "compat"
DEFAULT_SEVERITY = Severity.ERROR
OPTIONS: dict[str, Any] = {}

# Most op names listed in one finding.
_LISTED = 10


def check(pair: VersionPair, options: Mapping[str, Any]) -> Iterator[Issue]:
    """Yield issues for what the new version needs of TensorFlow that the old one did not."""
    old_name, new_name = shown(pair.old.name), shown(pair.new.name)
    for old, new in pair.common_metas():
        where = Where(new)
        if old.min_consumer is not None and new.min_consumer is not None and new.min_consumer > old.min_consumer:
            yield Issue(
                None,
                f"GraphDef min_consumer {change(pair, str(old.min_consumer), str(new.min_consumer))}: "
                f"TensorFlow whose GraphDef version is below {new.min_consumer} refuses to load {new_name}",
                where=where,
                severity=Severity.ERROR,
            )
        if old.op_defs is not None and new.op_defs is not None:
            for op in sorted(set(old.op_defs) & set(new.op_defs)):
                for attr, has_default in new_attrs(old.op_defs[op], new.op_defs[op]):
                    if has_default:
                        consequence = f"it rejects nodes of {new_name} that set it to another value than the default"
                    else:
                        consequence = f"it rejects every {shown(op)} node of {new_name} (the attr has no default)"
                    yield Issue(
                        None,
                        f"op {shown(op)} has attr '{shown(attr)}' in {new_name}'s OpDef but not in {old_name}'s: "
                        f"the TensorFlow that wrote {old_name} does not know it, and {consequence}",
                        where=where,
                        severity=Severity.WARNING if has_default else Severity.ERROR,
                    )
        yield from _new_ops(pair, old, new, where)
        if old.producer is not None and new.producer is not None and new.producer > old.producer:
            values = change(pair, _producer(old), _producer(new))
            yield Issue(
                None,
                f"GraphDef producer {values}: written by a newer TensorFlow; a server running the one that "
                f"served {old_name} may lack ops or attrs it uses",
                where=where,
                severity=Severity.INFO,
            )


def _new_ops(pair: VersionPair, old: MetaGraphInterface, new: MetaGraphInterface, where: Where) -> Iterator[Issue]:
    if old.ops is None or new.ops is None:
        return
    added = sorted(new.ops - old.ops)
    registry = pair.registry
    unknown = [op for op in added if registry is not None and registry.schema(op) is None]
    known = [op for op in added if op not in unknown]
    old_name, new_name = shown(pair.old.name), shown(pair.new.name)
    for op in unknown:
        yield Issue(
            None,
            f"{new_name} uses op {shown(op)}, which {old_name} does not use and TensorFlow does not define "
            "(a custom op?): the server must load its library",
            where=where,
            severity=Severity.WARNING,
        )
    if known:
        listed = ", ".join(_op_text(op) for op in known[:_LISTED])
        more = f" and {len(known) - _LISTED} more" if len(known) > _LISTED else ""
        yield Issue(
            None,
            f"{new_name} uses ops {old_name} does not: {listed}{more}; the server's TensorFlow must have them",
            where=where,
            severity=Severity.INFO,
        )


def _op_text(op: str) -> str:
    release = op_added_in(op)
    return f"{shown(op)} (TensorFlow {release}+)" if release else shown(op)


def _producer(meta: MetaGraphInterface) -> str:
    written = f" (TensorFlow {shown(meta.tensorflow_version)})" if meta.tensorflow_version else ""
    return f"{meta.producer}{written}"
