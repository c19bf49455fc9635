"""Running a user's equations (a student's submission) isolated from the machine that grades them.

Every run of a user's file — a Python worker (:mod:`crossdyn.equations.python_worker`) or an ``octave-cli``
session — is started through :func:`launch`, which returns what to hand to :class:`subprocess.Popen`:

* **isolation** (Linux, where available): the command runs under bubblewrap (``bwrap``) with the whole filesystem
  mounted read-only except its own working folder (a fresh temporary folder, the submission copied in; HOME and
  TMPDIR are inside it: a blocked write anywhere else fails with EROFS, which names itself), no network (``--unshare-net``: only its own loopback), its own PID namespace and session, and
  ``--die-with-parent``.  Folders the sandbox's user cannot enter (``/root`` when crossdyn runs from a home folder)
  are replaced by an empty tmpfs, with only the Python installation and crossdyn bound back, read-only.  Without
  bubblewrap, ``unshare --net`` gives no network (the filesystem stays writable to the sandbox's user);
* **limits** (every platform with :mod:`resource`): address space, CPU seconds, processes and file size
  (:class:`Limits`; RLIMIT_AS, RLIMIT_CPU, RLIMIT_NPROC, RLIMIT_FSIZE);
* **an unprivileged user**: RLIMIT_NPROC is not enforced for root, so when crossdyn runs as root the child runs
  as a fresh unprivileged uid (:data:`UID_BASE` + a per-launch number; ``setpriv`` after bubblewrap has set up its
  mounts, or ``setuid`` in the child), its working folder chowned to it.  One uid per launch: the process count of
  one submission never eats into another's.  As a normal user, RLIMIT_NPROC counts all of that user's processes,
  so the limit set is (the user's processes now + the limit);
* **a reduced environment**: PATH, LANG/LC_*, a fresh HOME inside the working folder, TMPDIR, the crossdyn process
  tag (:data:`crossdyn.processes.TAG_VARIABLE`), one thread for BLAS/OpenMP, and what ``env_keep`` names — never
  the caller's tokens or credentials.

:class:`Mode`: ``auto`` uses the strongest isolation available and says which (:meth:`Isolation.describe`),
``strict`` raises :class:`~crossdyn.errors.UsageError` naming what is missing when network or filesystem isolation
is not available, ``off`` runs the user's code as before (Python in crossdyn's own process).

What a blocked action looks like from the outside is told by :func:`violation_of_exit`,
:func:`violation_of_exception` and :func:`violation_of_text` ("exceeded 2 GiB", "network is disabled", ...).
"""
from __future__ import annotations

import enum
import errno
import itertools
import os
import re
import shutil
import signal
import stat
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from crossdyn.errors import UsageError

try:
    import resource
except ImportError:  # pragma: no cover - not on Linux/macOS
    resource = None  # type: ignore[assignment]

KiB, MiB, GiB = 1024, 1024**2, 1024**3
UID_BASE = 200_000
"""Sandboxed children run as uid (and gid) UID_BASE + k when crossdyn runs as root (k: a per-launch number)."""
ENVIRONMENT_VARIABLE = "CROSSDYN_SANDBOX"
"""The policy the command line chose, inherited by crossdyn's own child processes (:func:`current`)."""


