"""Parallelism, in one place: files linted in a pool of processes, and one big graph's rules shared
among forked ones.

Both fork, so what the workers need (configs, registries, plugins, a built graph index) is shared
by copy-on-write instead of pickled; only findings cross back. The low-level fork, pipe and reap
are `tflint.runtime.fork`'s. Both are used only when the work repays starting processes
(PARALLEL_MIN_BYTES of files, FORK_MIN_NODES nodes in a graph), and the findings are the same
whatever the number of processes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from tflint.config.settings import Config
from tflint.engine.findings import GRAPH, RuleCrash, checks, run_rules
from tflint.finding import Finding
from tflint.runtime import interrupts, process
from tflint.tf.index import GraphIndex
from tflint.tf.registry import OpRegistry

# -- files in a pool of processes (-j) ----------------------------------------------------------

# Below this many bytes in all, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 2 << 20

# Loads and lints one file: (path, config, registry, input type, stdin name, rule progress, rule
# workers) -> (the name it is shown under, its findings).
LintOne = Callable[..., tuple[str, list[Finding], "str | None"]]

# What the pool's workers lint: set in the parent just before it forks them.
_PLAN: dict[str, tuple[Config, OpRegistry]] = {}
_PLAN_OPTIONS: tuple[Any, str | None, str] = (None, None, "<stdin>")


def core_count(jobs: int | None) -> int:
    """How many processes `jobs` allows (None or 0: one per core); 1 where fork is unavailable.

    By default a process that runs other threads (an application calling the
    API) is never forked: a child may inherit a lock another thread holds.
    """
    import threading

    if not hasattr(os, "fork"):  # what multiprocessing's "fork" start method needs (importing it costs 10 ms)
        return 1
    if jobs is None or jobs <= 0:
        return (os.cpu_count() or 1) if threading.active_count() == 1 else 1
    return jobs


def worker_count(files: list[str], jobs: int | None) -> int:
    """How many processes to lint `files` with (1: in this process)."""
    wanted = min(core_count(jobs), len(files))
    if wanted <= 1 or "-" in files:
        return 1
    total = 0
    for path in files:
        target = os.path.join(path, "saved_model.pb") if os.path.isdir(path) else path
        try:
            total += os.path.getsize(target)
        except OSError:
            pass
    return wanted if total >= PARALLEL_MIN_BYTES else 1


def lint_planned(
    plan: list[tuple[str, Config, OpRegistry]],
    lint_one: LintOne,
    input_type: str | None,
    stdin_name: str,
    progress: Any,
    workers: int,
    cores: int = 1,
) -> list[tuple[str, Config, list[Finding], str | None]]:
    """Lint each planned file with `lint_one`, in order, in this process or in `workers` forked ones.

    Linting in this process, a big graph's rules may still use `cores` processes.
    """
    global _PLAN, _PLAN_OPTIONS
    if progress is not None and hasattr(progress, "work"):
        from tflint.read.saved_model import report_reads_to

        report_reads_to(progress.work)  # long reads (checkpoint checksums) show how far they are
    if workers <= 1:
        return _lint_here(plan, lint_one, input_type, stdin_name, progress, cores)
    _PLAN = {path: (resolved, registry) for path, resolved, registry in plan}
    _PLAN_OPTIONS = (lint_one, input_type, stdin_name)
    try:
        started = _start_pool(workers, [path for path, _, _ in plan])
        if started is None:  # no processes to be had: this one lints them all
            return _lint_here(plan, lint_one, input_type, stdin_name, progress, cores)
        pool, in_order = started
        try:
            results = []
            for number, result in enumerate(in_order, start=1):
                if progress is not None:
                    progress.file(number, len(plan), result[0])
                results.append(result)
        except BaseException:
            _terminate(pool)  # an error: the workers end now, none is left behind
            raise
        else:
            pool.shutdown()
        finally:
            for worker in _workers(pool):
                interrupts.forget_child(worker.pid)
    finally:
        _PLAN, _PLAN_OPTIONS = {}, (None, None, "<stdin>")
    return [(shown, resolved, findings, skipped) for (shown, findings, skipped), (_, resolved, _) in zip(results, plan)]


def _lint_here(
    plan: list[tuple[str, Config, OpRegistry]],
    lint_one: LintOne,
    input_type: str | None,
    stdin_name: str,
    progress: Any,
    cores: int,
) -> list[tuple[str, Config, list[Finding], str | None]]:
    linted = []
    for number, (path, resolved, registry) in enumerate(plan, start=1):
        if progress is not None:
            progress.file(number, len(plan), stdin_name if path == "-" else path)
        shown, findings, skipped = lint_one(
            path, resolved, registry, input_type, stdin_name, progress.rule if progress is not None else None, cores
        )
        linted.append((shown, resolved, findings, skipped))
    return linted


def _start_pool(workers: int, paths: list[str]) -> tuple[Any, Iterator[tuple[str, list[Finding], str | None]]] | None:
    """A pool of `workers` forked processes linting `paths`, and its results in order; None if it cannot start.

    A pool needs processes (RLIMIT_NPROC), pipes (RLIMIT_NOFILE) and semaphores (a writable
    /dev/shm on Linux); without one of them the run is not worth failing: the files are linted
    in this process instead.
    """
    try:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(
            max_workers=workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=process.start_worker,
            initargs=(os.getpid(),),
        )
    except (OSError, ImportError):  # EMFILE, ENOSPC, EROFS, EACCES, ENOENT (/dev/shm); no semaphores here
        return None
    try:
        # The workers are tracked (an interrupt kills them) before an interrupt can end this process.
        with interrupts.deferred():
            in_order = pool.map(_lint_in_worker, paths)  # starts the workers
            for worker in _workers(pool):
                interrupts.track_child(worker.pid)
    except OSError:  # EAGAIN (RLIMIT_NPROC), EMFILE, ENOMEM while starting them
        _terminate(pool)
        for worker in _workers(pool):
            interrupts.forget_child(worker.pid)
        return None
    except BaseException:
        _terminate(pool)
        raise
    return pool, in_order


def _terminate(pool: Any) -> None:
    """End a process pool's workers at once (shutdown() would wait for every queued file).

    The pool's manager thread notices its workers vanish and may raise (a broken pipe): that is
    the expected end of an interrupted run, not news, so its traceback is not printed.
    """
    import threading

    workers = _workers(pool)
    manager = getattr(pool, "_executor_manager_thread", None)
    previous_hook = threading.excepthook
    # The pool's threads (its manager, its queue's feeder) see the workers vanish; while they wind down,
    # what they raise is the expected end of this run.
    threading.excepthook = lambda args: None if args.thread is not threading.main_thread() else previous_hook(args)
    try:
        for worker in workers:
            worker.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.join(1)
        if manager is not None:
            manager.join(1)
    finally:
        threading.excepthook = previous_hook


def _workers(pool: Any) -> list[Any]:
    """A process pool's worker processes (no public handle before Python 3.14)."""
    return list((getattr(pool, "_processes", None) or {}).values())


