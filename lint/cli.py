"""The `tflint` command: parse arguments, lint (tflint.api), render (tflint.report), exit 0/1/2.

Exit codes: 0 nothing at or above the failing level (and no more warnings
than --max-warnings); 1 findings at or above it (a file that does not parse
included), unless --exit-zero; 2 usage, configuration, plugin, baseline or
unreadable-path errors, printed as one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys

from tflint.runtime import process

# typing.TYPE_CHECKING without importing typing, nor argparse: `tflint --version` needs neither (mypy
# takes a constant of this name for true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence
    from typing import Any, NoReturn

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
LEVELS = ("error", "warning", "info")


def _parser(**kwargs: Any) -> argparse.ArgumentParser:
    """An argparse parser that reports usage errors as one line and exit 2 (argparse is imported on first use)."""
    import argparse

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:  # type: ignore[override]
            raise _UsageExit(message, self.prog)

    # No abbreviations (`--fail` for `--fail-on`): a later flag could make a script's abbreviation ambiguous.
    kwargs.setdefault("allow_abbrev", False)
    return _Parser(**kwargs)


class _UsageExit(Exception):
    """A usage error of the command `prog` (`tflint`, `tflint compat`, ...), whose help it points to."""

    def __init__(self, message: str, prog: str = "tflint") -> None:
        super().__init__(message)
        self.prog = prog


def _build_parser() -> argparse.ArgumentParser:
    import argparse

    from tflint.report import CHOICES  # cheap: the format modules load only when used

    parser = _parser(
        prog="tflint",
        description="Lint TensorFlow graphs (GraphDef, MetaGraphDef, SavedModel; text or binary) without TensorFlow.",
        epilog="Other commands: 'tflint compat OLD NEW' reports what a new version of a model breaks, "
        "'tflint show PATH' renders a model for review (and git), 'tflint diff OLD NEW' says what changed, "
        "'tflint stats PATH' what it costs, 'tflint git-setup' makes git diff show graphs; "
        "'tflint rules' lists the rules, 'tflint explain RULE' documents one.",
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="graph files, SavedModel directories, directories to search, or - for stdin",
    )
    output = parser.add_argument_group("output")
    output.add_argument(
        "--format",
        choices=CHOICES,
        default="text",
        help="output format (default: text; auto: github under GitHub Actions, else text)",
    )
    output.add_argument(
        "-o", "--output", metavar="FILE", help="write the report to FILE (atomically) instead of stdout"
    )
    output.add_argument("--statistics", action="store_true", help="show how many findings each rule produced")
    output.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour text output (default: auto: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it)",
    )
    policy = parser.add_argument_group("failing policy")
    policy.add_argument(
        "--fail-on",
        choices=LEVELS,
        help="lowest level that makes the run fail (default: error, or the config's fail-on)",
    )
    policy.add_argument(
        "--max-warnings", type=_count, metavar="N", help="also fail when there are more than N warnings"
    )
    policy.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when findings fail the run (2 still means tflint could not run)",
    )
    baseline = parser.add_argument_group("baseline")
    which = baseline.add_mutually_exclusive_group()
    which.add_argument(
        "--baseline",
        metavar="FILE",
        help="hide the findings recorded in FILE; report new ones and stale entries (default: the config's baseline)",
    )
    which.add_argument(
        "--write-baseline",
        metavar="FILE",
        help="record every current finding in FILE, then report as if it were the baseline",
    )
    which.add_argument(
        "--no-baseline",
        dest="baseline",
        action="store_const",
        const=False,
        help="hide nothing: ignore the config's baseline",
    )
    baseline.add_argument(
        "--prune-baseline",
        action="store_true",
        help="remove the stale entries of the baseline in force (never adds new findings to it)",
    )
    selection = parser.add_argument_group("rule selection")
    selection.add_argument(
        "--select",
        action="append",
        type=_rule_names,
        metavar="RULES",
        help="run only these rules (comma-separated rule ids; repeatable); invalid-graph always runs",
    )
    selection.add_argument(
        "--extend-select", action="append", type=_rule_names, metavar="RULES", help="also run these rules"
    )
    selection.add_argument(
        "--ignore", action="append", type=_rule_names, metavar="RULES", help="do not run these rules"
    )
    selection.add_argument(
        "--verify-checksums",
        action="store_true",
        help="check every checkpoint entry's CRC-32C (reads every byte of variables/: the checkpoint-checksum rule)",
    )
    selection.add_argument(
        "--preset", metavar="NAME", help="apply a shipped preset under the config (e.g. serving), as `extends:` does"
    )
    files = parser.add_argument_group("file selection")
    files.add_argument(
        "--exclude",
        action="append",
        type=_names,
        metavar="GLOBS",
        help="globs (gitignore syntax, comma-separated) to skip, replacing the config's exclude and the defaults",
    )
    files.add_argument(
        "--extend-exclude", action="append", type=_names, metavar="GLOBS", help="globs to skip besides the excludes"
    )
    files.add_argument(
        "--force-exclude",
        action="store_true",
        help="apply the excludes to paths named on the command line too (what the pre-commit hook does)",
    )
    files.add_argument(
        "--no-respect-gitignore",
        dest="respect_gitignore",
        action="store_false",
        help="also search what .gitignore, .ignore and .git/info/exclude hide",
    )
    files.add_argument(
        "--show-files", action="store_true", help="list the files that would be linted (and those skipped), then exit"
    )
    files.add_argument(
        "--show-settings",
        metavar="FILE",
        help="print the settings that apply to FILE (config, excludes, interface, rule levels), then exit",
    )
    parser.add_argument("--config", metavar="FILE", help="use this config file instead of discovering .tflint.yaml")
    parser.add_argument(
        "--op-defs",
        action="append",
        default=[],
        metavar="FILE",
        help="extra OpDefs (an OpList, text or binary) for custom ops; repeatable",
    )
    parser.add_argument(
        "--target-tf",
        metavar="VERSIONS",
        help="also judge graphs against these TensorFlow releases, e.g. 2.4 or 1.15,2.11 (default: config target-tf)",
    )
    parser.add_argument(
        "--devices",
        metavar="TYPES",
        help="the server's device types for missing-kernel, e.g. CPU or CPU,GPU (default: CPU, or the config's)",
    )
    parser.add_argument(
        "--soft-placement",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="whether the server places softly (missing-kernel; default: on, off in the serving preset)",
    )
    fixing = parser.add_mutually_exclusive_group()
    fixing.add_argument(
        "--fix",
        action="store_true",
        help="remove attrs whose value is their default on every bundled TensorFlow (text edited in place), then lint",
    )
    fixing.add_argument(
        "--diff", action="store_true", help="show what --fix would change (a diff, or a summary for binary files)"
    )
    parser.add_argument(
        "--min-tf",
        action="store_true",
        help="instead of linting, print the oldest bundled TensorFlow that imports each graph, and why",
    )
    parser.add_argument(
        "--input-type",
        metavar="TYPE",
        help="force the input type: graphdef, metagraphdef, savedmodel, text, binary, or e.g. graphdef-text",
    )
    parser.add_argument(
        "--stdin-filename",
        metavar="NAME",
        default="<stdin>",
        help="the path input read from - stands for: its name in reports, its config, excludes and per-file-ignores",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=_count,
        metavar="N",
        help=(
            "lint files (and the rules of a graph of 20k+ nodes, the text of an 8 MB+ GraphDef) in N processes "
            "(default: one per core; 0 too); small runs stay in one"
        ),
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of internal errors")
    parser.add_argument(
        "--version", action="store_true", help="print tflint's version and its op registry's TensorFlow version"
    )
    return parser


# What _build_parser() gives every option not on the command line (tests/test_cli.py holds the
# two equal), and the flags _parse_args reads itself: they only set a value.
_DEFAULTS: dict[str, Any] = {
    "paths": [],
    "format": "text",
    "output": None,
    "statistics": False,
    "color": "auto",
    "fail_on": None,
    "max_warnings": None,
    "exit_zero": False,
    "baseline": None,
    "write_baseline": None,
    "prune_baseline": False,
    "select": None,
    "extend_select": None,
    "verify_checksums": False,
    "ignore": None,
    "preset": None,
    "exclude": None,
    "extend_exclude": None,
    "force_exclude": False,
    "respect_gitignore": True,
    "show_files": False,
    "show_settings": None,
    "config": None,
    "op_defs": [],
    "target_tf": None,
    "devices": None,
    "soft_placement": None,
    "fix": False,
    "diff": False,
    "min_tf": False,
    "input_type": None,
    "stdin_filename": "<stdin>",
    "jobs": None,
    "debug": False,
    "version": False,
}
_PLAIN_FLAGS = {
    "--force-exclude": ("force_exclude", True),
    "--statistics": ("statistics", True),
    "--exit-zero": ("exit_zero", True),
    "--no-respect-gitignore": ("respect_gitignore", False),
    "--debug": ("debug", True),
}


def _parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line as _build_parser() parses it.

    `tflint PATH...`, bare or with the flags in _PLAIN_FLAGS (the pre-commit hook's
    --force-exclude), is read here: importing argparse and building its parser is
    about a tenth of a run on a small graph. Anything else goes to argparse.
    """
    values = dict(_DEFAULTS, paths=[], op_defs=[])
    paths_ended = False
    for arg in argv:
        if not arg.startswith("-") and not paths_ended:
            values["paths"].append(arg)
        elif arg in _PLAIN_FLAGS:
            dest, value = _PLAIN_FLAGS[arg]
            values[dest] = value
            paths_ended = bool(values["paths"])
        else:
            # An option with a value, `-`, `--`, a typo, or paths on both sides of a flag
            # (argparse reads one run of them): argparse's own rules and messages.
            return _build_parser().parse_args(argv)
    from types import SimpleNamespace

    return SimpleNamespace(**values)  # type: ignore[return-value]  # read by attribute, as a Namespace


