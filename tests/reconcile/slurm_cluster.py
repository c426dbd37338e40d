"""A real single-node Slurm for tests: MariaDB, munged, slurmdbd, slurmctld, slurmd.

Debian's slurm-wlm packages (slurmctld slurmd slurmdbd slurm-client munge mariadb-server)
must be installed and the tests run as root; .ci/run installs them. Everything lives in a
temporary folder (SLURM_CONF points there) on free ports; stop() ends only what start() began.

Every folder and file a daemon checks gets its mode set explicitly (a chmod after mkdir), and
every daemon and client starts with umask 022: the pytest process's umask may be anything
(an in-process run can tighten it, and `mkdir(exist_ok=True)` never fixes a mode).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

PACKAGES = "slurmctld slurmd slurmdbd slurm-client munge mariadb-server"
BINARIES = ("slurmctld", "slurmd", "slurmdbd", "sacct", "sbatch", "sacctmgr", "munged",
            "mariadbd", "mariadb-install-db")  # fmt: skip


# The umask every command of the cluster starts with, whatever the pytest process's is.
DAEMON_UMASK = 0o022


def missing_binaries() -> list[str]:
    return [b for b in BINARIES if shutil.which(b, path=os.environ["PATH"] + ":/usr/sbin") is None]


def _folder(path: Path, mode: int, owner: str | None = None) -> Path:
    """`path` as a folder with exactly `mode` (and `owner`), whether or not it existed."""
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(mode)
    if owner is not None:
        shutil.chown(path, owner, owner)
    return path


def _file(path: Path, text: str, mode: int) -> Path:
    """`path` holding `text`, with exactly `mode`."""
    path.write_text(text)
    path.chmod(mode)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(check, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.5)
    raise TimeoutError(f"slurm test cluster: {what} not ready after {seconds} s")


@dataclass
class SlurmCluster:
    """Start with `start()`; `env` runs the client commands against this cluster."""

    root: Path
    name: str = "tbtest"
    env: dict[str, str] = field(default_factory=dict)
    _pids: list[Path] = field(default_factory=list)
    _started_munged: bool = False
    _mariadb: subprocess.Popen[bytes] | None = None

    def run(self, *argv: str, check: bool = True) -> str:
        # cwd: sbatch writes each job's slurm-<id>.out into the submitting directory.
        proc = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120,
                              cwd=self.root, umask=DAEMON_UMASK)  # fmt: skip
        if check and proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr.strip()}")
        return proc.stdout

    def start(self) -> None:
        root = self.root
        for sub in ("state", "spool", "log"):
            _folder(root / sub, 0o755)
        _folder(root / "db", 0o755, "mysql")
        host = socket.gethostname().split(".")[0]
        db_port, dbd_port = _free_port(), _free_port()
        ctld_port, slurmd_port = _free_port(), _free_port()
        self.env = {**os.environ, "SLURM_CONF": str(root / "slurm.conf"),
                    "PATH": os.environ["PATH"] + ":/usr/sbin"}  # fmt: skip
        self._start_munged()
        sock = root / "db" / "mysql.sock"
        self.run("mariadb-install-db", "--user=mysql", f"--datadir={root / 'db'}",
                 "--auth-root-authentication-method=normal")  # fmt: skip
        self._mariadb = subprocess.Popen(
            ["mariadbd", "--user=mysql", f"--datadir={root / 'db'}", f"--socket={sock}",
             f"--port={db_port}", "--bind-address=127.0.0.1",
             f"--pid-file={root / 'db' / 'mariadb.pid'}"],
            stdout=(root / "log" / "mariadb.log").open("w"), stderr=subprocess.STDOUT,
            umask=DAEMON_UMASK,
        )  # fmt: skip
        self._pids.append(root / "db" / "mariadb.pid")
        _wait(sock.exists, "MariaDB")
        grant = (
            "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';"
            "GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"
        )
        self.run("mariadb", f"--socket={sock}", "-u", "root", "-e", grant)
        # slurmdbd refuses a slurmdbd.conf (it holds the database password) others can read.
        _file(
            root / "slurmdbd.conf",
            f"AuthType=auth/munge\nDbdHost=localhost\nDbdPort={dbd_port}\nSlurmUser=root\n"
            f"PidFile={root / 'slurmdbd.pid'}\nLogFile={root / 'log' / 'slurmdbd.log'}\n"
            "StorageType=accounting_storage/mysql\nStorageHost=127.0.0.1\n"
            f"StoragePort={db_port}\nStorageUser=slurm\nStoragePass=slurmpw\n"
            "StorageLoc=slurm_acct_db\n",
            0o600,
        )
        _file(
            root / "slurm.conf",
            f"ClusterName={self.name}\nSlurmctldHost={host}\nSlurmUser=root\n"
            f"SlurmctldPort={ctld_port}\nSlurmdPort={slurmd_port}\nAuthType=auth/munge\n"
            "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            "JobAcctGatherType=jobacct_gather/none\nSelectType=select/cons_tres\n"
            "SelectTypeParameters=CR_Core\nGresTypes=gpu\nMpiDefault=none\n"
            "AccountingStorageType=accounting_storage/slurmdbd\n"
            f"AccountingStorageHost=localhost\nAccountingStoragePort={dbd_port}\n"
            "AccountingStorageTRES=gres/gpu\nJobCompType=jobcomp/none\nReturnToService=2\n"
            f"StateSaveLocation={root / 'state'}\nSlurmdSpoolDir={root / 'spool'}\n"
            f"SlurmctldPidFile={root / 'slurmctld.pid'}\nSlurmdPidFile={root / 'slurmd.pid'}\n"
            f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}\n"
            f"SlurmdLogFile={root / 'log' / 'slurmd.log'}\n"
            f"NodeName={host} CPUs={os.cpu_count() or 1} RealMemory=1000 Gres=gpu:2 State=UNKNOWN\n"
            "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            0o644,
        )
        # Two fake GPUs: any device files will do, Slurm only counts and binds them.
        _file(
            root / "gres.conf",
            f"NodeName={host} Name=gpu File=/dev/null\nNodeName={host} Name=gpu File=/dev/zero\n",
            0o644,
        )
        self.run("slurmdbd")
        self._pids.append(root / "slurmdbd.pid")
        _wait(lambda: subprocess.run(["sacctmgr", "-n", "list", "cluster"], env=self.env,
                                     capture_output=True, umask=DAEMON_UMASK).returncode == 0,
              "slurmdbd")  # fmt: skip
        self.run("sacctmgr", "-i", "add", "cluster", self.name)
        self.run("sacctmgr", "-i", "add", "account", "proj", f"Cluster={self.name}")
        self.run("sacctmgr", "-i", "add", "user", "root", "Account=proj")
        self.run("slurmctld", "-f", str(root / "slurm.conf"))
        self._pids.append(root / "slurmctld.pid")
        self.run("slurmd", "-f", str(root / "slurm.conf"))
        self._pids.append(root / "slurmd.pid")
        _wait(lambda: "idle" in self.run("sinfo", "-h", "-o", "%T", check=False), "slurmd")

    def _start_munged(self) -> None:
        if subprocess.run(["pgrep", "-x", "munged"], capture_output=True).returncode == 0:
            return
        # munged checks its socket folder (0755: every client must enter it), its key (the
        # munge user's alone) and its log and state folders; the package makes the last two.
        _folder(Path("/run/munge"), 0o755, "munge")
        key = Path("/etc/munge/munge.key")
        if not key.exists():
            subprocess.run(["mungekey", "--create"], check=True, umask=DAEMON_UMASK)
        shutil.chown(key, "munge", "munge")
        key.chmod(0o600)
        subprocess.run(["runuser", "-u", "munge", "--", "/usr/sbin/munged"], check=True,
                       umask=DAEMON_UMASK)  # fmt: skip
        self._started_munged = True

    def wait_idle(self, seconds: float = 90) -> None:
        """Wait until no job is pending or running and accounting has caught up."""
        _wait(lambda: self.run("squeue", "-h", check=False).strip() == "", "job queue", seconds)

    def stop(self) -> None:
        for pid_file in reversed(self._pids):
            if pid_file.exists():
                with contextlib.suppress(ValueError, ProcessLookupError):
                    os.kill(int(pid_file.read_text().strip()), 15)
        if self._mariadb is not None:
            self._mariadb.wait(timeout=60)
        munged_pid = Path("/run/munge/munged.pid")
        if self._started_munged and munged_pid.exists():
            with contextlib.suppress(ValueError, ProcessLookupError):
                os.kill(int(munged_pid.read_text().strip()), 15)