def _lint_in_worker(path: str) -> tuple[str, list[Finding], str | None]:
    resolved, registry = _PLAN[path]
    lint_one, input_type, stdin_name = _PLAN_OPTIONS
    result: tuple[str, list[Finding], str | None] = lint_one(path, resolved, registry, input_type, stdin_name)
    return result


# -- one big graph's rules in forked processes ---------------------------------------------------

# Below this many nodes a graph's rules take less time than starting a process costs.
FORK_MIN_NODES = 20_000


def run_graph_rules(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    """The findings of the enabled rules on one graph: in this process, or shared among `workers`
    processes when the graph is big enough to repay forking (the caller sorts them)."""
    if workers > 1 and len(index.nodes) >= FORK_MIN_NODES:
        return run_rules_forked(index, config, path, label, workers, progress)
    return list(run_rules(index, config, path, label, progress))


def run_rules_forked(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    workers: int,
    progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    """Run the enabled rules shared among `workers` processes: this one and forked children.

    The children inherit the built index (fork shares its memory), so only
    their findings cross back, pickled through a pipe. The rules wait in a
    queue (another pipe, one entry per unit of rule_units, costliest first)
    from which every process takes the next one when it is done with its
    last: how long a rule takes varies with the graph, so no split made in
    advance keeps the processes equally busy. Analyses most rules share
    (signatures) are built first, so no child has to build its own.
    Findings are the same as run_rules' (the caller sorts them).
    """
    import pickle
    from functools import partial

    from tflint.runtime import fork as forked
    from tflint.tf.op_signatures import signatures

    signatures(index).table()
    graph_rules = [rule_id for rule_id, _ in config.enabled() if checks(config.modules[rule_id]) == GRAPH]
    units = rule_units(graph_rules, config.modules)
    if len(units) > _MAX_QUEUED:  # a pipe holds at least a page; plugins could add rules without end
        units[_MAX_QUEUED - 1 :] = [[rule_id for unit in units[_MAX_QUEUED - 1 :] for rule_id in unit]]
    queue_read, queue_write = os.pipe()
    try:
        # Written whole before anyone reads (far below a pipe's capacity): a read of one entry
        # returns one whole entry or, once the queue is empty, end of file.
        os.write(queue_write, b"".join(number.to_bytes(_ENTRY, "little") for number in range(len(units))))
    finally:
        os.close(queue_write)
    children: list[forked.Child] = []
    try:
        for _ in range(workers - 1):
            try:
                child = forked.start(
                    partial(_run_queued_in_child, index, config, path, label, units, queue_read), pickle
                )
            except OSError:  # no process to spare (EAGAIN, ENOMEM, EMFILE): those started share the queue
                break
            children.append(child)
        findings = _run_queued(index, config, path, label, units, queue_read, progress)
    except BaseException:
        for child in children:
            child.stop()
        raise
    finally:
        os.close(queue_read)
    for number, child in enumerate(children):
        try:
            result = child.result()
            if isinstance(result, RuleCrash):
                raise result
        except BaseException:
            for other in children[number + 1 :]:
                other.stop()
            raise
        findings.extend(result)
    return findings


# Bytes per entry of run_rules_forked's queue (the number of a unit of rules), and the most entries.
_ENTRY = 2
_MAX_QUEUED = 1024


def rule_units(rule_ids: list[str], modules: Mapping[str, Any]) -> list[list[str]]:
    """`rule_ids` as units of work for run_rules_forked, costliest first.

    A unit is one rule, or the rules that read one analysis built on first use
    (their modules' SHARES), so that it is built once. A rule's COST is how long
    it takes relative to others (default 1); rules/__init__.py describes both.
    """
    units: list[list[str]] = []
    shared: dict[str, list[str]] = {}
    for rule_id in rule_ids:
        analysis = getattr(modules[rule_id], "SHARES", None)
        if analysis is None:
            units.append([rule_id])
        else:
            shared.setdefault(analysis, []).append(rule_id)
    units.extend(shared.values())
    return sorted(units, key=lambda unit: -sum(getattr(modules[rule_id], "COST", 1) for rule_id in unit))


def _run_queued(
    index: GraphIndex,
    config: Config,
    path: str,
    label: str | None,
    units: list[list[str]],
    queue: int,
    progress: Callable[[str], None] | None = None,
) -> list[Finding]:
    """Take units of rules from `queue` and run them until it is empty; their findings."""
    findings: list[Finding] = []
    while True:
        entry = os.read(queue, _ENTRY)
        if not entry:
            return findings
        findings.extend(
            run_rules(index, config, path, label, progress, only=set(units[int.from_bytes(entry, "little")]))
        )


def _run_queued_in_child(
    index: GraphIndex, config: Config, path: str, label: str | None, units: list[list[str]], queue: int
) -> list[Finding] | RuleCrash:
    """_run_queued in a forked child: a rule's crash is returned, to be raised in the parent."""
    try:
        return _run_queued(index, config, path, label, units, queue)
    except RuleCrash as crash:
        return crash