def _names(text: str) -> list[str]:
    """A comma-separated option value as a list (empty items dropped)."""
    return [item.strip() for item in text.split(",") if item.strip()]


def _rule_names(text: str) -> list[str]:
    """A RULES value: at least one rule id or category (`--select ""` would silently run nothing)."""
    names = _names(text)
    if not names:
        import argparse

        raise argparse.ArgumentTypeError(f"expected comma-separated rule ids or categories, got {text!r}")
    return names


def _flat(values: list[list[str]] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(item for value in values for item in value)


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()):
        import argparse

        raise argparse.ArgumentTypeError(f"expected a count (0 or more), got {text!r}")
    return int(text)


def run() -> NoReturn:
    """The `tflint` command: main(), then exit at once, without freeing what it built.

    An interpreter's normal exit frees every object, one by one; after a big
    graph that is 0.1-0.2 s the user waits for and gains nothing from. Output
    is flushed first; files written were closed by main().
    """
    global _exits_without_cleanup
    _exits_without_cleanup = True
    from tflint.runtime import interrupts

    if not interrupts.installed():  # tflint/__init__.py installs it when it is imported by the command itself
        interrupts.install()
    process.exit_now(main())


# Set by run(): the process ends right after main(), so a graph need not be freed.
_exits_without_cleanup = False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    _tolerant_output()
    try:
        return _main(args_list)
    except _UsageExit as error:
        return _fail(f"{error} (see '{error.prog} --help')", prefix="usage error")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except Exception as error:
        from tflint.errors import ConfigError, UsageError

        if isinstance(error, (ConfigError, UsageError)):
            return _fail(str(error))
        if debug:
            import traceback

            traceback.print_exc()
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        return _fail(f"internal error: {message} (run with --debug for the traceback)")


