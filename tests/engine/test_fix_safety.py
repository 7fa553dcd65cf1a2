"""engine/fix: `--fix` edits only what it analysed, only regular files inside the paths given, atomically."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys

import pytest
from google.protobuf import text_format

from tflint import protos
from tflint.api import fix_paths
from tflint.cli import main
from tflint.engine import fix

GRAPH = """\
node {
  name: "a"
  op: "MatMul"
  input: "x"
  input: "y"
  attr { key: "T" value { type: DT_FLOAT } }
  attr { key: "transpose_a" value { b: false } }
}
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
"""
FIXED = GRAPH.replace('  attr { key: "transpose_a" value { b: false } }\n', "")


def _graph(directory, name="g.pbtxt", text=GRAPH):
    path = directory / name
    path.write_text(text)
    return path


def _leftovers(directory):
    return sorted(name for name in os.listdir(directory) if "tflint-fix" in name)


def test_a_file_changed_after_it_was_analysed_is_not_overwritten(tmp_path, monkeypatch):
    path = _graph(tmp_path)
    other = GRAPH.replace('name: "a"', 'name: "b"')
    analysed = fix._edit

    def then_replaced(*args):
        edit = analysed(*args)
        path.write_text(other)  # another program writes the file while tflint works
        return edit

    monkeypatch.setattr(fix, "_edit", then_replaced)
    [result] = fix_paths([path])
    assert not result.written and result.removed == ()
    assert result.problem == "changed while tflint read it: not written; run --fix again"
    assert path.read_text() == other and _leftovers(tmp_path) == []


def test_a_file_swapped_for_another_inode_with_the_same_bytes_is_not_overwritten(tmp_path, monkeypatch):
    path = _graph(tmp_path)
    analysed = fix._edit

    def then_swapped(*args):
        edit = analysed(*args)
        _graph(tmp_path, "new.pbtxt")
        os.replace(tmp_path / "new.pbtxt", path)  # same content, another file: its owner may have meant it
        return edit

    monkeypatch.setattr(fix, "_edit", then_swapped)
    assert fix_paths([path])[0].problem.startswith("changed while tflint read it")
    assert path.read_text() == GRAPH


def test_a_symlink_is_reported_not_followed(tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = _graph(outside)
    repo = tmp_path / "repo"
    repo.mkdir()
    link = repo / "g.pbtxt"
    link.symlink_to(target)
    assert main(["--fix", str(link)]) == 0
    assert target.read_text() == GRAPH and link.is_symlink()
    err = capsys.readouterr().err
    assert f"tflint: {link}: not fixed: a symbolic link, not followed: fix the file it points to\n" in err


def test_a_file_reached_from_outside_the_paths_given_is_not_edited(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    _graph(outside)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "models").symlink_to(outside)
    [result] = fix.fix_files([str(repo / "models" / "g.pbtxt")], [str(repo)], write=True)
    assert result.problem == "reached through a symbolic link from outside the paths given: not edited"
    assert (outside / "g.pbtxt").read_text() == GRAPH


def test_the_file_keeps_its_mode_and_no_temporary_file_stays(tmp_path):
    path = _graph(tmp_path)
    path.chmod(0o640)
    [result] = fix_paths([path])
    assert result.written and path.read_text() == FIXED
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and _leftovers(tmp_path) == []


def test_a_read_only_file_is_reported_not_replaced(tmp_path, capsys):
    path = _graph(tmp_path)
    path.chmod(0o444)
    inode = path.stat().st_ino
    assert main(["--fix", str(path)]) == 0
    assert path.read_text() == GRAPH and path.stat().st_ino == inode
    assert f"tflint: {path}: not fixed: a read-only file: not replaced\n" in capsys.readouterr().err


def _failing(error_number):
    def fail(*args, **kwargs):
        raise OSError(error_number, os.strerror(error_number))

    return fail


@pytest.mark.parametrize(
    "where, error_number, said",
    [
        pytest.param("_temporary", errno.EACCES, "Permission denied", id="read-only-directory"),
        pytest.param("fsync", errno.ENOSPC, "No space left on device", id="disk-full"),
        pytest.param("fchmod", errno.EFBIG, "File too large", id="file-size-limit"),
        pytest.param("replace", errno.EROFS, "Read-only file system", id="read-only-file-system"),
    ],
)
def test_a_failed_write_is_one_line_exit_2_and_leaves_the_file_and_no_temporary(
    tmp_path, monkeypatch, capsys, where, error_number, said
):
    path = _graph(tmp_path)
    monkeypatch.setattr(fix if where == "_temporary" else fix.os, where, _failing(error_number))
    assert main(["--fix", str(path)]) == 2
    assert capsys.readouterr().err == f"tflint: {path}: not fixed: cannot write it: {said}\n"
    assert path.read_text() == GRAPH and _leftovers(tmp_path) == []


def test_a_real_file_size_limit_is_one_line_too(tmp_path):
    path = _graph(tmp_path, text=GRAPH + "# padding\n" * 2000)
    code = (
        "import resource, sys\n"
        "from tflint.cli import main\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        f"sys.exit(main(['--fix', {str(path)!r}]))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert (run.returncode, run.stderr) == (2, f"tflint: {path}: not fixed: cannot write it: File too large\n")
    assert path.read_text() == GRAPH + "# padding\n" * 2000 and _leftovers(tmp_path) == []


def test_ctrl_c_while_writing_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    path = _graph(tmp_path)

    def interrupted(descriptor):
        raise KeyboardInterrupt

    monkeypatch.setattr(fix.os, "fsync", interrupted)
    assert main(["--fix", str(path)]) == 130
    assert path.read_text() == GRAPH and _leftovers(tmp_path) == []


def test_a_named_temporary_is_used_where_an_unnamed_one_cannot_be_named(tmp_path, monkeypatch):
    path = _graph(tmp_path)
    monkeypatch.setattr(fix, "_named", _failing(errno.EXDEV))
    assert fix_paths([path])[0].written and path.read_text() == FIXED and _leftovers(tmp_path) == []


def test_the_temporary_files_of_a_killed_run_are_removed_by_the_next(tmp_path):
    path = _graph(tmp_path)
    dead = tmp_path / ".g.pbtxt.tflint-fix-4194305-0123abcd.tmp"  # above Linux's largest pid: no such process
    alive = tmp_path / f".g.pbtxt.tflint-fix-{os.getppid()}-0123abcd.tmp"
    unrelated = tmp_path / ".g.pbtxt.tflint-fix-1-notours.tmp"
    for stray in (dead, alive, unrelated):
        stray.write_text("half a graph")
    assert fix_paths([path])[0].written
    assert _leftovers(tmp_path) == sorted([alive.name, unrelated.name])


def test_a_byte_order_mark_and_crlf_line_ends_are_kept(tmp_path):
    path = tmp_path / "g.pbtxt"
    path.write_bytes(b"\xef\xbb\xbf" + GRAPH.replace("\n", "\r\n").encode())
    assert fix_paths([path])[0].written
    assert path.read_bytes() == b"\xef\xbb\xbf" + FIXED.replace("\n", "\r\n").encode()


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(
            'attr { key: "T" value { type: DT_FLOAT } }, attr { key: "transpose_a" value { b: false } };',
            id="separators",
        ),
        pytest.param(
            'attr: [ { key: "T" value { type: DT_FLOAT } }, { key: "transpose_a" value { b: false } } ]', id="list"
        ),
    ],
)
def test_other_valid_layouts_are_really_fixed_and_diff_then_says_nothing(tmp_path, capsys, layout):
    text = f'node {{ name: "a", op: "MatMul"; input: "x" input: "y" {layout} }}\n' + GRAPH.split("}\n}\n", 1)[1]
    path = _graph(tmp_path, text=text)
    assert main(["--diff", str(path)]) == 1
    assert main(["--fix", str(path)]) == 0
    node = text_format.Parse(path.read_text(), protos.GraphDef(), descriptor_pool=protos.POOL).node[0]
    assert sorted(node.attr) == ["T"]
    capsys.readouterr()
    assert main(["--diff", str(path)]) == 0 and capsys.readouterr().out == ""


def test_a_directive_on_a_removed_line_does_not_move_to_the_next_statement(tmp_path):
    text = GRAPH.replace(
        "value { b: false } }\n", 'value { b: false } }  # tflint: ignore[target-attr]\n  device: "/bad:0"\n'
    )
    path = _graph(tmp_path, text=text)
    assert fix_paths([path])[0].written
    assert "tflint:" not in path.read_text() and 'device: "/bad:0"' in path.read_text()


def test_fix_of_a_directory_skips_what_the_config_excludes(tmp_path, monkeypatch, capsys):
    (tmp_path / ".tflint.yaml").write_text("extend-exclude: [vendored/]\n")
    (tmp_path / "vendored").mkdir()
    kept = _graph(tmp_path / "vendored")
    fixed = _graph(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["--fix", "."]) == 0
    assert fixed.read_text() == FIXED and kept.read_text() == GRAPH
    # Named on the command line, an excluded file is fixed (as it is linted), unless --force-exclude.
    assert main(["--fix", "--force-exclude", "vendored/g.pbtxt"]) == 0 and kept.read_text() == GRAPH
    assert main(["--fix", "vendored/g.pbtxt"]) == 0 and kept.read_text() == FIXED


@pytest.mark.parametrize("form", ["binary", "text"])
def test_fix_of_a_function_whose_name_another_shares_edits_that_one(tmp_path, form):
    body = 'node_def { name: "v" op: "VarHandleOp" attr { key: "dtype" value { type: DT_FLOAT } } '
    text = (
        f'library {{\n  function {{ signature {{ name: "f" }} {body}attr {{ key: "shape" value {{ shape {{ dim {{ size: 2 }} }} }} }} }} }}\n'
        f'  function {{ signature {{ name: "f" }} {body}attr {{ key: "shape" value {{ shape {{ }} }} }}'
        ' attr { key: "debug_name" value { s: "" } } } }\n}\n'
    )
    message = text_format.Parse(text, protos.GraphDef(), descriptor_pool=protos.POOL)
    path = tmp_path / ("g.pb" if form == "binary" else "g.pbtxt")
    if form == "binary":
        path.write_bytes(message.SerializeToString())
    else:
        path.write_text(text)
    [result] = fix_paths([path])
    assert result.written and result.removed == ("VarHandleOp.debug_name",)
    if form == "binary":
        functions = protos.GraphDef.FromString(path.read_bytes()).library.function
    else:
        functions = text_format.Parse(path.read_text(), protos.GraphDef(), descriptor_pool=protos.POOL).library.function
    assert [sorted(function.node_def[0].attr) for function in functions] == [["dtype", "shape"], ["dtype", "shape"]]
    assert functions[0].node_def[0].attr["shape"].shape.dim[0].size == 2


def test_diff_on_stdin_says_what_diff_cannot_do(monkeypatch, capsys):
    assert main(["--diff", "-"]) == 2
    assert capsys.readouterr().err == (
        "tflint: error: --diff cannot show a change to stdin (-): it diffs files; name the file\n"
    )
    assert main(["--fix", "-"]) == 2
    assert capsys.readouterr().err == "tflint: error: --fix cannot edit stdin (-): name the file\n"


@pytest.mark.parametrize(
    "name, content",
    [
        pytest.param("g.pbtxt", GRAPH + "garbage {\n", id="broken-text"),
        pytest.param("g.pb", b"\x0a\xff\xff\xff\xff\x0f" + b"\x00" * 8, id="broken-binary"),
    ],
)
def test_diff_of_a_file_that_does_not_parse_is_never_a_silent_pass(tmp_path, capsys, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    _graph(tmp_path, "clean.pbtxt", FIXED)
    assert main(["--diff", str(tmp_path)]) == 1  # was 0, no output: a pre-commit `--diff` check passed it
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"tflint: {path}: not diffed: it does not parse as a graph ('tflint {path}' says why)\n"
    assert fix_paths([path], write=False)[0].unread
    assert main(["--fix", str(path)]) == 1  # --fix lints next: the invalid-graph finding, not this line
    assert "not diffed" not in capsys.readouterr().err


def test_diff_passes_what_is_not_a_graph_as_the_lint_does(tmp_path, capsys):
    (tmp_path / "labels.pbtxt").write_text('foo: 1\nbar { baz: "x" }\n')  # well-formed text, no graph field
    _graph(tmp_path, "clean.pbtxt", FIXED)
    assert main(["--diff", str(tmp_path)]) == 0
    assert capsys.readouterr() == ("", "")


def test_an_entry_the_edit_cannot_place_is_reported_not_counted(tmp_path, capsys):
    text = GRAPH.replace(
        'attr { key: "transpose_a"', 'attr  # a comment between name and brace\n  { key: "transpose_a"'
    )
    path = _graph(tmp_path, text=text)
    assert main(["--diff", str(path)]) == 0  # nothing would change: no endless "1 to remove"
    out, err = capsys.readouterr()
    assert out == "" and path.read_text() == text
    assert err == (
        f"tflint: {path}: not fixed: 1 default-valued attr not removed: the text edit could not place it"
        " (written in a layout tflint does not edit)\n"
    )


def test_the_diff_shows_a_bidi_override_escaped(tmp_path, capsys):
    text = GRAPH.replace("value { b: false } }", "value { b: false } }  # \u202egnp.\t<-")
    path = _graph(tmp_path, text=text)
    assert main(["--diff", str(path)]) == 1
    assert '-  attr { key: "transpose_a" value { b: false } }  # \\u202egnp.\t<-\n' in capsys.readouterr().out


def test_fix_paths_applies_the_excludes_of_the_config_it_is_given(tmp_path):
    (tmp_path / "vendored").mkdir()
    kept = _graph(tmp_path / "vendored")
    fixed = _graph(tmp_path)
    results = fix_paths([tmp_path], config={"extend-exclude": ["vendored/"]})
    assert [result.path for result in results] == [str(fixed)]
    assert kept.read_text() == GRAPH and fixed.read_text() == FIXED


def test_after_a_sigkill_mid_write_the_file_is_whole_and_the_next_run_leaves_no_temporary(tmp_path):
    path = _graph(tmp_path)
    code = (
        "import sys, time\n"
        "from tflint.engine import fix\n"
        "from tflint.cli import main\n"
        "def stuck(descriptor):\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(600)\n"
        "fix.os.fsync = stuck\n"
        f"main(['--fix', {str(path)!r}])\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "writing\n"  # the child is in the middle of the write
    finally:
        child.kill()  # SIGKILL: no handler, no cleanup
        child.wait()
        child.stdout.close()
    assert path.read_text() == GRAPH  # never half-written
    assert fix_paths([path])[0].written and path.read_text() == FIXED
    assert _leftovers(tmp_path) == []


def test_a_sigterm_mid_write_ends_the_run_once_the_file_is_replaced(tmp_path):
    import signal

    path = _graph(tmp_path)
    code = (
        "import sys\n"
        "from tflint.engine import fix\n"
        "from tflint.cli import main\n"
        "synced = fix.os.fsync\n"
        "def waiting(descriptor):\n"
        "    print('writing', flush=True)\n"
        "    sys.stdin.readline()  # until the test has sent SIGTERM\n"
        "    synced(descriptor)\n"
        "fix.os.fsync = waiting\n"
        f"main(['--fix', {str(path)!r}])\n"
        "print('after the run', flush=True)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout.readline() == "writing\n"
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate("go on\n", timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    # It ended when the write was done (the fallback to a named temporary file writes twice), not after the run.
    assert child.returncode == -signal.SIGTERM and "after the run" not in out
    assert path.read_text() == FIXED and _leftovers(tmp_path) == []


def test_a_directory_is_searched_for_old_temporary_files_once_per_run(tmp_path, monkeypatch):
    for name in ("a.pbtxt", "b.pbtxt", "c.pbtxt"):
        _graph(tmp_path, name)
    listed = []
    monkeypatch.setattr(fix.os, "listdir", lambda directory: listed.append(directory) or [])
    assert all(result.written for result in fix_paths([tmp_path]))
    assert listed == [str(tmp_path)]  # not once per file: a folder of N graphs would cost N listings of N names


def _linked_models(tmp_path):
    """repo/models -> outside (a directory holding g.pbtxt), and outside/sub -> inner (another one)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    _graph(outside)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "models").symlink_to(outside)
    return repo, outside


