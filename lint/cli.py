"""The `tflint` command: parse arguments, load, lint, report, exit 0/1/2.

Exit codes: 0 nothing at or above the failing level; 1 findings at or above
it (a file that does not parse included); 2 usage, configuration or
unreadable-path errors, printed as one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
LEVELS = ("error", "warning", "info")


class _Parser(argparse.ArgumentParser):
    """argparse that reports usage errors as one line and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageExit(message)


class _UsageExit(Exception):
    pass


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tflint",
        description="Lint TensorFlow graphs (GraphDef, MetaGraphDef, SavedModel; text or binary) without TensorFlow.",
        epilog="Other commands: 'tflint rules' lists the rules, 'tflint explain RULE' documents one.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="graph files, SavedModel directories, directories to search, or - for stdin")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    parser.add_argument("--config", metavar="FILE", help="use this config file instead of discovering .tflint.yaml")
    parser.add_argument("--fail-on", choices=LEVELS, help="lowest level that makes the run fail (default: error, or the config's fail-on)")
    parser.add_argument("--op-defs", action="append", default=[], metavar="FILE", help="extra OpDefs (an OpList, text or binary) for custom ops; repeatable")
    parser.add_argument("--input-type", metavar="TYPE", help="force the input type: graphdef, metagraphdef, savedmodel, text, binary, or e.g. graphdef-text")
    parser.add_argument("--stdin-filename", metavar="NAME", default="<stdin>", help="the name to report for input read from -")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto", help="colour text output (default: auto: on a terminal, unless NO_COLOR is set)")
    parser.add_argument("--debug", action="store_true", help="show the traceback of internal errors")
    parser.add_argument("--version", action="store_true", help="print tflint's version and its op registry's TensorFlow version")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args_list
    try:
        return _main(args_list)
    except _UsageExit as error:
        return _fail(f"{error}\nusage: tflint [options] PATH... | tflint rules | tflint explain RULE", prefix="usage error")
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        sys.stderr.close()
        return EXIT_OK
    except Exception as error:
        from tflint.config import ConfigError
        from tflint.load import UsageError

        if isinstance(error, (ConfigError, UsageError)):
            return _fail(str(error))
        if debug:
            import traceback

            traceback.print_exc()
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        return _fail(f"internal error: {message} (run with --debug for the traceback)")


def _fail(message: str, prefix: str = "error") -> int:
    print(f"tflint: {prefix}: {message}", file=sys.stderr)
    return EXIT_USAGE


def _main(argv: list[str]) -> int:
    if argv and argv[0] == "rules":
        return _list_rules(argv[1:])
    if argv and argv[0] == "explain":
        return _explain(argv[1:])
    args = _build_parser().parse_args(argv)
    if args.version:
        print(version_text())
        return EXIT_OK
    if not args.paths:
        raise _UsageExit("no paths given")
    return _lint(args)


def version_text() -> str:
    """`tflint X (op registry: TensorFlow Y, GraphDef version Z)` without importing protobuf."""
    import json
    from importlib import resources

    from tflint import __version__

    raw = json.loads(resources.files("tflint").joinpath("data/registry.json").read_text("utf-8"))
    return f"tflint {__version__} (op registry: TensorFlow {raw['tensorflow_version']}, GraphDef version {raw['graph_def_version']}, {raw['op_count']} ops)"


def _lint(args: argparse.Namespace) -> int:
    from tflint.api import registry_for, resolve_config
    from tflint.engine import lint_artifact
    from tflint.finding import Severity
    from tflint.load import iter_graph_files, load_path
    from tflint.report import renderer
    from tflint.report.summary import Summary

    files = list(iter_graph_files(args.paths))
    if args.paths.count("-") > 1:
        raise _UsageExit("stdin (-) can be read only once")

    configs: dict[str | None, object] = {}
    registries: dict[int, object] = {}
    findings = []
    failing = False
    cli_fail_on = Severity.parse(args.fail_on) if args.fail_on else None
    for path in files:
        config = _config_for(path, args.config, configs, resolve_config)
        registry = registries.get(id(config))
        if registry is None:
            registry = registries[id(config)] = registry_for(config, args.op_defs)
        artifact = load_path(path, args.input_type, stdin_name=args.stdin_filename)
        file_findings = lint_artifact(artifact, config, registry)
        fail_on = cli_fail_on or config.fail_on  # each file fails by its own config's level
        failing = failing or any(finding.severity >= fail_on for finding in file_findings)
        findings.extend(file_findings)

    color = _use_color(args.color)
    output = renderer(args.format)(findings, Summary(files=len(files), color=color))
    sys.stdout.write(output)
    sys.stdout.flush()
    return EXIT_FINDINGS if failing else EXIT_OK


def _config_for(path: str, explicit: str | None, cache: dict, resolve_config) -> object:
    """The config for one file: --config, or the nearest .tflint.yaml (cached per file found)."""
    if explicit:
        if None not in cache:
            if not os.path.isfile(explicit):
                from tflint.load import UsageError

                raise UsageError(f"{explicit}: config file not found")
            cache[None] = resolve_config(explicit)
        return cache[None]
    from tflint.config import find_config

    found = find_config(path if path != "-" else os.getcwd())
    key = str(found) if found else ""
    if key not in cache:
        cache[key] = resolve_config(found) if found else resolve_config(None)
    return cache[key]


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def _list_rules(argv: list[str]) -> int:
    from tflint.rules import all_rules

    as_json = argv[:2] == ["--format", "json"] or "--format=json" in argv
    unknown = [arg for arg in argv if arg not in ("--format", "json", "text", "--format=json", "--format=text")]
    if unknown:
        raise _UsageExit(f"tflint rules: unexpected argument {unknown[0]!r}")
    rows = []
    for rule_id, module in sorted(all_rules().items()):
        rows.append({"id": rule_id, "category": module.CATEGORY, "level": str(module.DEFAULT_SEVERITY), "summary": summary_of(module)})
    if as_json:
        import json

        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max(len(row["id"]) for row in rows)
    for row in rows:
        print(f"{row['id']:<{width}}  {row['category']:<10}  {row['level']:<7}  {row['summary']}")
    return EXIT_OK


def summary_of(module: object) -> str:
    """The first line of a rule's docstring."""
    doc = (module.__doc__ or "").strip()
    return doc.splitlines()[0] if doc else ""


def _explain(argv: list[str]) -> int:
    from tflint.rules import all_rules

    if len(argv) != 1:
        raise _UsageExit("tflint explain takes one rule id")
    rules = all_rules()
    rule_id = argv[0]
    if rule_id not in rules:
        import difflib

        close = difflib.get_close_matches(rule_id, list(rules), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        from tflint.load import UsageError

        raise UsageError(f"no rule named '{rule_id}'{hint}; 'tflint rules' lists them")
    import inspect

    module = rules[rule_id]
    print(f"{rule_id} ({module.CATEGORY}, default level: {module.DEFAULT_SEVERITY})\n")
    print(inspect.getdoc(module))
    options = getattr(module, "OPTIONS", {})
    if options:
        print("\nOptions (defaults):")
        for key, value in options.items():
            print(f"  {key}: {value!r}")
    return EXIT_OK