def _tolerant_output() -> None:
    """A character the output's encoding lacks (PYTHONIOENCODING=ascii, a cp1252 pipe on Windows) is written
    as an escape (`\\u2603`), never an internal error, whichever command prints it."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream already written in a way that cannot change: left as it is
                pass


def _fail(message: str, prefix: str = "error") -> int:
    from tflint.escape import escape  # a message may quote a path, a config value or a node name

    print(f"tflint: {prefix}: {escape(message)}", file=sys.stderr)
    return EXIT_USAGE


COMMANDS = ("rules", "explain", "compat", "show", "diff", "stats", "git-setup")


def _main(argv: list[str]) -> int:
    if argv == ["--version"]:  # answered before argparse is even imported: a third of this command's time
        print(version_text())
        return EXIT_OK
    if argv and argv[0] == "compat":
        return _compat(argv[1:])
    if argv and argv[0] in _REVIEW_COMMANDS:
        from tflint.engine.review import UnreadableGraph

        try:
            return _REVIEW_COMMANDS[argv[0]](argv[1:])
        except UnreadableGraph as error:  # as linting it would: an invalid-graph finding, exit 1
            from tflint.escape import escape

            print(f"tflint: {escape(str(error))}", file=sys.stderr)
            return EXIT_FINDINGS
    if argv and argv[0] == "rules":
        return _list_rules(argv[1:])
    if argv and argv[0] == "explain":
        return _explain(argv[1:])
    if argv and not argv[0].startswith("-") and not os.path.exists(argv[0]):
        import difflib

        close = difflib.get_close_matches(argv[0], COMMANDS, n=1, cutoff=0.7)
        if close:  # `tflint rule unknown-op`: a misspelt command, not a missing graph
            from tflint.errors import UsageError

            raise UsageError(f"{argv[0]}: no such file or directory (did you mean 'tflint {close[0]}'?)")
    args = _parse_args(argv)
    if args.version:
        print(version_text())
        return EXIT_OK
    _check_modes(args)
    if args.show_settings:
        return _show_settings(args)
    if not args.paths:
        if args.target_tf:  # `tflint --target-tf x`: the known releases, as with a path
            from tflint.tf.releases import resolve

            for spec in args.target_tf.split(","):
                resolve(spec)
        raise _UsageExit("no paths given")
    if args.show_files:
        return _show_files(args)
    if args.min_tf:
        return _min_tf(args)
    if args.fix or args.diff:
        changed, failed = _fix(args)
        if failed:
            return EXIT_USAGE
        if args.diff:
            return EXIT_FINDINGS if changed and not args.exit_zero else EXIT_OK
    return _lint(args)


# Each mode replaces the lint run, so a flag of the lint run (or another mode) next to it would be
# silently ignored: a usage error instead. `--fix` alone still lints afterwards, so it keeps the lint flags.
_MODE_FLAGS = ("show_settings", "show_files", "min_tf", "diff", "fix")
_REPORT_FLAGS = ("output", "statistics", "baseline", "write_baseline", "prune_baseline", "fail_on", "max_warnings")
_IGNORED_BY_MODE: dict[str, tuple[str, ...]] = {
    "show_settings": ("show_files", "min_tf", "diff", "fix", *_REPORT_FLAGS),
    "show_files": ("min_tf", "diff", "fix", *_REPORT_FLAGS),
    "min_tf": ("diff", "fix", *_REPORT_FLAGS),
    "diff": _REPORT_FLAGS,  # --exit-zero keeps its meaning: show the diff, do not fail
}
# A diff is a patch, not a report: no machine format has a place for it. `auto` is the default in CI.
_MODE_FORMATS = {"min_tf": ("text", "json", "auto"), "diff": ("text", "auto")}


def _flag(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _check_modes(args: argparse.Namespace) -> None:
    """Refuse a mode next to a flag it would ignore (`--diff --min-tf`, `--diff --format sarif`)."""
    for mode in _MODE_FLAGS:
        if getattr(args, mode) == _DEFAULTS[mode]:
            continue
        for other in _IGNORED_BY_MODE.get(mode, ()):
            if getattr(args, other) not in (_DEFAULTS[other], False):  # False: --no-baseline, which asks nothing
                raise _UsageExit(f"argument {_flag(mode)}: not allowed with argument {_flag(other)}")
        formats = _MODE_FORMATS.get(mode)
        if formats is not None and args.format not in formats:
            allowed = ", ".join(formats)
            raise _UsageExit(f"argument {_flag(mode)}: not allowed with --format {args.format} (only {allowed})")


def _fix(args: argparse.Namespace) -> tuple[bool, bool]:
    """Apply (--fix) or show (--diff) the safe autofix: (whether anything changes, whether a file failed)."""
    from tflint.api import fix_paths
    from tflint.escape import escape, escape_lines

    _check_config_option(args)
    options = _walk_options(args)
    del options["stdin_name"]
    results = fix_paths(args.paths, write=args.fix, input_type=args.input_type, config=args.config, **options)
    for result in results:
        if result.removed and args.diff:
            sys.stdout.write(escape_lines(result.diff))
        elif result.removed:
            count = len(result.removed)
            print(
                f"tflint: fixed {escape(result.path)}: removed {count} default-valued attr{'s' * (count != 1)}",
                file=sys.stderr,
            )
        if result.problem is not None:
            print(f"tflint: {escape(result.path)}: not fixed: {escape(result.problem)}", file=sys.stderr)
        if result.unread and args.diff:  # --fix lints next and reports it; --diff alone would pass it silently
            where = escape(result.path)
            print(
                f"tflint: {where}: not diffed: it does not parse as a graph ('tflint {where}' says why)",
                file=sys.stderr,
            )
    sys.stdout.flush()
    # A file --diff could not read counts as a change to make: the run must not pass what it could not judge.
    changed = any(result.removed or (result.unread and args.diff) for result in results)
    return changed, any(result.error for result in results)


def _min_tf(args: argparse.Namespace) -> int:
    """`tflint --min-tf PATH...`: one line (or JSON object) per graph; exit 1 when some graph no release imports."""
    import json

    from tflint.api import min_tf
    from tflint.read.walk import iter_graph_files

    if args.target_tf:
        raise _UsageExit("argument --min-tf: not allowed with argument --target-tf")
    results = [
        min_tf(path, args.config, op_defs=args.op_defs, input_type=args.input_type)
        for path in iter_graph_files(args.paths)
    ]
    if args.format == "json":
        print(json.dumps([result.as_dict() for result in results], indent=2))
    else:
        for result in results:
            print(result.text())
    return EXIT_FINDINGS if any(result.release is None for result in results) else EXIT_OK


def _overrides(args: argparse.Namespace) -> Any:
    from tflint.config.settings import Overrides

    return Overrides(
        preset=args.preset,
        select=_flat(args.select),
        extend_select=(
            *(_flat(args.extend_select) or ()),
            *(("checkpoint-checksum",) if args.verify_checksums else ()),
        ),
        ignore=_flat(args.ignore) or (),
        exclude=_flat(args.exclude),
        extend_exclude=_flat(args.extend_exclude) or (),
        rule_options=_placement_options(args),
    )


def _placement_options(args: argparse.Namespace) -> tuple[tuple[str, str, Any], ...]:
    """`--devices` and `--soft-placement`: options of missing-kernel, laid over every config."""
    options: list[tuple[str, str, Any]] = []
    if args.devices is not None:
        options.append(("missing-kernel", "devices", tuple(item.strip() for item in args.devices.split(","))))
    if args.soft_placement is not None:
        options.append(("missing-kernel", "soft-placement", args.soft_placement))
    return tuple(options)


def _walk_options(args: argparse.Namespace) -> dict[str, Any]:
    """What lint_paths and discover share: how paths are expanded, and the settings laid over configs."""
    return {
        "overrides": _overrides(args),
        "stdin_name": args.stdin_filename,
        "force_exclude": args.force_exclude,
        "respect_gitignore": args.respect_gitignore,
    }


def _check_config_option(args: argparse.Namespace) -> None:
    if args.config and not os.path.lexists(args.config):
        from tflint.errors import UsageError

        raise UsageError(f"{args.config}: config file not found")


def _show_files(args: argparse.Namespace) -> int:
    """`--show-files`: each file a run would read, and what is skipped (not a TensorFlow graph) with why."""
    from tflint.api import survey

    _check_config_option(args)
    entries = survey(args.paths, args.config, **_walk_options(args))
    for path, skipped in entries:
        shown = args.stdin_filename if path == "-" else path
        print(shown if skipped is None else f"{shown}  (skipped, not a TensorFlow graph: {skipped})")
    if not any(skipped is None for _, skipped in entries):
        _warn_nothing_found(args)
    return EXIT_OK


def _show_settings(args: argparse.Namespace) -> int:
    """`--show-settings FILE`: the configuration in force for FILE, overrides and per-file ignores applied."""
    from tflint.api import settings_for
    from tflint.report.settings import settings_text

    _check_config_option(args)
    config, source = settings_for(args.show_settings, args.config, _overrides(args))
    sys.stdout.write(settings_text(args.show_settings, config, source))
    return EXIT_OK


def _warn_nothing_found(args: argparse.Namespace) -> None:
    """Why a run read no graph: the paths named hold none, or --force-exclude dropped them."""
    from tflint.escape import escape

    excluded = _force_excluded(args) if args.force_exclude else []
    searched = [path for path in args.paths if path not in excluded]
    if excluded:
        where = ", ".join(escape(path) for path in excluded)
        print(f"tflint: warning: excluded by the configuration (--force-exclude): {where}", file=sys.stderr)
    if searched:
        where = ", ".join(escape(path) for path in searched)
        print(f"tflint: warning: No TensorFlow graphs found under {where}", file=sys.stderr)


def _force_excluded(args: argparse.Namespace) -> list[str]:
    """The paths named that hold graphs only the configured excludes hide (asked only when nothing was read)."""
    from tflint.api import discover

    options = _walk_options(args)
    excluded = []
    for path in args.paths:
        if path == "-" or discover([path], args.config, **options):
            continue
        if discover([path], args.config, **{**options, "force_exclude": False}):
            excluded.append(path)
    return excluded


def version_text() -> str:
    """`tflint X (op registry: TensorFlow Y, GraphDef version Z)` without importing protobuf."""
    import json

    from tflint import PACKAGE_DIR, __version__

    # The file tflint.tf.registry.snapshot_info reads; importing that module would cost --version 5 ms.
    with open(os.path.join(PACKAGE_DIR, "tf", "data", "registry.json"), encoding="utf-8") as file:
        raw = json.load(file)
    return (
        f"tflint {__version__} (op registry: TensorFlow {raw['tensorflow_version']}, GraphDef version "
        f"{raw['graph_def_version']}, {raw['op_count']} ops)"
    )


def _lint(args: argparse.Namespace) -> int:
    from tflint.api import lint_paths
    from tflint.report.progress import Progress

    if args.prune_baseline and args.write_baseline:
        raise _UsageExit("argument --prune-baseline: not allowed with argument --write-baseline")
    _check_config_option(args)
    _refuse_overwriting_inputs(args)
    if _exits_without_cleanup:
        process.retain_last_graph()
    progress = Progress.for_terminal(sys.stderr)
    try:
        report = lint_paths(
            args.paths,
            args.config,
            op_defs=args.op_defs,
            input_type=args.input_type,
            jobs=args.jobs,
            fail_on=args.fail_on,
            baseline=args.baseline,
            write_baseline=args.write_baseline,
            prune_baseline=args.prune_baseline,
            target_tf=args.target_tf,
            progress=progress,
            **_walk_options(args),
        )
    finally:
        if progress is not None:
            progress.close()
    if not report.files:
        _warn_nothing_found(args)
    if args.write_baseline:
        from tflint.escape import escape

        print(
            f"tflint: wrote {escape(args.write_baseline)}: {report.baselined} "
            f"{'finding' if report.baselined == 1 else 'findings'} recorded",
            file=sys.stderr,
        )
    if args.prune_baseline:
        print(
            f"tflint: pruned {report.pruned} stale baseline {'entry' if report.pruned == 1 else 'entries'}",
            file=sys.stderr,
        )

    return _emit(report, args)


def _emit(report: Any, args: argparse.Namespace) -> int:
    """Render the report as the options say, write it, and return the exit code."""
    from tflint.finding import Severity
    from tflint.report import resolve_format
    from tflint.report.output import write_atomically
    from tflint.report.summary import statistics

    fmt = resolve_format(args.format)
    color = fmt == "text" and _use_color(args.color, None if args.output else sys.stdout)
    output = report.render(fmt, color=color, statistics=args.statistics)
    if args.output:
        try:
            write_atomically(args.output, output)
        except OSError as error:
            from tflint.errors import UsageError

            raise UsageError(f"{args.output}: cannot write report: {error.strerror or error}") from None
    else:
        sys.stdout.write(output)
        sys.stdout.flush()
    if args.statistics and fmt != "text":
        sys.stderr.write(statistics(report.findings))  # never mixed into a machine-readable document

    failing = bool(report.failing())
    warnings = sum(1 for finding in report.findings if finding.severity == Severity.WARNING)
    if args.max_warnings is not None and warnings > args.max_warnings:
        counted = f"{warnings} warning" if warnings == 1 else f"{warnings} warnings"
        print(f"tflint: {counted}, more than --max-warnings {args.max_warnings}", file=sys.stderr)
        failing = True
    if args.exit_zero:
        return EXIT_OK
    return EXIT_FINDINGS if failing else EXIT_OK


def _compat_parser() -> argparse.ArgumentParser:
    from tflint.report import CHOICES

    parser = _parser(
        prog="tflint compat",
        description="Report what a new version of a model breaks for clients of the old one "
        "(signatures, inputs, outputs, dtypes, shapes, tag sets, assets, TensorFlow needed).",
        epilog="'tflint rules' lists the compat rules (category compat); findings land in NEW's file.",
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="OLD NEW (SavedModel directories, saved_model.pb(txt) or MetaGraphDef files), or a model base "
        "directory whose two highest numeric versions are compared",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="the paths are changed files (pre-commit): compare each version directory holding one with the "
        "version before it",
    )
    parser.add_argument("--format", choices=CHOICES, default="text", help="output format (default: text)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE instead of stdout")
    parser.add_argument("--statistics", action="store_true", help="show how many findings each rule produced")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour text output")
    parser.add_argument("--fail-on", choices=LEVELS, help="lowest level that makes the run fail (default: error)")
    parser.add_argument("--max-warnings", type=_count, metavar="N", help="also fail on more than N warnings")
    parser.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings fail the run")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="FILE", help="hide the findings recorded in FILE")
    which.add_argument("--write-baseline", metavar="FILE", help="record every current finding in FILE")
    which.add_argument(
        "--no-baseline", dest="baseline", action="store_const", const=False, help="ignore the config's baseline"
    )
    parser.add_argument("--config", metavar="FILE", help="use this config file instead of discovering .tflint.yaml")
    parser.add_argument("--op-defs", action="append", default=[], metavar="FILE", help="extra OpDefs (custom ops)")
    parser.add_argument("--input-type", metavar="TYPE", help="force the input type (see 'tflint --help')")
    parser.add_argument("--debug", action="store_true", help="show the traceback of internal errors")
    return parser


def _compat(argv: list[str]) -> int:
    """`tflint compat OLD NEW`, `tflint compat MODEL_BASE_DIR`, `tflint compat --changed FILE...`."""
    from tflint.api import compat_pairs
    from tflint.read.interface import changed_pairs, latest_versions

    args = _compat_parser().parse_args(argv)
    if args.config and not os.path.lexists(args.config):
        from tflint.errors import UsageError

        raise UsageError(f"{args.config}: config file not found")
    if args.changed:
        pairs = changed_pairs(args.paths)
    elif len(args.paths) == 1:
        pairs = [latest_versions(args.paths[0])]
    elif len(args.paths) == 2:
        pairs = [(args.paths[0], args.paths[1])]
    else:
        raise _UsageExit(f"expected OLD NEW or one model base directory, got {len(args.paths)} paths", "tflint compat")
    _refuse_overwriting_versions(args, pairs)
    report = compat_pairs(
        pairs,
        args.config,
        op_defs=args.op_defs,
        input_type=args.input_type,
        fail_on=args.fail_on,
        baseline=args.baseline,
        write_baseline=args.write_baseline,
    )
    if args.write_baseline:
        from tflint.escape import escape

        recorded = "finding" if report.baselined == 1 else "findings"
        print(f"tflint: wrote {escape(args.write_baseline)}: {report.baselined} {recorded} recorded", file=sys.stderr)
    return _emit(report, args)


def _refuse_overwriting_versions(args: argparse.Namespace, pairs: list[tuple[str, str]]) -> None:
    """`tflint compat -o` never writes over a version it compares (as linting never overwrites its input)."""
    from tflint.errors import UsageError
    from tflint.read.interface import saved_model_file

    for flag, path in (("--output", args.output), ("--write-baseline", args.write_baseline)):
        if not path or not os.path.isfile(path):
            continue
        for version in (version for pair in pairs for version in pair):
            target = saved_model_file(version) if os.path.isdir(version) else version
            if target and os.path.exists(target) and os.path.samefile(path, target):
                raise UsageError(f"{flag} {path}: that is a file being compared; tflint never overwrites its input")


def _refuse_overwriting_inputs(args: argparse.Namespace) -> None:
    """tflint never writes to a file it lints: `-o g.pbtxt g.pbtxt` is a usage error, not a lost graph."""
    from tflint.api import discover
    from tflint.errors import UsageError
    from tflint.read.walk import SAVED_MODEL_FILES

    targets = [
        (flag, path)
        for flag, path in (("--output", args.output), ("--write-baseline", args.write_baseline))
        if path and os.path.isfile(path)
    ]
    if not targets:
        return
    for linted in discover(args.paths, args.config, **_walk_options(args)):
        if linted == "-":
            continue
        for flag, path in targets:
            if os.path.isdir(linted):  # a SavedModel directory: its saved_model.pb(txt) is linted
                same = os.path.basename(path) in SAVED_MODEL_FILES and os.path.samefile(
                    os.path.dirname(os.path.abspath(path)), linted
                )
            else:
                same = os.path.samefile(path, linted)
            if same:
                raise UsageError(f"{flag} {path}: that is a file being linted; tflint never overwrites its input")


def _use_color(choice: str, stream: object | None) -> bool:
    """Colour for `--color`: auto means on a terminal, unless NO_COLOR (or FORCE_COLOR) says otherwise."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return stream is not None and stream.isatty()  # type: ignore[attr-defined]


