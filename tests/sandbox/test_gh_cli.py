"""The ``gh`` dialect's command line: usage, help, flag parsing errors, jq."""

from __future__ import annotations

import pytest

from pytest_ghxbench.sandbox.dialects.gh_cli import GH_USAGE, run_gh
from pytest_ghxbench.sandbox.dialects.gh_jq import JqError, evaluate, run_jq
from pytest_ghxbench.sandbox.state import World


def gh(world: World, *argv: str) -> tuple[int, str, str]:
    result = run_gh(world, argv)
    return result.exit_code, result.stdout, result.stderr


def test_bare_gh_prints_usage(world: World) -> None:
    assert gh(world) == (0, GH_USAGE, "")
    assert gh(world, "--help") == (0, GH_USAGE, "")
    assert "USAGE\n  gh <command> <subcommand> [flags]" in GH_USAGE


def test_version(world: World) -> None:
    code, out, _ = gh(world, "--version")
    assert code == 0 and out.startswith("gh version 2.")


def test_unknown_top_level_command_suggests(world: World) -> None:
    code, out, err = gh(world, "prr")
    assert (code, out) == (1, "")
    assert err.startswith('unknown command "prr" for "gh"\n\nDid you mean this?\n\tpr\n')


def test_group_without_subcommand_prints_group_help(world: World) -> None:
    code, out, _ = gh(world, "issue")
    assert code == 0 and "USAGE\n  gh issue <command> [flags]" in out
    assert "  view:" in out


def test_help_command(world: World) -> None:
    code, out, _ = gh(world, "help", "run", "view")
    assert code == 0 and "--log-failed" in out


def test_flag_errors(world: World) -> None:
    code, _, err = gh(world, "issue", "list", "-Z")
    assert code == 1 and err.startswith("unknown shorthand flag: 'Z' in -Z\n\nUsage:")
    code, _, err = gh(world, "issue", "create", "--title")
    assert code == 1 and err.startswith("flag needs an argument: --title\n")
    code, _, err = gh(world, "issue", "list", "--limit", "many")
    assert code == 1 and err.startswith(
        'invalid argument "many" for "-L, --limit" flag: strconv.ParseInt: parsing "many": '
        "invalid syntax\n"
    )


def test_short_flag_forms(world: World) -> None:
    expected = gh(world, "issue", "list", "--limit", "1", "--json", "number")
    assert gh(world, "issue", "list", "-L1", "--json=number") == expected
    assert gh(world, "issue", "list", "-L=1", "--json", "number") == expected


def test_too_many_arguments(world: World) -> None:
    code, _, err = gh(world, "pr", "view", "7", "8")
    assert (code, err) == (1, "accepts at most 1 arg(s), received 2\n")
    code, _, err = gh(world, "pr", "list", "extra")
    assert (code, err) == (1, 'unknown command "extra" for "gh pr list"\n')


def test_repo_flag_before_subcommand(world: World) -> None:
    assert gh(world, "pr", "-R", "acme-labs/tinykv", "view", "7", "--json", "number") == (
        0,
        '{"number":7}\n',
        "",
    )


def test_jq_needs_json_and_template_is_not_supported(world: World) -> None:
    code, _, err = gh(world, "pr", "view", "7", "--jq", ".number")
    assert (code, err) == (1, "cannot use `--jq` without specifying `--json`\n")
    code, _, err = gh(world, "pr", "view", "7", "--json", "number", "-t", "{{.number}}")
    assert code == 1 and "--template is not supported" in err


def test_bad_jq_expression_is_an_error(world: World) -> None:
    code, _, err = gh(world, "pr", "view", "7", "--json", "number", "-q", ".number |")
    assert code == 1 and err


def test_interactive_only_commands(world: World) -> None:
    code, _, err = gh(world, "secret", "list")
    assert (code, err) == (1, "gh secret is not available in the sandbox\n")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (".a.b", ["x"]),
        (".list[]", [1, 2, 3]),
        (".list | map(. * 2)", [[2, 4, 6]]),
        ("[.list[] | select(. > 1)] | length", [2]),
        (".list[1:]", [[2, 3]]),
        ("{n: .a.b, c: (.list | add)}", [{"n": "x", "c": 6}]),
        ('"\\(.a.b)-\\(.list[0])"', ["x-1"]),
        ('.missing // "none"', ["none"]),
        ('if .list | length > 2 then "many" else "few" end', ["many"]),
        ('.items | sort_by(.n) | map(.k) | join(",")', ["q,p"]),
        ("[.items[] | .k] | unique", [["p", "q"]]),
        (".items | group_by(.n) | length", [2]),
        (".a | keys", [["b"]]),
        ('.a | has("b")', [True]),
        ('.a.b | test("^X"; "i")', [True]),
        (".list | first, last", [1, 3]),
        ('[.list[] | tostring] | join(" ")', ["1 2 3"]),
        (".items[0] | to_entries | map(.key)", [["k", "n"]]),
    ],
)
def test_jq_subset(expression: str, expected: list[object]) -> None:
    data = {"a": {"b": "x"}, "list": [1, 2, 3], "items": [{"k": "p", "n": 2}, {"k": "q", "n": 1}]}
    assert evaluate(expression, data) == expected


def test_run_jq_prints_strings_raw_and_values_compact() -> None:
    assert run_jq(".[] | .t, .n", [{"t": "a b", "n": [1]}]) == "a b\n[1]\n"


def test_jq_errors() -> None:
    with pytest.raises(JqError):
        evaluate(".a | nosuchfunction", {"a": 1})
    with pytest.raises(JqError, match="Cannot iterate over number"):
        evaluate(".a[]", {"a": 1})


def test_status_commands(world: World) -> None:
    code, out, _ = gh(world, "pr", "status")
    assert code == 0 and "Relevant pull requests in acme-labs/tinykv" in out
    assert "There is no pull request associated with [main]" in out
    code, out, _ = gh(world, "issue", "status")
    assert code == 0 and "Issues assigned to you" in out


def test_real_but_unavailable_subcommand_says_why(world: World) -> None:
    code, _, err = gh(world, "pr", "checkout", "7")
    assert code == 1
    assert err == (
        "gh pr checkout is not available in the sandbox: there is no git checkout in the sandbox\n"
    )


def test_issue_comment_on_a_pull_request_number(world: World) -> None:
    code, out, _ = gh(world, "issue", "comment", "7", "--body", "Looks related")
    pull = world.pull_request(7)
    assert pull is not None and pull.comments[-1].body == "Looks related"
    assert (code, out) == (
        0,
        f"https://github.com/acme-labs/tinykv/pull/7#issuecomment-{pull.comments[-1].id}\n",
    )


def test_usage_lists_exactly_the_commands_the_sandbox_serves() -> None:
    from pytest_ghxbench.sandbox.dialects.gh_groups import GROUPS, TOP_COMMANDS

    listed = {
        line.split(":")[0].strip()
        for line in GH_USAGE.splitlines()
        if line.startswith("  ")
        and ":" in line
        and not line.strip().startswith(("$", "Use", "Read"))
    }
    assert listed == set(GROUPS) | set(TOP_COMMANDS)


def test_every_command_has_help(world: World) -> None:
    from pytest_ghxbench.sandbox.dialects.gh_groups import GROUPS

    for name, group in GROUPS.items():
        for command in group.commands:
            code, out, _ = gh(world, name, command.name, "--help")
            assert code == 0 and f"USAGE\n  gh {name} {command.name}" in out, command.path