class Mode(str, enum.Enum):
    """How strongly the user's code is isolated: the strongest available, all of it or an error, none."""

    AUTO = "auto"
    STRICT = "strict"
    OFF = "off"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed child: ``memory`` address space (bytes), ``cpu`` seconds, ``processes``
    (threads count too) and ``file_size`` (bytes, the largest file it may write).

    2 GiB of address space: ``octave-cli`` with a user's file loaded peaks at ~0.18 GiB of address space (VmPeak,
    one BLAS thread), a Python worker importing NumPy and crossdyn at ~0.15 GiB (Linux x86-64, Octave 8, NumPy 2;
    docs/explanation/sandbox.md), so 2 GiB leaves ten times that for the user's arrays and a check's batches."""

    memory: int = 2 * GiB
    cpu: int = 60
    processes: int = 64
    file_size: int = 64 * MiB

    def describe(self) -> str:
        """``"2 GiB, 60 s CPU, 64 processes, 64 MiB files"``."""
        return f"{size_text(self.memory)}, {self.cpu} s CPU, {self.processes} processes, " \
               f"{size_text(self.file_size)} files"

    def to_text(self) -> str:
        """``"memory=2147483648,cpu=60,processes=64,file=67108864"`` (read back by :func:`parse_limits`)."""
        return f"memory={self.memory},cpu={self.cpu},processes={self.processes},file={self.file_size}"


@dataclass(frozen=True)
class Policy:
    """What the command line asked for: the :class:`Mode` and the :class:`Limits`."""

    mode: Mode = Mode.AUTO
    limits: Limits = field(default_factory=Limits)

    def to_text(self) -> str:
        return f"{self.mode.value};{self.limits.to_text()}"


@dataclass(frozen=True)
class Isolation:
    """The isolation in force: ``mechanism`` ("bubblewrap" | "unshare" | "limits only" | "off"), whether the
    network is blocked and the filesystem read-only outside the child's folder, the limits (None when off)."""

    mechanism: str
    network_blocked: bool
    filesystem_read_only: bool
    limits: Limits | None

    def describe(self) -> str:
        """``"bubblewrap: no network, read-only filesystem; 2 GiB, 60 s CPU, 64 processes, 64 MiB files"``."""
        if self.mechanism == "off":
            return "off: the user's code runs with crossdyn's rights (--sandbox off)"
        what = ["no network" if self.network_blocked else "network open",
                "read-only filesystem" if self.filesystem_read_only else "writable filesystem"]
        limits = self.limits.describe() if self.limits is not None else "no limits"
        if self.mechanism == "limits only":
            return f"limits only: {', '.join(what)}; {limits}"
        return f"{self.mechanism}: {', '.join(what)}; {limits}"

    @property
    def active(self) -> bool:
        return self.mechanism != "off"


def size_text(n: int) -> str:
    """Bytes as ``"2 GiB"``, ``"64 MiB"``, ``"1.5 GiB"`` (binary units)."""
    for unit, size in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= size:
            v = n / size
            return f"{v:g} {unit}" if v == int(v) else f"{v:.3g} {unit}"
    return f"{n} B"


# ============================================================================ parsing (the command line)

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgt]?i?b?)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": KiB, "kb": KiB, "kib": KiB, "m": MiB, "mb": MiB, "mib": MiB, "g": GiB, "gb": GiB,
          "gib": GiB, "t": 1024 * GiB, "tb": 1024 * GiB, "tib": 1024 * GiB}


def parse_size(text: str, option: str) -> int:
    """``"2GiB"``, ``"512M"``, ``"1073741824"`` → bytes; :class:`UsageError` naming ``option`` and the value."""
    m = _SIZE.match(str(text))
    unit = (m.group(2) or "").lower() if m else ""
    if m is None or unit not in _UNITS:
        raise UsageError(f"{option}: expected a size such as 2GiB, 512MiB or a number of bytes, got {text!r}")
    value = int(float(m.group(1)) * _UNITS[unit])
    if value < MiB:
        raise UsageError(f"{option}: must be at least 1 MiB, got {text!r}")
    return value


def parse_count(text: str, option: str, minimum: int = 1) -> int:
    """A positive whole number (``"60"``, ``"60s"`` for seconds); :class:`UsageError` naming ``option``."""
    s = str(text).strip().lower().removesuffix("s").strip()
    if not s.isdigit() or int(s) < minimum:
        raise UsageError(f"{option}: expected a whole number >= {minimum}, got {text!r}")
    return int(s)


