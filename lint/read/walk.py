"""Which files a run lints: the paths given, and the graph files below the directories given.

A walk does what users of ripgrep and ruff expect: it skips hidden entries,
default excludes (virtualenvs, `build/`, `node_modules/`, ...), the run's
`exclude` / `extend-exclude` globs, and what `.gitignore` / `.ignore` hide;
it does not follow directory symlinks (a `bazel-out` link would lint every
generated copy); it yields a SavedModel directory whole, and only when its
`saved_model.pb(txt)` really holds a SavedModel. Which files git ignores is
asked of git itself (`git ls-files`), the reference implementation; without
git, `.gitignore` files are read with tflint's own gitignore-style matcher.

Explicit files are linted even when excluded, unless `force_exclude` (what the
pre-commit hook passes). An explicit `saved_model.pb` (pre-commit passes files
one by one) is linted as its SavedModel directory, once per run.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import cast

from tflint.errors import UsageError
from tflint.read.globs import GlobSet
from tflint.read.guarded import read_bytes
from tflint.records import record

# Extensions searched for when a directory is given (explicit files are read whatever their name).
GRAPH_EXTENSIONS = (".pb", ".pbtxt", ".meta", ".textproto", ".txtpb", ".pbtext")
SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")
# TF >= 2.13 writes a SavedModel too big for one message as chunks (tf.saved_model.experimental.image_format).
CHUNKED_SAVED_MODEL = "saved_model.cpb"

# The default `exclude` (gitignore syntax): what no repository wants linted. Hidden entries
# (`.git`, `.venv`, `.tox`) are always skipped by a walk; listing them matters for --force-exclude.
DEFAULT_EXCLUDES = (
    ".git/",
    ".hg/",
    ".svn/",
    ".tox/",
    ".nox/",
    ".venv/",
    "venv/",
    ".eggs/",
    "__pycache__/",
    "__pypackages__/",
    "node_modules/",
    "site-packages/",
    "build/",
    "dist/",
)
# A directory holding one of these is a virtualenv (or conda env), whatever its name.
VIRTUALENV_MARKERS = ("pyvenv.cfg", "conda-meta")
IGNORE_FILES = (".gitignore", ".ignore")
# How long `git ls-files` may take before the walk falls back to reading ignore files itself.
GIT_TIMEOUT = 60.0


class Excludes:
    """What a run's configuration excludes: `excluded(path, is_dir)` on absolute real paths.

    Excluded when any of the glob sets excludes the path (each set: its last
    matching pattern decides). The default applies DEFAULT_EXCLUDES.
    """

    def __init__(self, globs: Sequence[GlobSet] | None = None) -> None:
        self.globs = tuple(globs) if globs is not None else (GlobSet(DEFAULT_EXCLUDES, os.getcwd()),)

    def excluded(self, path: str, is_dir: bool) -> bool:
        """Whether a walk skips `path` (its parents were already walked into)."""
        return any(globs.matches(path, is_dir) for globs in self.globs)

    def excluded_path(self, path: str, is_dir: bool) -> bool:
        """Whether `path`, or a directory above it, is excluded (for paths named explicitly)."""
        return any(globs.matches_path_or_parent(path, is_dir) for globs in self.globs)


@record(frozen=True)
class WalkOptions:
    """How a run finds its files."""

    excludes: Excludes | None  # None: DEFAULT_EXCLUDES
    respect_gitignore: bool
    force_exclude: bool
    follow_links: bool
    # Whether a saved_model.pb / .pbtxt (path) really holds a SavedModel; None: by its name alone.
    holds_saved_model: Callable[[str], bool] | None

    def __init__(
        self,
        excludes: Excludes | None = None,
        respect_gitignore: bool = True,
        force_exclude: bool = False,
        follow_links: bool = False,
        holds_saved_model: Callable[[str], bool] | None = None,
    ) -> None:
        vars(self).update(
            excludes=excludes,
            respect_gitignore=respect_gitignore,
            force_exclude=force_exclude,
            follow_links=follow_links,
            holds_saved_model=holds_saved_model,
        )


def iter_graph_files(paths: Iterable[str], options: WalkOptions | None = None) -> Iterator[str]:
    """Expand directories into the graph files below them, in a stable order, each file once.

    A SavedModel directory is yielded whole and not searched further, and so
    is the directory of an explicit `saved_model.pb(txt)` that holds one.
    Explicit file paths are yielded as given (`-` is stdin). Raises
    UsageError for a path that does not exist.
    """
    walker = _Walker(options or WalkOptions())
    for raw in paths:
        if raw == "-":
            yield raw
            continue
        with os_errors_as_usage(raw):
            try:
                os.lstat(raw)  # a path too long, a NUL in it: said as such, not as "no such file"
            except FileNotFoundError:
                raise UsageError(f"{raw}: no such file or directory") from None
            if os.path.isdir(raw):
                yield from walker.walk(raw)
            elif os.path.exists(raw):
                yield from walker.explicit_file(raw)
            else:
                raise UsageError(f"{raw}: a broken symbolic link")


@contextlib.contextmanager
def os_errors_as_usage(shown: str) -> Iterator[None]:
    """An OSError (a path too long, a directory without permission) as one UsageError line."""
    from tflint.read.guarded import os_error_text

    try:
        yield
    except (OSError, ValueError) as error:  # ValueError: a NUL in a path
        raise UsageError(f"{getattr(error, 'filename', None) or shown}: {os_error_text(error)}") from None


def saved_model_file(directory: str) -> str | None:
    """The file of a SavedModel directory: saved_model.pb, else .pbtxt, else the chunked .cpb; None if none."""
    for name in (*SAVED_MODEL_FILES, CHUNKED_SAVED_MODEL):
        candidate = os.path.join(directory, name)
        if os.path.isfile(candidate):
            return candidate
    return None


class _Walker:
    def __init__(self, options: WalkOptions) -> None:
        self.options = options
        self.excludes = options.excludes or Excludes()
        self.yielded: set[str] = set()

    def _once(self, path: str, real: str | None = None) -> bool:
        key = real or os.path.realpath(path)
        if key in self.yielded:
            return False
        self.yielded.add(key)
        return True

    def explicit_file(self, raw: str) -> Iterator[str]:
        real = os.path.realpath(raw)
        if self.options.force_exclude and self._force_excluded(real, False):
            return
        directory = os.path.dirname(raw) or "."
        if os.path.basename(raw) in SAVED_MODEL_FILES and self._holds_saved_model(raw):
            if self._once(directory):
                yield directory
        elif self._once(raw):
            yield raw

    def _force_excluded(self, real: str, is_dir: bool) -> bool:
        # Only the configured excludes: a file named explicitly (pre-commit passes tracked ones) is not
        # hidden by ignore files, as git itself never ignores a tracked file.
        return self.excludes.excluded_path(real, is_dir)

    def _holds_saved_model(self, path: str) -> bool:
        check = self.options.holds_saved_model
        return True if check is None else check(path)

    def _saved_model_here(self, directory: str, names: set[str]) -> bool:
        if CHUNKED_SAVED_MODEL in names and not any(name in names for name in SAVED_MODEL_FILES):
            return os.path.isfile(os.path.join(directory, CHUNKED_SAVED_MODEL))
        for name in SAVED_MODEL_FILES:
            if name in names:
                path = os.path.join(directory, name)
                return os.path.isfile(path) and self._holds_saved_model(path)
        return False

    def walk(self, top: str) -> Iterator[str]:
        real_top = os.path.realpath(top)
        if self.options.force_exclude and self._force_excluded(real_top, True):
            return
        scope = _Scope.at(real_top, self.options.respect_gitignore)
        seen: set[tuple[int, int]] = set()
        stack = [(top, real_top, scope)]
        while stack:
            shown, real, scope = stack.pop()
            try:
                info = os.stat(real)
            except OSError as error:
                raise UsageError(f"{shown}: {error.strerror or error}") from None
            if (info.st_dev, info.st_ino) in seen:
                continue  # a loop through followed links: each directory is read once
            seen.add((info.st_dev, info.st_ino))
            try:
                with os.scandir(real) as listing:
                    entries = sorted(listing, key=lambda entry: entry.name)
            except OSError as error:
                raise UsageError(f"{shown}: {error.strerror or error}") from None
            names = {entry.name for entry in entries}
            if real != real_top and any(marker in names for marker in VIRTUALENV_MARKERS):
                continue  # a virtualenv, whatever its name
            if self._saved_model_here(real, names):
                if self._once(shown, real):
                    yield shown  # linted whole; its variables/ and assets/ are not graphs
                continue
            if real != real_top:
                scope = scope.entered(real, names, self.options.respect_gitignore)
            subdirectories = []
            prefix = real + os.sep
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    is_dir = entry.is_dir(follow_symlinks=self.options.follow_links)
                    if not is_dir and not (name.endswith(GRAPH_EXTENSIONS) and entry.is_file()):
                        continue  # most entries of a repository: decided without a path or a system call
                except OSError:
                    continue
                path = prefix + name
                if scope.ignores(path, is_dir) or self.excludes.excluded(path, is_dir):
                    continue
                if is_dir:
                    subdirectories.append((os.path.join(shown, name), path, scope))
                else:
                    shown_file = os.path.join(shown, name)
                    if self._once(shown_file, path):
                        yield shown_file
            stack.extend(reversed(subdirectories))


class _Scope:
    """What ignore files hide below a directory: git's answer, and `.ignore` (and without git `.gitignore`) files."""

    __slots__ = ("git", "chain", "read_gitignore")

    def __init__(self, git: _GitListing | None, chain: tuple[GlobSet, ...], read_gitignore: bool) -> None:
        self.git = git
        self.chain = chain  # ignore files from the outermost directory down, each anchored at its own
        self.read_gitignore = read_gitignore  # in a work tree, without git to ask

    @classmethod
    def at(cls, top: str, respect: bool) -> _Scope:
        """The scope of a walk starting at `top`: ignore files of its ancestors and of `top` itself."""
        if not respect:
            return cls(None, (), False)
        root = work_tree_root(top)
        git = _GitListing.of(top) if root is not None else None
        if git is not None and not git.files and _git_ignores(top):
            # A directory git ignores, named by the user (an export to outputs/): searched all the
            # same, with the ignore files below and above it read by tflint.
            git = None
        read_gitignore = root is not None and git is None
        names = IGNORE_FILES if read_gitignore else (".ignore",)
        ancestors = []
        directory = top
        while True:
            ancestors.append(directory)
            parent = os.path.dirname(directory)
            if directory == root or parent == directory:
                break
            directory = parent
        chain = []
        if read_gitignore:
            chain.append(_read_ignore_file(os.path.join(cast(str, root), ".git", "info", "exclude"), cast(str, root)))
        for directory in reversed(ancestors):
            chain.extend(_ignore_files(directory, names))
        return cls(git, tuple(globs for globs in chain if globs), read_gitignore)

    def entered(self, directory: str, names: set[str], respect: bool) -> _Scope:
        """The scope below `directory` (whose entries are `names`)."""
        if not respect:
            return self
        git, read_gitignore = self.git, self.read_gitignore
        if ".git" in names:  # a nested repository or submodule: its own ignore rules
            git = _GitListing.of(directory)
            read_gitignore = git is None
        wanted = IGNORE_FILES if read_gitignore else (".ignore",)
        files = [name for name in wanted if name in names]
        if not files and git is self.git and read_gitignore == self.read_gitignore:
            return self
        chain = self.chain + tuple(globs for globs in _ignore_files(directory, files) if globs)
        return _Scope(git, chain, read_gitignore)

    def ignores(self, path: str, is_dir: bool) -> bool:
        """Whether the ignore rules in force hide `path` (absolute, real)."""
        for globs in reversed(self.chain):
            decision = globs.decide_within(path, is_dir)
            if decision is not None:
                return decision
        return self.git is not None and not self.git.lists(path, is_dir)


