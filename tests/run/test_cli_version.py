"""``ghxbench --version`` (wired into the parser by ``cli.main``)."""

from __future__ import annotations

import argparse
import platform

import pytest

import pytest_ghxbench
from pytest_ghxbench.cli.version import add_version_argument, version_text


def test_version_text_names_the_plugin_pytest_and_python() -> None:
    text = version_text()
    assert text.startswith(f"ghxbench {pytest_ghxbench.__version__} (pytest {pytest.__version__}")
    assert text.endswith(f"Python {platform.python_version()})")


def test_version_exits_before_a_subcommand_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="ghxbench")
    add_version_argument(parser)
    commands = parser.add_subparsers(dest="command")
    commands.required = True
    commands.add_parser("report")
    with pytest.raises(SystemExit) as exit_info:
        parser.parse_args(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == version_text()
