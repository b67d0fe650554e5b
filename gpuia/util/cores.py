"""How many cores this process may run on."""

from __future__ import annotations

import os

__all__ = ["usable_cores"]


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (``sched_getaffinity``, which a
    container, a cgroup's cpuset or ``taskset`` narrows), where the system has one, else every
    core (``os.cpu_count()``); at least 1. ``os.cpu_count()`` alone counts the host's cores,
    which a process limited to two of them cannot use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)
