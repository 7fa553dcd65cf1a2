"""One escaping function for every string that leaves tflint: report formats, error lines, progress.

Node names, file names and parser messages come from the input. Written raw, a
newline in one starts a new line (which GitHub Actions may run as a workflow
command: `::error ...`, `::add-mask::`, `::stop-commands::`), an ESC sequence
rewrites the terminal, a bidi override reorders what a reviewer reads, a NUL
makes JUnit XML ill-formed and a lone surrogate (a file name that is not UTF-8)
cannot be encoded at all. `escape` turns each such character into a visible
`\\xNN`, `\\n` or `\\uNNNN`, so output holds one line per record and only
printable text; everything else passes through unchanged (and uncopied).
"""

from __future__ import annotations

import re

# C0 controls, DEL and C1 controls; the Unicode line and paragraph separators; bidi embeddings,
# overrides and isolates; lone surrogates; and the two non-characters XML 1.0 forbids.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _replacement(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text: str) -> str:
    """`text` with control, bidi and unencodable characters shown as escapes, and no leading `::`.

    A leading `::` becomes `\\x3a:`: a text that starts an output line (a file name in
    `--format text`) can never read as a GitHub workflow command.
    """
    if _UNSAFE.search(text) is not None:
        text = _UNSAFE.sub(_replacement, text)
    if text.startswith("::"):
        text = "\\x3a" + text[1:]
    return text


def escape_lines(text: str) -> str:
    """`text` of many lines (a diff) escaped line by line: its line ends (`\\n`, `\\r\\n`) and tabs kept."""
    if _UNSAFE_IN_LINES.search(text) is None and text.count("\r") == text.count("\r\n"):
        return text  # the usual case, decided in one pass: nothing to escape
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        lines.append("\t".join(escape(part) for part in body.split("\t")) + line[len(body) :])
    return "".join(lines)


# _UNSAFE but the tab, the newline and the carriage return (allowed before a newline).
_UNSAFE_IN_LINES = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
)


def quote(value: object, limit: int = 80) -> str:
    """`repr(value)` for an error message: escaped and at most `limit` characters, however big `value` is.

    A config value can be an alias bomb (a list of lists of ... a billion strings) or a
    huge string or integer: reprlib looks at a few levels and items only, so the repr is
    never built whole.
    """
    import reprlib  # only when a message quotes a value

    if isinstance(value, int) and value.bit_length() > 256:  # repr() of a 5,000-digit int raises
        return f"an integer of {value.bit_length():,} bits"

    shown = reprlib.Repr()
    shown.maxlevel, shown.maxstring, shown.maxlong, shown.maxother = 3, limit, limit, limit
    text = shown.repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return escape(text)
