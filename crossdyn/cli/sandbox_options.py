"""The sandbox options every command that runs a user's file shares (``check``, ``check --summary``, ``compare``
with ``user:`` engines): ``--sandbox auto|strict|off`` and the limits (:mod:`crossdyn.sandbox`).

``--limit-memory 2GiB --limit-cpu 60 --limit-processes 64 --limit-file 64MiB`` set one limit each; ``--limits
memory=2GiB,cpu=60,processes=64,file=64MiB`` several at once (the single options win).  A bad value exits 2 naming
the option and the value.  :func:`apply` turns them into the policy of this process and of every process it
starts (:func:`crossdyn.sandbox.set_current`) and returns the isolation in force, whose
:meth:`~crossdyn.sandbox.Isolation.describe` the terminal and the reports state.
"""
from __future__ import annotations

SANDBOX_HELP = ("how the user's file is isolated: auto (the strongest available here: bubblewrap, else unshare, else "
                "limits only; the output says which), strict (exit 2 unless the network and the filesystem outside "
                "its folder can be closed), off (run it with your rights; default auto)")


def add_sandbox_options(p) -> None:
    """Add ``--sandbox`` and the limit options to an argparse parser."""
    g = p.add_argument_group("sandbox (the user's file runs isolated)")
    g.add_argument("--sandbox", default="auto", metavar="auto|strict|off", help=SANDBOX_HELP)
    g.add_argument("--limit-memory", metavar="SIZE", help="address space of the user's code (default 2GiB)")
    g.add_argument("--limit-cpu", metavar="S", help="CPU seconds of the user's code (default 60)")
    g.add_argument("--limit-processes", metavar="N", help="processes and threads it may run (default 64)")
    g.add_argument("--limit-file", metavar="SIZE", help="largest file it may write (default 64MiB)")
    g.add_argument("--limits", metavar="memory=...,cpu=...,processes=...,file=...",
                   help="several limits at once (the single --limit-* options win)")


def policy_of(args):
    """The :class:`crossdyn.sandbox.Policy` the options ask for; UsageError naming a bad option and its value."""
    from crossdyn import sandbox

    mode = sandbox.parse_mode(getattr(args, "sandbox", "auto") or "auto", "--sandbox")
    limits = sandbox.Limits()
    if getattr(args, "limits", None):
        limits = sandbox.parse_limits(args.limits, "--limits", limits)
    from dataclasses import replace
    for option, field, parse in (("limit_memory", "memory", sandbox.parse_size),
                                 ("limit_cpu", "cpu", sandbox.parse_count),
                                 ("limit_processes", "processes", sandbox.parse_count),
                                 ("limit_file", "file_size", sandbox.parse_size)):
        value = getattr(args, option, None)
        if value is not None:
            limits = replace(limits, **{field: parse(value, "--" + option.replace("_", "-"))})
    return sandbox.Policy(mode, limits)


def apply(args):
    """Make the options' policy the one in force here and in every child process; the isolation it gives
    (``strict`` without bubblewrap: UsageError, exit 2)."""
    from crossdyn import sandbox

    policy = policy_of(args)
    iso = sandbox.isolation(policy)
    sandbox.set_current(policy)
    return iso


def prestart(args) -> None:
    """For ``check ARM FILE.py`` under a sandbox: start the Python worker now, while this process imports the
    checker (:func:`crossdyn.equations.python_sandboxed.prestart`)."""
    from crossdyn import sandbox

    file = str(getattr(args, "file", "") or "")
    if getattr(args, "summary", None) or not file.lower().endswith(".py") or sandbox.current().mode == sandbox.Mode.OFF:
        return
    from crossdyn.equations import python_sandboxed
    python_sandboxed.prestart(sandbox.current())


def passed_on(args) -> list[str]:
    """The options as arguments for a child ``crossdyn check`` (a class's submissions)."""
    policy = policy_of(args)
    lim = policy.limits
    return ["--sandbox", policy.mode.value, "--limits",
            f"memory={lim.memory},cpu={lim.cpu},processes={lim.processes},file={lim.file_size}"]
