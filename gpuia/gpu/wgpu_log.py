"""wgpu-native's log lines held back while one call runs, so that a failure is reported once.

wgpu-py forwards wgpu-native's log to Python's ``wgpu`` logger, from the thread that called into
wgpu-native; with no handler configured, Python prints each error record bare on stderr. Making a
device on an adapter that cannot have one logs the cause first (NVIDIA's OpenGL adapter:
``indirect-validation error: ComputePipeline(...)``, docs/known-adapter-issues.md) and then
fails: the user would see a line that is not gpuia's ahead of gpuia's own error.
:func:`held_wgpu_log` keeps the records the calling thread logs during its block; the caller
puts their messages into its own error when the call fails, and on success they are logged as
they would have been. Other threads' records pass untouched.
"""

from __future__ import annotations

import contextlib
import logging
import threading

__all__ = ["held_wgpu_log"]


class _Hold(logging.Filter):
    """Keeps the records of one thread instead of letting them through."""

    def __init__(self, thread: int):
        super().__init__()
        self.thread = thread
        self.records: list[logging.LogRecord] = []
        self.messages: list[str] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if record.thread != self.thread:
            return True
        self.records.append(record)
        self.messages.append(record.getMessage())
        return False


@contextlib.contextmanager
def held_wgpu_log():
    """Hold the ``wgpu`` logger's records of this thread during the block.

    Yields:
        list of str: the held messages, filled as they come. When the block raises they are
        dropped (the caller's error carries them); when it ends normally they are logged then,
        in order.
    """
    logger = logging.getLogger("wgpu")
    hold = _Hold(threading.get_ident())
    logger.addFilter(hold)
    try:
        yield hold.messages
    finally:
        logger.removeFilter(hold)
    for record in hold.records:  # reached only when the block did not raise
        logger.handle(record)
