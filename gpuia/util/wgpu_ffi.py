"""wgpu-py's cffi declarations of wgpu-native, loaded from gpuia's disk cache instead of parsed.

At its import, ``wgpu.backends.wgpu_native._ffi`` hands wgpu-native's whole C header (2,000
lines) to ``cffi.FFI.cdef``, which parses it with pycparser: about 0.25-0.35 s of every process
that opens a device, the largest single piece of a one-case ``gpuia check``. cffi itself offers
the way out, its out-of-line ABI mode: the parsed declarations are emitted once as the arguments
of ``_cffi_backend.FFI`` (type tables as bytes, names as tuples), and an FFI built from them loads
the same library with the same types in about a millisecond (cffi's documentation, "ABI versus
API" and "Out-of-line, ABI level").

:func:`install` puts an import hook in front of that one module: its own source runs unchanged
except for the three lines that make and parse the FFI, which take the cached one instead
(the line count kept, so tracebacks name wgpu-py's lines). Guaranteed:

* the cache entry is keyed by the header's text, cffi's version, Python's version and this
  module's format: another wgpu-py, cffi or Python never reads an old entry;
* an entry is untrusted input: read only from a private folder of gpuia's disk cache
  (:func:`gpuia.util.cache_folder.entry_folder`), only as a regular file of at most
  :data:`MAX_ENTRY_BYTES` whose SHA-256 of its contents matches the one it carries (a damaged
  entry is never handed to cffi), decoded with :mod:`marshal` into plain data (bytes, text,
  integers and tuples of them, checked before use: nothing in it is run); anything else found
  is ignored and made again;
* when anything is not as expected (wgpu-py's source without those three lines, no disk cache,
  ``GPUIA_CACHE_DIR=none``, a folder that cannot be written, cffi refusing the tables), the
  module is imported exactly as wgpu-py wrote it: slower, same behaviour.

The FFI made this way is cffi's C-level ``_cffi_backend.FFI`` where wgpu-py's is the Python
class ``cffi.FFI``; both offer what wgpu-py calls (``new``, ``cast``, ``callback``, ``string``,
``addressof``, ``from_buffer``, ``NULL``, ``CData``, ``dlopen``), the classic one also keeping
a parser and a Python-level cache of type strings this one does in C."""

from __future__ import annotations

import hashlib
import importlib.machinery
import marshal
import sys
from pathlib import Path
from types import ModuleType

from .cache_folder import entry_folder, replace_entry

__all__ = ["install", "load_ffi", "MODULE", "MAX_ENTRY_BYTES"]

MODULE = "wgpu.backends.wgpu_native._ffi"
"""The module :func:`install` intercepts."""

MAX_ENTRY_BYTES = 16 << 20
"""The largest entry read (an entry is about 130 KB)."""

_FORMAT = 1
_KIND = "wgpu-ffi"
# wgpu-py 0.32's lines that make and parse the FFI, and what replaces them (same line count).
_PARSE = 'ffi = FFI()\nffi.cdef(get_wgpu_header())\nffi.set_source("wgpu.h", None)\n'
_CACHED = "ffi = __gpuia_ffi__\n\n\n"
_FFI_NAME = "gpuia_wgpu_native"
# _cffi_backend.FFI's keyword arguments that ABI mode emits, and the types their values hold.
_KEYWORDS = frozenset({"_version", "_types", "_globals", "_struct_unions", "_enums",
                       "_typenames"})
_REQUIRED = frozenset({"_version", "_types"})
_PLAIN = (bytes, str, int)


def install() -> bool:
    """Put the import hook in front of :data:`MODULE` unless that module is already imported
    or the hook is already there; returns whether it was put there now. Costs nothing until
    the module is imported."""
    if MODULE in sys.modules or any(isinstance(f, _Finder) for f in sys.meta_path):
        return False
    sys.meta_path.insert(0, _Finder())
    return True


def load_ffi(header: str, folder: Path | None = None) -> object | None:
    """A ``_cffi_backend.FFI`` holding the declarations of ``header`` (C text as
    ``cffi.FFI.cdef`` takes it), from the cache entry in ``folder`` (default: the disk cache's
    ``wgpu-ffi`` folder), made and stored first when missing or not trusted. None when there is
    no usable folder or cffi cannot do it.

    Arguments:
        header: the C declarations.
        folder: where entries are kept; None for the disk cache's.

    Raises:
        Nothing: every failure gives None (the caller parses as before).
    """
    try:
        import _cffi_backend  # noqa: PLC0415 - cffi's C module, present wherever cffi is
        import cffi  # noqa: PLC0415
    except ImportError:
        return None
    folder = folder if folder is not None else entry_folder(_KIND)
    if folder is None:
        return None
    key = hashlib.sha256(f"{_FORMAT}\0{cffi.__version__}\0{sys.version_info[:2]}\0{header}"
                         .encode()).hexdigest()
    path = folder / f"{key}.marshal"
    for attempt in range(2):
        arguments = _read(path) if attempt == 0 else _build(header, path)
        if arguments is None:
            continue
        try:
            return _cffi_backend.FFI(_FFI_NAME, **arguments)
        except Exception:  # noqa: BLE001 - tables cffi refuses: make them again, else parse
            continue
    return None


