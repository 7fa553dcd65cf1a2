"""`python -m tflint`: the same as the `tflint` command."""

from tflint.cli import run

run()
