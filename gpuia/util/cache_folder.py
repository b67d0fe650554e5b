"""gpuia's disk cache folder: where it is and whether a folder in it may be trusted.

The folder is ``$GPUIA_CACHE_DIR`` (``none`` turns the disk cache off), else
``$XDG_CACHE_HOME/gpuia``, else ``~/.cache/gpuia``; each kind of entry has a subfolder. A
subfolder is used only when it is a folder owned by this user that no other user may write
(:func:`private_folder`): one another user planted or can change is never read from or written
to. What an entry holds and how it is checked is each kind's own business
(:mod:`gpuia.hlsl.cache`, :mod:`gpuia.util.wgpu_ffi`)."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

__all__ = ["cache_dir", "private_folder", "entry_folder", "replace_entry"]


def cache_dir() -> Path | None:
    """The disk cache folder, or None when ``GPUIA_CACHE_DIR=none``."""
    named = os.environ.get("GPUIA_CACHE_DIR")
    if named is not None:
        return None if named.strip().lower() in ("", "none", "off", "0") else Path(named)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gpuia"


def private_folder(folder: Path, create: bool = True) -> bool:
    """Whether ``folder`` is a folder owned by this process's user that no other user may
    write (group and others have no write bit), made first with mode 0700 when ``create``."""
    try:
        if create:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(folder)
    except (OSError, ValueError):
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and \
        not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)


def entry_folder(kind: str) -> Path | None:
    """The subfolder of ``kind``'s entries, or None without a disk cache or when it is not
    :func:`private_folder`."""
    root = cache_dir()
    if root is None:
        return None
    folder = root / kind
    return folder if private_folder(folder) else None


def replace_entry(path: Path, data: bytes) -> bool:
    """Write ``data`` as the entry ``path`` atomically: a temporary file in the same folder
    renamed over whatever is there (a FIFO or a device planted at ``path`` is replaced, never
    written through, unlike an output file's :func:`gpuia.util.files.write_atomic`). False
    when it cannot be written (an unwritable folder only costs the work again next time)."""
    import tempfile  # noqa: PLC0415 - only when an entry is written

    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:32]}.", suffix=".part", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tmp = None
        return True
    except OSError:
        return False
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
