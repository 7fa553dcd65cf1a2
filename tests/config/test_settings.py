"""Configuration: discovery, presets and extends, validation with suggestions, frozen results."""

from __future__ import annotations

import pytest
from conftest import lint_text, pinned

from tflint.config.settings import (
    config_from_mapping,
    default_config,
    find_config,
    load_config,
)
from tflint.errors import ConfigError
from tflint.finding import Severity

DUPLICATE = 'node { name: "a" op: "NoOp" }\nnode { name: "a" op: "NoOp" }\nnode { name: "tmp/a" op: "NoOp" }\nnode { name: "tmp/a" op: "NoOp" }\n'


def write(path, text):
    path.write_text(text)
    return path


def test_defaults_follow_each_rule():
    config = default_config()
    assert config.rules["unknown-op"].severity == Severity.ERROR
    assert config.fail_on == Severity.ERROR
    with pytest.raises(TypeError):
        config.rules["unknown-op"].options["x"] = 1  # frozen: rules cannot change their options


def test_discovery_walks_up_to_the_repository_root(tmp_path):
    repo = tmp_path / "repo"
    nested = repo / "models" / "v1"
    nested.mkdir(parents=True)
    (repo / ".git").mkdir()
    write(repo / ".tflint.yaml", "fail-on: warning\n")
    write(tmp_path / ".tflint.yaml", "fail-on: info\n")
    assert find_config(nested / "g.pb") == repo / ".tflint.yaml"
    (repo / ".tflint.yaml").unlink()
    assert find_config(nested / "g.pb") is None  # never crosses the repository root
    write(nested / ".tflint.yml", "")
    assert find_config(nested / "g.pb") == nested / ".tflint.yml"


@pytest.mark.parametrize(
    "text, message",
    [
        pytest.param(
            "rules:\n  unknwn-op: warning\n", "rules: unknown rule 'unknwn-op' (did you mean 'unknown-op'?)", id="rule"
        ),
        pytest.param(
            "rules:\n  unknown-op: warn\n",
            "rules.unknown-op: unknown level 'warn' (did you mean 'warning'?)",
            id="level",
        ),
        pytest.param(
            "rules:\n  unknown-op: {levle: error}\n",
            "rules.unknown-op: unknown option 'levle' (did you mean 'level'?)",
            id="option",
        ),
        pytest.param("rulez: {}\n", "unknown key 'rulez' (did you mean 'rules'?)", id="top-level"),
        pytest.param("fail-on: off\n", "fail-on: expected info, warning or error", id="fail-on-off"),
        pytest.param("rules: [a, b]\n", "rules: expected a mapping", id="rules-list"),
        pytest.param("- a\n- b\n", "the configuration must be a mapping, not list", id="not-mapping"),
        pytest.param("rules:\n  unknown-op: error\n bad: [\n", "invalid YAML", id="yaml-syntax"),
        pytest.param("!!python/object/apply:os.system ['echo pwned']\n", "invalid YAML", id="python-tag"),
        pytest.param("rules:\n  unknown-op: {ignore-nodes: ['(']}\n", "invalid regular expression '('", id="bad-regex"),
        pytest.param("extends: strcit\n", "extends: 'strcit' is neither a preset", id="bad-extends"),
        pytest.param("config {\n  module = true\n}\n", "Terraform tflint config", id="hcl"),
        pytest.param(
            "inline-suppressions: {allowd: false}\n",
            "inline-suppressions: unknown key 'allowd' (did you mean 'allowed'?)",
            id="inline-key",
        ),
        pytest.param(
            "inline-suppressions: {require-reason: sometimes}\n",
            "inline-suppressions.require-reason: expected true or false, got 'sometimes'",
            id="inline-value",
        ),
        pytest.param(
            "inline-suppressions: [allowed]\n",
            "inline-suppressions: expected true, false or a mapping with allowed / require-reason",
            id="inline-list",
        ),
        pytest.param("baseline: 3\n", "baseline: expected the path of a baseline file", id="baseline"),
        pytest.param("plugins: acme, other\n", "plugins: plugin 'acme, other' is not installed", id="plugins-string"),
        pytest.param("plugins: [1]\n", "plugins: expected a list of plugin names", id="plugins-type"),
        pytest.param("plugin: [acme]\n", "unknown key 'plugin' (did you mean 'plugins'?)", id="plugins-typo"),
    ],
)
def test_invalid_configs_name_file_and_key(tmp_path, text, message):
    path = write(tmp_path / ".tflint.yaml", text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value).startswith(str(path))
    assert message in str(error.value)


