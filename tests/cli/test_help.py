"""Every command's --help at 80 columns: examples last, metavars in words, every option explained.

Commands are found by walking the app (a command added later is checked too); the rules are
docs/cli.md's "Conventions for a command's help".
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest

from trainbudget.cli.app import app
from trainbudget.cli.examples import EXAMPLES

REPO = Path(__file__).resolve().parents[2]
# Python types leaking as metavars (`<bool>`, `<list[Path]>`, click's `INTEGER`),
# ranges (`[x>=0]`) and braces around a required argument's name (`{plan_file}`).
LEAKS = re.compile(r"<[a-zA-Z][\w\[\], ]*>|\[x[<>=]|\d<=x|\{\w+\}|\b(INTEGER|FLOAT|BOOLEAN)\b")


def _commands() -> list[tuple[list[str], object]]:
    """(path, click command) for the app, every group and every command under them (a lazy
    group's commands through list_commands / get_command, as click's help finds them)."""
    found, todo = [], [([], app)]
    while todo:
        path, command = todo.pop(0)
        found.append((path, command))
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name="trainbudget")
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if not sub.hidden:
                    todo.append(([*path, name], sub))
    return found


COMMANDS = _commands()
CASES = [pytest.param(path, command, id=" ".join(path) or "app") for path, command in COMMANDS]


def test_the_walk_finds_every_registered_command() -> None:
    paths = {" ".join(path) for path, _ in COMMANDS}
    assert {"", "estimate", "campaign", "fit", "serve", "ledger", "ledger info"} <= paths
    assert len(paths) >= 17


@pytest.mark.parametrize(("path", "command"), CASES)
def test_help_at_80_columns(cli, path: list[str], command) -> None:
    result = cli(*path, "--help", env={"COLUMNS": "80", "NO_COLOR": "1"})
    assert result.code == 0, result.stderr
    text = result.stdout
    assert max(len(line) for line in text.splitlines()) <= 80
    leaks = [line.strip() for line in text.splitlines() if LEAKS.search(line)]
    assert leaks == []
    # The last section is the examples, each a `$ trainbudget …` line of this very command.
    tail = text[text.index("Examples:") :]
    assert "Options:" not in tail, "the examples come after every option"
    examples = [line.strip() for line in tail.splitlines() if line.strip().startswith("$ ")]
    assert 1 <= len(examples) <= 2
    for line in examples:
        assert line.startswith(" ".join(["$ trainbudget", *path]).rstrip())


@pytest.mark.parametrize(("path", "command"), CASES)
def test_every_option_has_help_and_a_word_metavar(path: list[str], command) -> None:
    ctx = click.Context(command, info_name="trainbudget")
    for param in command.get_params(ctx):
        assert (param.help or "").strip(), f"{param.opts}: no help text"
        if getattr(param, "is_flag", False):
            continue
        metavar = param.metavar or ""
        assert re.fullmatch(r"[A-Z][A-Z0-9_=:,.]*(\.\.\.)?", metavar), (param.opts, metavar)


def test_every_command_has_examples_and_their_input_files_exist() -> None:
    paths = {" ".join(path) for path, _ in COMMANDS}
    assert paths <= EXAMPLES.keys()
    for name, lines in EXAMPLES.items():
        assert 1 <= len(lines) <= 2, name
        for example in lines:
            assert all(len(line) <= 74 for line in example.splitlines()), example
            argv = shlex.split(example.replace("\\\n", " "))
            assert argv[: 1 + len(name.split())] == ["trainbudget", *name.split()], example
            inputs = [a for a in argv if a.startswith(("examples/", "src/", "tests/"))]
            assert all((REPO / a).exists() for a in inputs), example


def test_gpu_help_lists_the_catalog(cli) -> None:
    from trainbudget.estimate.catalog import list_accelerators

    text = " ".join(cli("estimate", "--help", env={"COLUMNS": "200"}).stdout.split())
    for accelerator in list_accelerators():
        assert accelerator.name in text


def test_old_spellings_still_parse(cli, tmp_path: Path) -> None:
    """Word metavars changed the help only: the flags and their values are as before."""
    result = cli(
        *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu"),
        *("A100-80GB", "--mfu", "0.4", "--price", "1.50", "--tp", "2", "--zero-stage", "3"),
        "--json",
        cwd=tmp_path,
    )
    assert result.code == 0, result.stderr
    bad = cli(
        *("estimate", "--params", "7e9", "--tokens", "1e11", "--gpus", "8", "--gpu"),
        *("A100-80GB", "--price", "1.50", "--zero-stage", "4"),
        cwd=tmp_path,
    )
    assert bad.code == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == [
        "trainbudget: error: Invalid value for '--zero-stage': must be from 0 to 3, got 4"
    ]
