"""`python -m tflint`: the same as the `tflint` command.

`python -m` puts the current directory first on sys.path; run in a checkout of the
repository being linted, that would let a `yaml.py` (or `google/`) at its root be
imported in place of a dependency. It is dropped before anything else is imported.
"""

import os
import sys

if sys.path and sys.path[0] in ("", ".", os.getcwd()):
    del sys.path[0]

from tflint.cli import run  # noqa: E402 - after the path is made safe

run()