def _rules_parser(command: str) -> argparse.ArgumentParser:
    parser = _parser(prog=f"tflint {command}")
    parser.add_argument(
        "--config", metavar="FILE", help="the config whose plugins to include (default: the nearest .tflint.yaml)"
    )
    if command == "rules":
        parser.add_argument(
            "--format",
            choices=("text", "json", "markdown"),
            default="text",
            help="text (default), json, or markdown (docs/rules.md)",
        )
    else:
        parser.add_argument("rule", metavar="RULE", help="a rule id ('tflint rules' lists them)")
    return parser


def _registry(config_path: str | None) -> Mapping[str, Any]:
    """The rules of the config in force here: built-in ones plus those of its enabled plugins."""
    from tflint.api import resolve_config
    from tflint.config.settings import find_config

    if config_path is not None and not os.path.isfile(config_path):
        from tflint.errors import UsageError

        raise UsageError(f"{config_path}: config file not found")
    return resolve_config(config_path or find_config(os.getcwd())).modules


def _list_rules(argv: list[str]) -> int:
    from tflint.report.rulesdoc import help_uri, markdown, summary_of

    args = _rules_parser("rules").parse_args(argv)
    rules = _registry(args.config)
    if args.format == "markdown":
        sys.stdout.write(markdown(rules))
        return EXIT_OK
    rows = []
    for rule_id, module in sorted(rules.items()):
        rows.append(
            {
                "id": rule_id,
                "category": module.CATEGORY,
                "level": str(module.DEFAULT_SEVERITY),
                "summary": summary_of(module),
                "url": help_uri(rule_id, module),
            }
        )
    if args.format == "json":
        import json

        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max(len(row["id"]) for row in rows)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['category']:<10}  {row['level']:<7}  {row['summary']}")
    return EXIT_OK


