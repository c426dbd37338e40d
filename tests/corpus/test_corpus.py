"""The bad-input corpus: every case in cases/*.yaml run as `python -m trainbudget` (issue 15).

A case gives `args` (placeholders: {in} the committed inputs, {tmp} the case's own folder,
{ledger} its ledger, {ex} examples/, {demo} the bundled demo data, {fx} tests/fixtures,
{gen:NAME} a file made by generators.NAME), the `exit` code, and `stderr`: on an error, a
pattern searched in its one line (which must start `trainbudget: error: `); on exit 0, a
pattern the warnings must match, or null. `ledger`: `unchanged`, `absent` (no ledger file
after the run), `any` (exit 0 only: not checked), or a map table -> rows added (other tables
unchanged; `any`: a derived table the run may refresh). Optional: `state` (fresh | planned |
seeded | none: the ledger before), `before` (commands run first), `check` (a Python
expression over the stdout JSON `j`), `absent_paths`, `modes` (path -> octal permission
bits), `stdout` (`devfull`, or `closed`: a pipe whose reader left before anything was
written), `hold_ledger` (another process holds the ledger open), `timeout`,
`note`, `known_failing` (a strict xfail: delete it when the fix lands).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest
import yaml

HERE = Path(__file__).resolve().parent


def _load_generators():
    import importlib.util

    spec = importlib.util.spec_from_file_location("corpus_generators", HERE / "generators.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generators = _load_generators()
REPO = HERE.parents[1]
PLACES = {
    "in": HERE / "inputs",
    "ex": REPO / "examples",
    "demo": REPO / "src" / "trainbudget" / "demo_data",
    "fx": REPO / "tests" / "fixtures",
}
KINDS = ("fresh", "planned", "seeded", "none")
EXIT_CODES = (0, 1, 2)
KEYS = {"id", "kind", "args", "exit", "stderr", "ledger", "state", "before", "check", "modes",
        "absent_paths", "stdout", "hold_ledger", "timeout", "known_failing", "note"}  # fmt: skip


def load_cases() -> list[dict]:
    """Every case of cases/*.yaml, in file order, each with its `kind` defaulted to the file."""
    cases: list[dict] = []
    for path in sorted((HERE / "cases").glob("*.yaml")):
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            case.setdefault("kind", path.stem)
            cases.append(case)
    return cases


CASES = load_cases()


def test_corpus_is_well_formed() -> None:
    """Ids unique, keys known, exit codes 0/1/2, patterns compile, at least 150 cases."""
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    assert len(CASES) >= 150
    for case in CASES:
        assert set(case) <= KEYS, (case["id"], set(case) - KEYS)
        assert case["exit"] in EXIT_CODES, case["id"]
        assert case.get("state", "fresh") in KINDS, case["id"]
        if case["exit"] != 0:
            assert case.get("stderr"), f"{case['id']}: an error case needs its stderr pattern"
        re.compile(case.get("stderr") or "")
        ledger = case.get("ledger", "unchanged")
        assert ledger in ("unchanged", "absent", "any") or isinstance(ledger, dict), case["id"]
        assert ledger != "any" or case["exit"] == 0, f"{case['id']}: a failed run changes nothing"


def _run(args: list[str], env: dict[str, str], cwd: Path, timeout: float, stdout=None):
    return subprocess.run(
        [sys.executable, "-m", "trainbudget", *args],
        stdout=stdout if stdout is not None else subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=env,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def _env(ledger: Path) -> dict[str, str]:
    return {**os.environ, "TRAINBUDGET_LEDGER": str(ledger), "COLUMNS": "200"}


def row_counts(ledger: Path) -> dict[str, int] | None:
    """Rows per table of a ledger, read-only; None when there is no ledger file."""
    import duckdb

    if not ledger.exists():
        return None
    con = duckdb.connect(str(ledger), read_only=True)
    try:
        names = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = 'main' AND table_type = 'BASE TABLE'"
        ).fetchall()]  # fmt: skip
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchone()[0] for n in names}
    finally:
        con.close()


@pytest.fixture(scope="module")
def base_ledgers(tmp_path_factory) -> dict[str, Path]:
    """Ledgers built once and copied per case: fresh (migrated, empty), planned (the example
    plan recorded) and seeded (the examples reconciled, a pilot landed, a plan recorded, one
    admission)."""
    root = tmp_path_factory.mktemp("corpus-ledgers")
    fresh, planned = root / "fresh.duckdb", root / "planned.duckdb"
    seeded = root / "seeded.duckdb"
    ex = PLACES["ex"]
    for ledger, steps in (
        (fresh, [["ledger", "init"]]),
        (planned, [
            ["ledger", "init"],
            ["campaign", f"{ex}/demo-7b.plan.yaml", "--record", "--json"],
        ]),
        (seeded, [
            ["ledger", "init"],
            ["reconcile", "--sacct", f"{ex}/reconcile/sacct.psv", "--registry",
             f"{ex}/reconcile/registry.csv", "--progress", f"{ex}/reconcile/progress.jsonl",
             "--manifest", f"{ex}/reconcile/manifest.csv", "--json"],
            ["pilot", f"{ex}/pilot-7b.steps.csv", "--json"],
            ["campaign", f"{ex}/demo-7b.plan.yaml", "--record", "--json"],
            ["admit", "--estimated-gpu-hours", "100", "--budget-gpu-hours", "200",
             "--expected-interruptions", "1", "--json"],
        ]),
    ):  # fmt: skip
        for args in steps:
            proc = _run(args, _env(ledger), root, 120)
            assert proc.returncode == 0, (args, proc.stderr.decode(errors="replace"))
    return {"fresh": fresh, "planned": planned, "seeded": seeded}


def _fill(text: str, places: dict[str, Path], tmp: Path) -> str:
    def gen(match: re.Match[str]) -> str:
        return str(getattr(generators, match.group(1))(tmp))

    text = re.sub(r"\{gen:(\w+)\}", gen, text)
    for key, value in places.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _hold(ledger: Path) -> subprocess.Popen[bytes]:
    """Another process with the ledger open for writing, until killed."""
    code = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(120)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code, str(ledger)], stdout=subprocess.PIPE)
    assert holder.stdout.readline().strip() == b"held"
    return holder


@dataclass
class Outcome:
    """What one case did: exit code, output, ledger row counts before and after."""

    code: int | None = None
    stdout: bytes = b""
    stderr: str = ""
    before: dict[str, int] | None = None
    after: dict[str, int] | None = None
    places: dict[str, Path] = field(default_factory=dict)
    timed_out: bool = False


def execute(case: dict, base: dict[str, Path], tmp: Path) -> Outcome:
    """Run one case in its own folder: ledger copy, `before` steps, the command, counts."""
    state = case.get("state", "fresh")
    ledger = tmp / "ledger" / "ledger.duckdb"
    ledger.parent.mkdir(parents=True)
    if state != "none":
        shutil.copyfile(base[state], ledger)
    work = tmp / "work"
    work.mkdir()
    places = {**PLACES, "tmp": work, "ledger": ledger}
    env = _env(ledger)
    for step in case.get("before", []):
        proc = _run([_fill(a, places, work) for a in step], env, work, 120)
        assert b"Traceback" not in proc.stderr, proc.stderr.decode(errors="replace")
    outcome = Outcome(before=row_counts(ledger), places=places)
    args = [_fill(str(a), places, work) for a in case["args"]]
    holder = _hold(ledger) if case.get("hold_ledger") else None
    try:
        if case.get("stdout") == "devfull":
            with open("/dev/full", "wb") as full:
                proc = _run(args, env, work, case.get("timeout", 60), stdout=full)
        elif case.get("stdout") == "closed":
            read_end, write_end = os.pipe()
            os.close(read_end)  # `| head -0`: the reader is gone before the first byte
            with os.fdopen(write_end, "wb") as closed:
                proc = _run(args, env, work, case.get("timeout", 60), stdout=closed)
        else:
            proc = _run(args, env, work, case.get("timeout", 60))
        outcome.code, outcome.stdout = proc.returncode, proc.stdout or b""
        outcome.stderr = proc.stderr.decode("utf-8", errors="replace")
    except subprocess.TimeoutExpired as exc:
        outcome.timed_out = True
        outcome.stderr = (exc.stderr or b"").decode("utf-8", errors="replace")
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
    outcome.after = row_counts(ledger)
    return outcome


def _selected_cases(session: pytest.Session) -> list[dict]:
    return [
        item.callspec.params["case"]
        for item in session.items
        if getattr(item, "callspec", None) is not None and "case" in item.callspec.params
        and item.path == Path(__file__)
    ]  # fmt: skip


@pytest.fixture(scope="module")
def outcomes(request, base_ledgers, tmp_path_factory) -> dict[str, Outcome]:
    """Every selected case run once, in parallel (TRAINBUDGET_CORPUS_JOBS, default the CPUs):
    each is a subprocess in its own folder, so they cannot disturb each other."""
    cases = _selected_cases(request.session)
    jobs = int(os.environ.get("TRAINBUDGET_CORPUS_JOBS", os.cpu_count() or 2))

    def one(case: dict) -> tuple[str, Outcome | BaseException]:
        try:
            return case["id"], execute(case, base_ledgers, tmp_path_factory.mktemp("case"))
        except BaseException as exc:  # reported by the case's own test
            return case["id"], exc

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return dict(pool.map(one, cases))


# Slow: 401 processes, each paying the CLI's start-up (about 5 minutes on 2 cores); `make
# test` runs them, `make test-fast` leaves them to it (test_corpus_is_well_formed still runs).
@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            id=c["id"],
            marks=[pytest.mark.xfail(strict=True, reason=c["known_failing"])]
            if c.get("known_failing")
            else [],
        )
        for c in CASES
    ],
)
def test_case(case: dict, outcomes: dict[str, Outcome]) -> None:
    outcome = outcomes[case["id"]]
    if isinstance(outcome, BaseException):
        raise outcome
    err, out = outcome.stderr, outcome.stdout
    assert not outcome.timed_out, f"no answer in {case.get('timeout', 60)} s"
    assert "Traceback" not in err and b"Traceback" not in out, err
    assert outcome.code == case["exit"], f"exit {outcome.code}, stderr: {err!r}"
    pattern = case.get("stderr")
    if case["exit"] != 0:
        assert out == b"", f"stdout not empty on error: {out[:300]!r}"
        lines = err.splitlines()
        assert len(lines) == 1, f"stderr is not one line: {err!r}"
        assert lines[0].startswith("trainbudget: error: "), lines[0]
        assert re.search(pattern, lines[0]), f"{lines[0]!r} !~ {pattern!r}"
    elif pattern is not None:
        assert re.search(pattern, err), f"{err!r} !~ {pattern!r}"
    if case.get("check"):
        j = orjson.loads(out)
        assert eval(case["check"], {"abs": abs, "len": len, "sum": sum, "any": any, "all": all},
                    {"j": j}), f"check {case['check']!r} failed on {out[:600]!r}"  # fmt: skip
    for path in case.get("absent_paths", []):
        filled = _fill(path, outcome.places, outcome.places["tmp"])
        assert not Path(filled).exists(), f"{filled} was written"
    for path, mode in case.get("modes", {}).items():
        filled = Path(_fill(path, outcome.places, outcome.places["tmp"]))
        assert oct(filled.stat().st_mode & 0o777) == oct(int(mode, 8)), f"{filled} mode"
    _check_ledger(case.get("ledger", "unchanged"), outcome.before, outcome.after)


def _check_ledger(expect, before: dict[str, int] | None, after: dict[str, int] | None) -> None:
    if expect == "absent":
        assert after is None, "the run created a ledger"
        return
    if expect == "any":  # a successful end-to-end run (checked by its own tests)
        return
    if expect == "unchanged":
        assert after == before, _diff(before, after)
        return
    assert before is not None and after is not None and set(after) == set(before)
    free = {t for t, n in expect.items() if n == "any"}  # derived tables a run refreshes
    added = {t: after[t] - before[t] for t in after if after[t] != before[t] and t not in free}
    wanted = {t: n for t, n in expect.items() if n != 0 and t not in free}
    assert added == wanted, f"rows added {added}, expected {wanted}"


def _diff(before: dict[str, int] | None, after: dict[str, int] | None) -> str:
    if before is None or after is None:
        return f"ledger before {before is not None}, after {after is not None}"
    return str({t: (before.get(t), after.get(t)) for t in after if before.get(t) != after.get(t)})