@pytest.mark.parametrize(
    "named",
    ["models", "models/", "models/g.pbtxt", "./models/./g.pbtxt", "ABS/models", "ABS/models/g.pbtxt"],
)
def test_a_file_reached_through_a_symlinked_directory_named_explicitly_is_not_edited(
    tmp_path, monkeypatch, capsys, named
):
    repo, outside = _linked_models(tmp_path)
    monkeypatch.chdir(repo)
    named = named.replace("ABS", str(repo))
    assert main(["--fix", named]) == 0
    assert (outside / "g.pbtxt").read_text() == GRAPH
    err = capsys.readouterr().err
    assert (
        "not fixed: reached through a symbolic link to a directory, not followed: fix the files it points to\n" in err
    )
    assert "fixed" not in err.replace("not fixed", "")
    assert _leftovers(outside) == []


def test_a_symlinked_directory_below_the_path_given_is_not_edited_either(tmp_path, monkeypatch):
    # outside/sub -> outside/inner: inside the path given, but only through a link
    repo, outside = _linked_models(tmp_path)
    inner = outside / "inner"
    inner.mkdir()
    _graph(inner)
    (outside / "sub").symlink_to(inner)
    monkeypatch.chdir(tmp_path)
    [result] = fix.fix_files(["outside/sub/g.pbtxt"], ["outside"], write=True)
    assert result.problem == "reached through a symbolic link to a directory, not followed: fix the files it points to"
    assert (inner / "g.pbtxt").read_text() == GRAPH


def test_a_symlink_above_the_paths_named_does_not_stop_the_fix(tmp_path, monkeypatch):
    # The user's checkout may live under a symlinked home or /tmp: only what was named is checked.
    real = tmp_path / "real"
    real.mkdir()
    (real / "repo").mkdir()
    _graph(real / "repo")
    (tmp_path / "home").symlink_to(real)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    [result] = fix_paths([str(tmp_path / "home" / "repo")])
    assert (result.problem, result.written) == (None, True)
    monkeypatch.chdir(tmp_path / "home" / "repo")
    _graph(real / "repo")
    [result] = fix_paths(["g.pbtxt"])
    assert (result.problem, result.written) == (None, True)
    assert (real / "repo" / "g.pbtxt").read_text() == FIXED