def _explain(argv: list[str]) -> int:
    from tflint.report.rulesdoc import explain_text

    args = _rules_parser("explain").parse_args(argv)
    rules = _registry(args.config)
    if args.rule not in rules:
        from tflint.errors import LISTS_RULES, UsageError, did_you_mean

        hint = did_you_mean(args.rule, sorted(rules), more=LISTS_RULES)
        raise UsageError(f"no rule named '{args.rule}'{hint}")
    sys.stdout.write(explain_text(args.rule, rules[args.rule]))
    return EXIT_OK


# -- reviewing a model: show, diff, stats, git-setup ---------------------------------------------


_REVIEW_DESCRIPTIONS = {
    "show": "Render a model deterministically (signatures, nodes, non-default attrs, weights summarised), "
    "for review and as git's textconv.",
    "stats": "What a model costs: parameters and bytes by dtype, the op histogram, and per signature FLOPs and "
    "activation memory at --batch N.",
    "diff": "What changed between two versions of a model: nodes, functions, signatures, weights (by content), "
    "parameters, FLOPs, and the serving-contract changes 'tflint compat' finds.",
}


def _review_parser(command: str) -> argparse.ArgumentParser:
    parser = _parser(prog=f"tflint {command}", description=_REVIEW_DESCRIPTIONS[command])
    if command in ("show", "stats"):
        parser.add_argument("path", metavar="PATH", help="a graph file (text or binary) or a SavedModel directory")
    if command == "diff":
        parser.add_argument(
            "old", metavar="OLD", help="the old version: a graph file, a SavedModel directory, or REV:PATH (git)"
        )
        parser.add_argument(
            "new", metavar="NEW", help="the new version: a graph file, a SavedModel directory, or REV:PATH (git)"
        )
    if command in ("diff", "stats"):
        parser.add_argument(
            "--format", choices=("text", "markdown", "json"), default="text", help="output format (default: text)"
        )
        parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    if command == "show":
        parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
        parser.add_argument(
            "--textconv",
            action="store_true",
            help="as git's diff driver runs it: a file that is not a graph is printed as it is, never an error",
        )
    if command == "diff":
        parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour text output")
        parser.add_argument("--exit-code", action="store_true", help="exit 1 when the models differ (as git diff)")
    parser.add_argument(
        "--batch", type=_positive, default=1, metavar="N", help="batch size of the FLOPs and memory estimates"
    )
    parser.add_argument("--input-type", metavar="TYPE", help="force the input type (see 'tflint --help')")
    parser.add_argument("--op-defs", action="append", default=[], metavar="FILE", help="extra OpDefs (custom ops)")
    parser.add_argument("--debug", action="store_true", help="show the traceback of internal errors")
    return parser


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        import argparse

        raise argparse.ArgumentTypeError(f"expected a positive count, got {text!r}")
    return int(text)