def parse_limits(text: str, option: str = "--limits", base: Limits | None = None) -> Limits:
    """``"memory=2GiB,cpu=60,processes=64,file=64MiB"`` (any subset) → :class:`Limits` over ``base``."""
    out = base or Limits()
    keys = {"memory": "memory", "cpu": "cpu", "processes": "processes", "file": "file_size", "file_size": "file_size"}
    for item in filter(None, (s.strip() for s in str(text).split(","))):
        key, sep, value = item.partition("=")
        key = key.strip().lower()
        if not sep or key not in keys:
            raise UsageError(f"{option}: expected KEY=VALUE with KEY one of memory, cpu, processes, file; "
                             f"got {item!r}")
        name = keys[key]
        parsed = parse_size(value, f"{option} {key}") if name in ("memory", "file_size") else \
            parse_count(value, f"{option} {key}")
        out = replace(out, **{name: parsed})
    return out


def parse_mode(text: str, option: str = "--sandbox") -> Mode:
    try:
        return Mode(str(text).strip().lower())
    except ValueError:
        raise UsageError(f"{option}: expected one of auto, strict, off; got {text!r}") from None


def current() -> Policy:
    """The policy in force: what the command line set (:data:`ENVIRONMENT_VARIABLE`, inherited by crossdyn's own
    worker processes), else ``auto`` with the default limits."""
    text = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if not text:
        return Policy()
    mode, _, limits = text.partition(";")
    return Policy(parse_mode(mode, ENVIRONMENT_VARIABLE), parse_limits(limits, ENVIRONMENT_VARIABLE))


def set_current(policy: Policy) -> None:
    """Make ``policy`` the one :func:`current` returns, here and in every process crossdyn starts."""
    os.environ[ENVIRONMENT_VARIABLE] = policy.to_text()


# ============================================================================ what is available

def _bwrap() -> str | None:
    exe = shutil.which("bwrap")
    return exe if exe and _works(tuple(_bwrap_args(exe, Path("/"), {}, ()) + ["true"])) else None


_WORKS: dict[tuple[str, ...], bool] = {}


def _works(argv: tuple[str, ...]) -> bool:
    """Whether ``argv`` runs and exits 0 here (once per process: user namespaces may be disabled)."""
    if argv not in _WORKS:
        import subprocess
        try:
            _WORKS[argv] = subprocess.run(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, timeout=20).returncode == 0
        except (OSError, subprocess.SubprocessError):
            _WORKS[argv] = False
    return _WORKS[argv]


def _unshare() -> str | None:
    exe = shutil.which("unshare")
    return exe if exe and _works((exe, "--net", "--", "true")) else None


def isolation(policy: Policy | None = None) -> Isolation:
    """The isolation :func:`launch` gives under ``policy`` here: the strongest available for ``auto``;
    :class:`UsageError` naming what is missing for ``strict``."""
    policy = policy or current()
    if policy.mode == Mode.OFF:
        return Isolation("off", False, False, None)
    if not sys.platform.startswith("linux"):
        found = Isolation("limits only", False, False, policy.limits if resource is not None else None)
    elif _bwrap() is not None:
        found = Isolation("bubblewrap", True, True, policy.limits)
    elif _unshare() is not None:
        found = Isolation("unshare", True, False, policy.limits)
    else:
        found = Isolation("limits only", False, False, policy.limits)
    if policy.mode == Mode.STRICT and not (found.network_blocked and found.filesystem_read_only):
        missing = [w for w, ok in (("network isolation", found.network_blocked),
                                   ("a read-only filesystem", found.filesystem_read_only)) if not ok]
        raise UsageError(f"--sandbox strict: {' and '.join(missing)} not available here ({found.describe()}); "
                         "install bubblewrap (apt-get install bubblewrap) and allow user namespaces, or use "
                         "--sandbox auto")
    return found


# ============================================================================ launching