def test_python_tags_never_execute(tmp_path):
    marker = tmp_path / "pwned"
    path = write(tmp_path / ".tflint.yaml", f"!!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError):
        load_config(path)
    assert not marker.exists()


def test_extends_a_file_and_merges_per_rule(tmp_path):
    write(
        tmp_path / "base.yaml",
        "fail-on: warning\nrules:\n  duplicate-node-name: {level: warning, ignore-nodes: ['^tmp/']}\n",
    )
    path = write(tmp_path / ".tflint.yaml", "extends: base.yaml\nrules:\n  duplicate-node-name: info\n")
    config = load_config(path)
    rule = config.rules["duplicate-node-name"]
    assert config.fail_on == Severity.WARNING
    assert rule.severity == Severity.INFO
    assert rule.ignores("tmp/a") and not rule.ignores("a")


def test_extends_cycles_are_reported(tmp_path):
    write(tmp_path / "a.yaml", "extends: b.yaml\n")
    write(tmp_path / "b.yaml", "extends: a.yaml\n")
    with pytest.raises(ConfigError, match="extends itself"):
        load_config(tmp_path / "a.yaml")


def test_ignore_nodes_skips_matching_findings():
    config = {"rules": {"duplicate-node-name": {"ignore-nodes": ["^tmp/"]}}}
    assert pinned(lint_text(DUPLICATE, config)) == [("duplicate-node-name", "a", 2)]
    assert pinned(lint_text(DUPLICATE)) == [("duplicate-node-name", "a", 2), ("duplicate-node-name", "tmp/a", 4)]


def test_catastrophic_ignore_pattern_times_out_instead_of_hanging():
    config = config_from_mapping({"rules": {"duplicate-node-name": {"ignore-nodes": ["(a|aa)+$"]}}})
    with pytest.raises(ConfigError, match="took too long"):
        config.rules["duplicate-node-name"].ignores("a" * 40 + "!")


def test_off_disables_a_rule():
    assert lint_text(DUPLICATE, {"rules": {"duplicate-node-name": "off"}}) == []
    assert lint_text(DUPLICATE, {"rules": {"duplicate-node-name": False}}) == []


def test_suppression_baseline_and_plugin_settings(tmp_path):
    (tmp_path / "ci").mkdir()
    config = load_config(
        write(tmp_path / "ci" / ".tflint.yaml", "baseline: base.json\ninline-suppressions: {require-reason: true}\n")
    )
    assert config.baseline == str(tmp_path / "ci" / "base.json")  # relative to the config file
    assert (config.inline_suppressions.allowed, config.inline_suppressions.require_reason) == (True, True)
    assert load_config(write(tmp_path / "b.yaml", "inline-suppressions: false\n")).inline_suppressions.allowed is False
    assert default_config().plugins == () and "unknown-op" in default_config().modules


def test_extends_keeps_a_base_level_when_options_are_added(tmp_path):
    write(tmp_path / "base.yaml", "rules:\n  duplicate-node-name: warning\n")
    path = write(
        tmp_path / ".tflint.yaml", "extends: base.yaml\nrules:\n  duplicate-node-name: {ignore-nodes: ['^tmp/']}\n"
    )
    rule = load_config(path).rules["duplicate-node-name"]
    assert rule.severity == Severity.WARNING
    assert rule.ignores("tmp/x")


def test_every_rules_default_options_are_valid():
    from tflint.rules import all_rules

    for rule_id, module in all_rules().items():
        validate = getattr(module, "validate_options", None)
        if validate is not None:
            assert validate(dict(getattr(module, "OPTIONS", {}))) is None, rule_id


# Every path pattern of a config is one dialect: gitignore syntax, relative to the config file's
# directory (tflint.read.globs). The rows marked `fnmatch differs` are the ones the `interface:`
# option matched otherwise before it joined the others (fnmatch: `*` crossed `/`, no anchoring rule).
@pytest.mark.parametrize(
    "pattern, path, matches",
    [
        pytest.param("*", "model.pb", True, id="star"),
        pytest.param("*", "models/v1/model.pb", True, id="star-any-depth"),
        pytest.param("*.pb", "models/v1/model.pb", True, id="suffix-any-depth"),
        pytest.param("*.pb", "model.pbtxt", False, id="suffix-other"),
        pytest.param("frozen.pb", "frozen.pb", True, id="name"),
        pytest.param("frozen.pb", "models/frozen.pb", True, id="name-any-depth (fnmatch differs)"),
        pytest.param("/frozen.pb", "frozen.pb", True, id="leading-slash"),
        pytest.param("/frozen.pb", "models/frozen.pb", False, id="leading-slash-anchors"),
        pytest.param("models/frozen_*.pb", "models/frozen_v2.pb", True, id="readme-example"),
        pytest.param("models/frozen_*.pb", "other/models/frozen_v2.pb", False, id="middle-slash-anchors"),
        pytest.param("models/*.pb", "models/a.pb", True, id="star-in-dir"),
        pytest.param("models/*.pb", "models/v1/a.pb", False, id="star-stops-at-slash (fnmatch differs)"),
        pytest.param("models/**/*.pb", "models/a.pb", True, id="double-star-zero-dirs (fnmatch differs)"),
        pytest.param("models/**/*.pb", "models/v1/v2/a.pb", True, id="double-star-dirs"),
        pytest.param("models/", "models/v1/a.pb", True, id="directory-covers-inside (fnmatch differs)"),
        pytest.param("models/**", "models/v1/a.pb", True, id="trailing-double-star"),
        pytest.param("model?.pb", "model1.pb", True, id="question-mark"),
        pytest.param("model?.pb", "model/.pb", False, id="question-mark-not-slash (fnmatch differs)"),
        pytest.param("[ab].pb", "b.pb", True, id="class"),
        pytest.param("[!ab].pb", "b.pb", False, id="negated-class"),
        pytest.param(r"\#raw.pb", "#raw.pb", True, id="escaped-hash"),
        pytest.param("*.PB", "model.pb", False, id="case-sensitive"),
    ],
)
def test_every_path_option_speaks_gitignore(tmp_path, pattern, path, matches):
    config_file = tmp_path / ".tflint.yaml"
    quoted = pattern.replace("'", "''")
    write(
        config_file,
        f"interface:\n  '{quoted}': {{inputs: ['x:0']}}\n"
        f"per-file-ignores:\n  '{quoted}': [unknown-op]\n"
        f"exclude: ['{quoted}']\n",
    )
    config = load_config(config_file)
    target = tmp_path / path
    assert (config.interface_for(str(target)) is not None) is matches, "interface"
    assert (config.for_file(str(target)).rules["unknown-op"].severity == Severity.OFF) is matches, "per-file-ignores"
    assert config.excludes().excluded_path(str(target.resolve()), False) is matches, "exclude"


# A config named with --config outside the linted tree: only the globs without a `/` apply, to the name.
@pytest.mark.parametrize(
    "pattern, matches",
    [
        ("*", True),
        ("*.pb", True),
        ("frozen.pb", True),
        ("/frozen.pb", False),
        ("models/*.pb", False),
        ("other/", False),
    ],
)
def test_outside_the_config_directory_every_path_option_matches_names(tmp_path, pattern, matches):
    (tmp_path / "ci").mkdir()
    config_file = write(
        tmp_path / "ci" / ".tflint.yaml",
        f"interface:\n  '{pattern}': {{inputs: ['x:0']}}\nper-file-ignores:\n  '{pattern}': [unknown-op]\n"
        f"exclude: ['{pattern}']\n",
    )
    config = load_config(config_file)
    target = str(tmp_path / "models" / "frozen.pb")
    assert (config.interface_for(target) is not None) is matches, "interface"
    assert (config.for_file(target).rules["unknown-op"].severity == Severity.OFF) is matches, "per-file-ignores"
    assert config.excludes().excluded(target, False) is matches, "exclude (met in a walk)"


@pytest.mark.parametrize("option", ["interface", "per-file-ignores"])
@pytest.mark.parametrize(
    "pattern, message",
    [
        ("!models/*.pb", "'!models/*.pb' matches no file on its own: '!' only re-includes in a list"),
        ("#frozen.pb", r"'#frozen.pb' is a comment in gitignore syntax (write '\#' for a name starting with '#')"),
        (" ", "expected globs as keys, got ' '"),
    ],
)
def test_a_file_glob_key_that_matches_nothing_is_an_error(tmp_path, option, pattern, message):
    value = "{inputs: ['x:0']}" if option == "interface" else "[unknown-op]"
    path = write(tmp_path / ".tflint.yaml", f"{option}:\n  '{pattern}': {value}\n")
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert f"{option}: {message}" in str(error.value)
