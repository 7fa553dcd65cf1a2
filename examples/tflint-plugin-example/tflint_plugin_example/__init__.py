"""An example tflint plugin: the rule `example/no-print` and the OpDefs of a custom-op library."""

from __future__ import annotations

from importlib import resources

from tflint_plugin_example import no_print

# What the `tflint.rules` entry point offers: every rule module of the plugin.
RULES = [no_print]


def op_defs() -> bytes:
    """The `tflint.op_defs` entry point: an OpList (here its text, shipped as package data)."""
    return resources.files(__package__).joinpath("ops.pbtxt").read_bytes()