@dataclass(frozen=True)
class Launch:
    """What to start: ``Popen(launch.argv, env=launch.env, cwd=launch.cwd, preexec_fn=launch.preexec_fn,
    start_new_session=True)``; ``isolation`` says what protects the caller."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    preexec_fn: Callable[[], None] | None
    isolation: Isolation
    uid: int | None = None

    def popen_kwargs(self) -> dict:
        return {"env": self.env, "cwd": self.cwd, "preexec_fn": self.preexec_fn, "start_new_session": True}


_counter = itertools.count()
TAG_VARIABLE = "CROSSDYN_RUN_TAG"
"""The process tag of :mod:`crossdyn.processes` (its ``TAG_VARIABLE``, a peer module: the name is repeated here and a
test holds them equal): kept, so that a grader's :func:`crossdyn.processes.end_tagged` finds sandboxed children."""
KEPT = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", TAG_VARIABLE)


def environment(home: Path, tag: str | None, keep: Iterable[str] = (), extra: Mapping[str, str] | None = None,
                source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The reduced environment of a sandboxed child (see the module docstring)."""
    source = os.environ if source is None else source
    env = {k: v for k, v in source.items() if k in KEPT or k.startswith("LC_") or k in set(keep)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=str(home), TMPDIR=str(home.parent / "tmp"), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1")
    if tag is None:
        tag = source.get(TAG_VARIABLE)
    if tag:
        env[TAG_VARIABLE] = tag
    env.update(extra or {})
    return env


def _traversable(path: Path) -> Path | None:
    """The first folder on ``path`` (from /; ``path`` itself when a folder) that others cannot enter (no o+x), or
    None.  A file's own mode does not count: it is bound, not entered."""
    cur = Path("/")
    for part in path.parts[1:]:
        cur = cur / part
        try:
            mode = os.stat(cur).st_mode
            if stat.S_ISDIR(mode) and not mode & 0o001:
                return cur
        except OSError:
            return None
    return None


def _needed_paths() -> list[Path]:
    """What a sandboxed child must read: the Python installation, crossdyn and NumPy."""
    # crossdyn's package folder itself, not the checkout above it: a checkout others cannot enter (a clone in a
    # `mktemp -d` folder, mode 0700) bound as it is stays closed to the child's uid; under the tmpfs that hides it,
    # the package folder bound alone is reached through enterable folders
    paths = {Path(sys.base_prefix), Path(sys.prefix), Path(sys.exec_prefix), Path(__file__).resolve().parent}
    try:
        import numpy
        # where NumPy is found and, when that is a link (a site folder of symlinks, a .pth to another environment),
        # where its files are: a folder others cannot enter holding the target stays closed to the child otherwise
        paths.add(Path(numpy.__file__).parents[1])
        paths.add(Path(numpy.__file__).resolve().parents[1])
    except ImportError:  # pragma: no cover
        pass
    return sorted(p.resolve() for p in paths)


def _bwrap_args(exe: str, workdir: Path, env: Mapping[str, str], extra_ro: Iterable[Path],
                writable: Iterable[Path] = ()) -> list[str]:
    """bubblewrap's arguments: / read-only (/tmp too: the child's TMPDIR is in its folder), folders others cannot
    enter hidden under a tmpfs with only what the child needs bound back (its ancestors made enterable),
    ``workdir`` and the ``writable`` files read-write, no network."""
    args = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    hidden: list[Path] = []
    binds: list[tuple[str, Path]] = []
    for kind, p in [*(("--ro-bind", p) for p in [*_needed_paths(), *extra_ro]), ("--bind", workdir),
                    *(("--bind", p) for p in writable)]:
        top = _traversable(p)
        if top is not None and not any(top == h or h in top.parents for h in hidden):
            hidden.append(top)
            args += ["--tmpfs", str(top)]
        if top is not None or kind == "--bind":
            binds.append((kind, p))
    for kind, p in binds:
        under = next((h for h in hidden if h in p.parents or h == p), None)
        for anc in reversed(p.parents):           # the folders between the tmpfs and p: enterable by the child
            if under is not None and under in anc.parents:
                args += ["--perms", "0755", "--dir", str(anc)]
        args += [kind, str(p), str(p)]
    args += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--die-with-parent",
             "--new-session", "--chdir", str(workdir)]
    return args