def _write_output(text: str, output: str | None, inputs: Sequence[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from tflint.errors import UsageError
    from tflint.report.output import write_atomically

    for path in inputs:
        if os.path.isfile(output) and os.path.exists(path) and os.path.samefile(output, path):
            raise UsageError(f"--output {output}: that is a file being read; tflint never overwrites its input")
    try:
        write_atomically(output, text)
    except OSError as error:
        raise UsageError(f"{output}: cannot write: {error.strerror or error}") from None


def _show(argv: list[str]) -> int:
    """`tflint show PATH`: the line-oriented rendering of a model, for people and for `git diff`."""
    args = _review_parser("show").parse_args(argv)
    from tflint.api import show_model
    from tflint.errors import UsageError
    from tflint.report.review import json_text, show_dict, show_text

    try:
        view = show_model(args.path, op_defs=args.op_defs, input_type=args.input_type, batch=args.batch)
    except UsageError:
        if not args.textconv:
            raise
        return _textconv_fallback(args.path)
    if args.format == "json":
        sys.stdout.write(json_text(show_dict(view)))
    else:
        sys.stdout.write(show_text(view))
    sys.stdout.flush()
    return EXIT_OK


def _textconv_fallback(path: str) -> int:
    """What git shows for a file tflint cannot read as a graph: its text as it is, or one line for binary bytes."""
    from tflint.escape import escape
    from tflint.read.guarded import read_bytes
    from tflint.read.sniff import looks_like_text

    data = read_bytes(path, limit=64 << 20) if os.path.isfile(path) else b""
    if not data:
        return EXIT_OK
    if looks_like_text(data[: 1 << 16]):
        # As git would show the text itself, but escaped like everything tflint prints from a file.
        sys.stdout.write("".join(escape(line) + "\n" for line in data.decode("utf-8", "replace").splitlines()))
    else:
        import hashlib

        digest = hashlib.blake2b(data, digest_size=8).hexdigest()
        sys.stdout.write(escape(f"(not a TensorFlow graph tflint reads: {len(data)} bytes, #{digest})") + "\n")
    sys.stdout.flush()
    return EXIT_OK


def _stats(argv: list[str]) -> int:
    """`tflint stats PATH`: parameters, op histogram, FLOPs and activation memory per signature."""
    args = _review_parser("stats").parse_args(argv)
    from tflint.api import show_model
    from tflint.report.review import json_text, stats_dict, stats_text

    view = show_model(args.path, op_defs=args.op_defs, input_type=args.input_type, batch=args.batch)
    if args.format == "json":
        text = json_text(stats_dict(view))
    else:
        text = stats_text(view, markdown=args.format == "markdown")
    _write_output(text, args.output, [args.path])
    return EXIT_OK


def _diff(argv: list[str]) -> int:
    """`tflint diff OLD NEW`: what changed between two versions of a model, semantically."""
    args = _review_parser("diff").parse_args(argv)
    import tempfile

    from tflint.api import diff_models
    from tflint.read.gitrev import checkout, is_revision
    from tflint.report.review import diff_dict, diff_markdown, diff_text, json_text

    with tempfile.TemporaryDirectory(prefix="tflint-diff-") as scratch:
        paths = []
        for position, argument in enumerate((args.old, args.new)):
            if is_revision(argument):
                into = os.path.join(scratch, str(position))
                os.makedirs(into)
                paths.append(checkout(argument, into))
            else:
                paths.append(argument)
        diff = diff_models(paths[0], paths[1], op_defs=args.op_defs, input_type=args.input_type, batch=args.batch)
        if args.format == "json":
            text = json_text(diff_dict(diff, args.old, args.new))
        elif args.format == "markdown":
            text = diff_markdown(diff, args.old, args.new)
        else:
            color = _use_color(args.color, None if args.output else sys.stdout)
            text = diff_text(diff, args.old, args.new, color=color)
    _write_output(text, args.output, [args.old, args.new])
    return EXIT_FINDINGS if args.exit_code and diff.changed else EXIT_OK


def _git_setup_parser() -> argparse.ArgumentParser:
    parser = _parser(
        prog="tflint git-setup",
        description="Make git diff and git log -p show graph files (*.pb, *.pbtxt, *.meta) through 'tflint show': "
        "adds the patterns to the repository's .gitattributes and sets diff.tflint.textconv in its git config.",
    )
    parser.add_argument(
        "--global",
        dest="global_config",
        action="store_true",
        help="set the driver in your global git config instead (each repository still needs the .gitattributes)",
    )
    parser.add_argument("--debug", action="store_true", help="show the traceback of internal errors")
    return parser


def _git_setup(argv: list[str]) -> int:
    """`tflint git-setup`: .gitattributes and git config so that `git diff` shows graphs through `tflint show`."""
    args = _git_setup_parser().parse_args(argv)
    from tflint.config.git_driver import setup
    from tflint.escape import escape

    for line in setup(os.getcwd(), global_config=args.global_config):
        print(f"tflint: {escape(line)}", file=sys.stderr)
    return EXIT_OK


_REVIEW_COMMANDS = {"show": _show, "diff": _diff, "stats": _stats, "git-setup": _git_setup}