def _ignore_files(directory: str, names: Iterable[str]) -> list[GlobSet]:
    return [_read_ignore_file(os.path.join(directory, name), directory) for name in names]


# An ignore file bigger than this is not a hand-written one; its first part is read.
_IGNORE_FILE_BYTES = 1 << 20


def _read_ignore_file(path: str, base: str) -> GlobSet:
    """The patterns of an ignore file (none when it cannot be read: a FIFO named .gitignore is never waited on)."""
    try:
        text = read_bytes(path, head=_IGNORE_FILE_BYTES).decode("utf-8", "replace")
    except UsageError:
        return GlobSet((), base)
    return GlobSet(text.splitlines(), base)


def work_tree_root(directory: str) -> str | None:
    """The nearest directory at or above `directory` holding `.git`, or None."""
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


class _GitListing:
    """The files git does not ignore below a directory: tracked ones, and untracked ones no ignore rule hides."""

    __slots__ = ("base", "files", "directories")

    def __init__(self, base: str, entries: Iterable[str]) -> None:
        self.base = base.rstrip(os.sep) + os.sep
        self.files: set[str] = set()
        self.directories: set[str] = set()
        for entry in entries:
            entry = entry.rstrip("/")  # an untracked nested repository is listed as `dir/`
            self.files.add(entry)
            parent = os.path.dirname(entry)
            while parent and parent not in self.directories:
                self.directories.add(parent)
                parent = os.path.dirname(parent)

    @classmethod
    def of(cls, directory: str) -> _GitListing | None:
        """Ask git; None when git is absent, fails, or `directory` is in no work tree."""
        entries = _git_ls_files(directory)
        return None if entries is None else cls(directory, entries)

    def lists(self, path: str, is_dir: bool) -> bool:
        if not path.startswith(self.base):
            return True  # outside this listing: not git's to decide
        relative = path[len(self.base) :]
        if os.sep != "/":
            relative = relative.replace(os.sep, "/")
        return relative in self.directories or relative in self.files if is_dir else relative in self.files


# git as a reader only: a repository's .git/config may name an fsmonitor command, which must not run.
_GIT = ("git", "-c", "core.fsmonitor=false")


def _git_ignores(directory: str) -> bool:
    """Whether git ignores `directory` itself (or a directory above it)."""
    import subprocess

    try:
        result = subprocess.run(
            [*_GIT, "check-ignore", "-q", "--", "."], cwd=directory, capture_output=True, timeout=GIT_TIMEOUT
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return result.returncode == 0


def _git_ls_files(directory: str) -> list[str] | None:
    import subprocess  # only for walks inside a work tree

    try:
        result = subprocess.run(
            [*_GIT, "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=directory,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None  # no git (or it hung): ignore files are read by hand
    if result.returncode != 0:
        return None
    return [os.fsdecode(item) for item in result.stdout.split(b"\0") if item]