def _read(path: Path) -> dict | None:
    """The entry's arguments when it is a regular file of plain data, else None."""
    from .files import InputError, read_input  # noqa: PLC0415 - not on `import gpuia`'s path

    try:
        digest, payload = marshal.loads(read_input(path, MAX_ENTRY_BYTES))
        if digest != hashlib.sha256(payload).hexdigest():
            return None  # damaged, or not written by gpuia
        value = marshal.loads(payload)
    except (InputError, ValueError, EOFError, TypeError):
        return None
    return value if _plain_arguments(value) else None


def _plain_arguments(value: object) -> bool:
    return isinstance(value, dict) and _REQUIRED <= set(value) <= _KEYWORDS and \
        all(_plain(v) for v in value.values())


def _plain(value: object) -> bool:
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return isinstance(value, _PLAIN)


def _build(header: str, path: Path) -> dict | None:
    """Parse ``header`` as wgpu-py does, emit cffi's out-of-line ABI module, keep the arguments
    it passes to ``_cffi_backend.FFI`` (literals only) and store them at ``path``."""
    import tempfile  # noqa: PLC0415 - only when an entry is made, off every later start

    import cffi  # noqa: PLC0415
    from cffi.recompiler import make_py_source  # noqa: PLC0415

    try:
        builder = cffi.FFI()
        builder.cdef(header)
        with tempfile.TemporaryDirectory(prefix="gpuia-ffi-") as tmp:
            emitted = Path(tmp) / f"{_FFI_NAME}.py"
            # what FFI.emit_python_code writes, without the line it prints on stdout
            make_py_source(builder, _FFI_NAME, str(emitted))
            arguments = _literal_arguments(emitted.read_text())
    except Exception:  # noqa: BLE001 - a header or cffi gpuia does not expect: parse as before
        return None
    if arguments is None:
        return None
    payload = marshal.dumps(arguments)
    replace_entry(path, marshal.dumps((hashlib.sha256(payload).hexdigest(), payload)))
    return arguments


def _literal_arguments(emitted: str) -> dict | None:
    """The keyword arguments of the ``_cffi_backend.FFI(...)`` call in the emitted module's
    text, when each is a literal of plain data."""
    import ast  # noqa: PLC0415 - only when an entry is made

    for node in ast.walk(ast.parse(emitted)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "FFI":
            try:
                arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
            except ValueError:
                return None
            return arguments if _plain_arguments(arguments) else None
    return None


class _Finder:
    """Finds :data:`MODULE` where Python would, and gives it :class:`_Loader` (a meta path
    finder by protocol; importlib.abc is not imported for it, to keep every start light)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != MODULE:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or spec.loader is None:
            return None
        # _Loader is a loader by protocol (see _Finder), which the stubs do not know
        spec.loader = _Loader(spec.loader, spec.origin)  # type: ignore[assignment]
        return spec


class _Loader:
    """Runs wgpu-py's module with the cached FFI, or through its own loader."""

    def __init__(self, inner, origin: str):
        self._inner = inner
        self._origin = origin

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        source = _patched_source(self._origin)
        ffi = _header_ffi() if source is not None else None
        if source is None or ffi is None:
            self._inner.exec_module(module)
            return
        module.__dict__["__gpuia_ffi__"] = ffi
        try:
            exec(compile(source, self._origin, "exec"), module.__dict__)  # noqa: S102
        finally:
            module.__dict__.pop("__gpuia_ffi__", None)


def _patched_source(origin: str) -> str | None:
    try:
        source = Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return source.replace(_PARSE, _CACHED) if source.count(_PARSE) == 1 else None


def _header_ffi() -> object | None:
    """The cached FFI of the header wgpu-py would parse (read as its ``get_wgpu_header``
    does), or None."""
    try:
        from wgpu._coreutils import get_header_filename  # noqa: PLC0415

        header = Path(get_header_filename("combined_header.h")).read_text()
    except (ImportError, OSError, RuntimeError, UnicodeDecodeError):
        return None
    return load_ffi(header)