def _uid_for_launch() -> int:
    return UID_BASE + (os.getpid() % 50_000) * 16 + next(_counter) % 16


def _own_processes() -> int:
    """How many processes (threads included) this user has now (Linux /proc; else 0)."""
    uid, count = os.getuid(), 0
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if entry.stat().st_uid == uid:
                count += sum(1 for _ in (entry / "task").iterdir())
        except OSError:
            continue
    return count


def _limiter(limits: Limits, nproc: int, uid: int | None) -> Callable[[], None]:
    def preexec() -> None:                       # runs in the child between fork and exec
        if resource is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
            # the soft limit sends SIGXCPU (reported as "exceeded N s CPU"); the hard one SIGKILL 5 s later
            resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu, limits.cpu + 5))
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size, limits.file_size))
            resource.setrlimit(resource.RLIMIT_NPROC, (nproc, nproc))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if uid is not None:                      # no bubblewrap: drop root here
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
    return preexec


def launch(argv: list[str], workdir: str | Path, policy: Policy | None = None, *, env_keep: Iterable[str] = (),
           extra_env: Mapping[str, str] | None = None, tag: str | None = None,
           read_only: Iterable[str | Path] = (), writable: Iterable[str | Path] = ()) -> Launch:
    """What to :class:`subprocess.Popen` to run ``argv`` isolated under ``policy`` (default :func:`current`),
    with ``workdir`` (created if missing) its only writable folder and working directory.

    ``env_keep``: names of the caller's environment variables the child needs; ``extra_env``: variables set for
    it; ``read_only``: more paths it must read (bound back when under a folder it could not enter);
    ``writable``: existing files outside ``workdir`` it may write in place (bound read-write, given to the
    sandbox's user; a grader's progress file, :mod:`crossdyn.equations.progress`) — nothing else outside."""
    policy = policy or current()
    iso = isolation(policy)
    workdir = Path(workdir).resolve()
    home = workdir / "home"
    home.mkdir(parents=True, exist_ok=True)
    (workdir / "tmp").mkdir(exist_ok=True)
    env = environment(home, tag, env_keep, extra_env)
    if not iso.active:
        return Launch(list(argv), dict(os.environ, **(extra_env or {})), str(workdir), None, iso)
    limits = policy.limits
    root = os.getuid() == 0
    uid = _uid_for_launch() if root else None
    files = [Path(p).resolve() for p in writable if Path(p).is_file()]
    if uid is not None:
        for p in [workdir, *workdir.rglob("*"), *files]:
            os.chown(p, uid, uid, follow_symlinks=False)
    nproc = limits.processes if root else _own_processes() + limits.processes
    command = list(argv)
    drop_in_child = uid
    if iso.mechanism == "bubblewrap":
        exe = shutil.which("bwrap") or "bwrap"
        wrapper = _bwrap_args(exe, workdir, env, [Path(p).resolve() for p in read_only], files)
        if uid is not None:       # bwrap needs root to set up its mounts; setpriv drops it inside
            wrapper += ["--", shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}",
                        "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"]
            drop_in_child = None
        else:
            wrapper += ["--"]
        command = wrapper + command
    elif iso.mechanism == "unshare":
        command = [shutil.which("unshare") or "unshare", "--net", "--"]
        if uid is not None:       # unshare needs root for the namespace; setpriv drops it inside
            command += [shutil.which("setpriv") or "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                        "--inh-caps=-all", "--bounding-set=-all", "--"]
            drop_in_child = None
        command += list(argv)
    return Launch(command, env, str(workdir), _limiter(limits, nproc, drop_in_child), iso, uid)


# ============================================================================ what a blocked action looks like

def violation_of_exit(returncode: int | None, limits: Limits | None) -> str | None:
    """The limit a child's death by signal says it broke (SIGXCPU, SIGKILL after the CPU limit, SIGXFSZ), or
    None.  ``returncode`` as :class:`subprocess.Popen` gives it (``-signal``), or bubblewrap's 128 + signal."""
    if limits is None or returncode is None:
        return None
    if returncode > 128:          # bubblewrap (the sandbox's PID 1) exits with 128 + the child's signal
        returncode = 128 - returncode
    if returncode >= 0:
        return None
    sig = -returncode
    if sig == signal.SIGXCPU:
        return f"exceeded {limits.cpu} s CPU"
    if sig == signal.SIGXFSZ:
        return f"exceeded {size_text(limits.file_size)} file size"
    if sig == signal.SIGKILL:
        return f"killed (exceeded {limits.cpu} s CPU or {size_text(limits.memory)} memory)"
    return None


_WRITE_BLOCKED = {errno.EROFS: "read-only file system", errno.EACCES: "permission denied",
                  errno.EPERM: "operation not permitted"}
_NETWORK = {errno.ENETUNREACH, errno.ECONNREFUSED, errno.EHOSTUNREACH, errno.EAFNOSUPPORT, errno.ENETDOWN,
            errno.EADDRNOTAVAIL}


def violation_of_exception(exc: BaseException | None, iso: Isolation) -> str | None:
    """What a blocked action raised inside the user's code (MemoryError, OSError's errno), or None: the reason
    as the grade shows it ("exceeded 2 GiB", "network is disabled", ...).  A host name that does not resolve
    (``socket.gaierror``: the sandbox has no network, so no name server) is a network attempt too, also wrapped
    (urllib's ``URLError`` keeps it as ``reason``; a library's own error as its cause or context)."""
    if exc is None or not iso.active:
        return None
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:      # the error and what it wraps
        seen.add(id(exc))
        found = _violation_of_one(exc, iso)
        if found:
            return found
        reason = getattr(exc, "reason", None)
        exc = reason if isinstance(reason, BaseException) else exc.__cause__ or exc.__context__
    return None


def _violation_of_one(exc: BaseException, iso: Isolation) -> str | None:
    """:func:`violation_of_exception` of one exception, not what it wraps."""
    import socket

    limits = iso.limits or Limits()
    if isinstance(exc, MemoryError):
        return f"exceeded {size_text(limits.memory)}"
    if isinstance(exc, (socket.gaierror, socket.herror)):
        return "network is disabled" if iso.network_blocked else None
    if isinstance(exc, OSError):
        code = exc.errno
        if code == errno.EAGAIN or isinstance(exc, BlockingIOError):
            return f"exceeded {limits.processes} processes"
        if code in _NETWORK or "socket" in type(exc).__name__.lower():
            return "network is disabled" if iso.network_blocked else None
        if code in _WRITE_BLOCKED:
            return f"write outside its folder blocked: {_WRITE_BLOCKED[code]}"
        if code == errno.EFBIG:
            return f"exceeded {size_text(limits.file_size)} file size"
    return None


_TEXT = [
    (re.compile(r"out of memory|memory exhausted|std::bad_alloc|cannot allocate memory", re.I),
     lambda lim, iso: f"exceeded {size_text(lim.memory)}"),
    (re.compile(r"resource temporarily unavailable|cannot fork|can't fork|fork failed", re.I),
     lambda lim, iso: f"exceeded {lim.processes} processes"),
    (re.compile(r"read-only file system", re.I),
     lambda lim, iso: "write outside its folder blocked: read-only file system"),
    (re.compile(r"permission denied", re.I),
     lambda lim, iso: "write outside its folder blocked: permission denied"),
    (re.compile(r"connection refused|network is unreachable|couldn't connect|could not resolve|"
                r"failed to connect|name resolution|name or service not known|nodename nor servname|couldn.t resolve", re.I),
     lambda lim, iso: "network is disabled" if iso.network_blocked else None),
    (re.compile(r"file too large", re.I), lambda lim, iso: f"exceeded {size_text(lim.file_size)} file size"),
]


def violation_of_text(text: str, iso: Isolation) -> str | None:
    """What a blocked action's error text says (Octave's messages, a shell's), or None."""
    if not iso.active or not text:
        return None
    limits = iso.limits or Limits()
    for pattern, reason in _TEXT:
        if pattern.search(text):
            found = reason(limits, iso)
            if found:
                return found
    return None


# ============================================================================ attempts the user's code swallowed

MAX_RECORDED = 20
"""Blocked attempts one sandboxed child records (the first ones, each once)."""
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_VERBS = {"open": "write", "os.mkdir": "create folder", "os.remove": "remove", "os.rename": "rename",
          "os.rmdir": "remove folder"}


class AttemptRecorder:
    """An audit hook (:func:`sys.addaudithook`, PEP 578) for a sandboxed Python child: it records every action the
    sandbox blocks — a connection or a host-name look-up with the network off, a write (``open`` for writing,
    ``mkdir``, ``remove``, ``rename``) outside the child's folder with the filesystem read-only — whether or not the
    user's code catches the error (a ``try``/``except`` around it leaves no trace otherwise).  The hook sees the
    attempt before the system call: it records what the isolation in force blocks, not what the call returned.
    ``allowed``: paths outside the folder the child may write (its progress file); ``/dev`` is not counted."""

    EVENTS = frozenset({"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex",
                        "socket.gethostbyaddr", "open", "os.mkdir", "os.remove", "os.rename", "os.rmdir"})

    def __init__(self, folder: str | Path, iso: Isolation, allowed: Iterable[str] = ()):
        self.folder = os.path.realpath(str(folder))
        self.network = iso.active and iso.network_blocked
        self.files = iso.active and iso.filesystem_read_only
        self.allowed = {os.path.realpath(str(a)) for a in allowed if a}
        self.found: list[str] = []
        self.sent = 0

    def __call__(self, event: str, args: tuple) -> None:
        if event not in self.EVENTS or len(self.found) >= MAX_RECORDED:
            return
        try:                                    # an audit hook that raises would abort the user's call: never
            what = self._attempt(event, args)
        except Exception:
            return
        if what and what not in self.found:
            self.found.append(what)

    def _attempt(self, event: str, args: tuple) -> str | None:
        if event.startswith("socket."):          # the child's own loopback is open: not an attempt at the network
            if not self.network or str(args[1][0] if event == "socket.connect" and isinstance(args[1], tuple)
                                       else args[0]).startswith(("127.", "::1", "localhost")):
                return None
            if event == "socket.connect":
                address = args[1]
                if not isinstance(address, tuple):     # a Unix socket's path: not the network
                    return None
                return f"connect to {address[0]}:{address[1]}" if len(address) > 1 else f"connect to {address[0]}"
            return f"look up host name {args[0]}"
        if not self.files:
            return None
        path = args[0]
        if isinstance(path, int) or path is None:      # a file descriptor: opened before
            return None
        if event == "open" and not (any(c in str(args[1] or "") for c in "wax+") or int(args[2] or 0) & _WRITE_FLAGS):
            return None                                 # opened for reading
        target = os.path.realpath(os.fsdecode(path))
        if os.path.commonpath([target, self.folder]) == self.folder or target in self.allowed \
                or os.path.commonpath([target, "/dev"]) == "/dev":
            return None
        return f"{_VERBS[event]} {target}"

    def new(self) -> list[str]:
        """The attempts recorded since the last call."""
        out = self.found[self.sent:]
        self.sent = len(self.found)
        return out
