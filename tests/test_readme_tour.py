"""README's tour is pasted from real runs: each ```console block is run again and compared.

The commands run in order, at COLUMNS=100, in a temporary folder that links examples/, src/
and tests/ (so relative paths are the README's and the ledger starts empty); stderr is merged
into stdout as a terminal shows them, and the folder's path is shown as /tmp/tour. After a
change of output, rewrite the blocks with `python tests/test_readme_tour.py --write`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
SHOWN_TMP = "/tmp/tour"
BLOCK = re.compile(r"```console\n(.*?)```\n", re.S)


def tour_blocks(text: str) -> list[list[tuple[str, str]]]:
    """Each console block as [(command, expected output)], a command with its `\\` lines."""
    blocks = []
    for match in BLOCK.finditer(text):
        steps: list[tuple[str, str]] = []
        lines = match.group(1).splitlines()
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                raise AssertionError(f"console block must start with a `$ ` line: {lines[i]!r}")
            command = [lines[i][2:]]
            while command[-1].endswith("\\"):
                i += 1
                command.append(lines[i])
            i += 1
            output = []
            while i < len(lines) and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            steps.append(("\n".join(command), "\n".join(output)))
        blocks.append(steps)
    return blocks


def make_tour_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("examples", "src", "tests"):
        (folder / name).symlink_to(REPO / name)
    return folder


def run(command: str, folder: Path, columns: int = 100) -> str:
    """One tour command as a user's shell runs it; its output as the README shows it."""
    env = {k: v for k, v in os.environ.items() if k not in {"TRAINBUDGET_LEDGER", "NO_COLOR"}}
    env |= {"COLUMNS": str(columns), "DEMO": "src/trainbudget/demo_data", "TERM": "dumb"}
    shell = f'trainbudget() {{ {sys.executable} -m trainbudget "$@"; }}\n{command}'
    proc = subprocess.run(
        ["bash", "-c", shell],
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
    )
    text = proc.stdout.replace(str(folder.resolve()), SHOWN_TMP).replace(str(folder), SHOWN_TMP)
    return "\n".join(line.rstrip() for line in text.splitlines())


def regenerate(text: str, folder: Path) -> str:
    """README text with every console block's output replaced by a fresh run's."""

    def block(match: re.Match[str]) -> str:
        (steps,) = tour_blocks(match.group(0))
        body = "".join(f"$ {cmd}\n" + (out + "\n" if out else "") for cmd, out in steps_run(steps))
        return f"```console\n{body}```\n"

    def steps_run(steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return [(command, run(command, folder)) for command, _ in steps]

    return BLOCK.sub(block, text)


# A path: at least one slash between name characters (README paths, reports, ledgers).
PATH = re.compile(r"(?<![\w/])(?:/|\.{1,2}/)?[\w.-]+(?:/[\w.-]+)+")


@pytest.mark.slow
def test_readme_tour_matches_real_runs_and_reads_at_80_columns(tmp_path: Path) -> None:
    """Each command as the README shows it (100 columns), then again at 80 columns, piped:
    no cell cut with "…", no table line wider than 80, every path of the README's run whole.
    One test runs the tour twice (not three times): the 100-column run is the wide one."""
    folder = make_tour_folder(tmp_path / "readme")
    narrow_folder = make_tour_folder(tmp_path / "narrow")
    blocks = tour_blocks(README.read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    for steps in blocks:
        for command, expected in steps:
            wide = run(command, folder)
            assert wide == expected, f"README drifted at: {command}"
            narrow = run(command, narrow_folder, columns=80)
            assert "…" not in narrow, f"{command}: a cell was cut at 80 columns"
            tables = [line for line in narrow.splitlines() if line[:1] in "┏┃┡│└├"]
            assert all(len(line) <= 80 for line in tables), command
            for path in set(PATH.findall(wide)):
                assert path in narrow, f"{command}: {path} split at 80 columns"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_readme_tour.py --write")
    with tempfile.TemporaryDirectory() as tmp:
        README.write_text(
            regenerate(README.read_text(encoding="utf-8"), make_tour_folder(Path(tmp))),
            encoding="utf-8",
        )
