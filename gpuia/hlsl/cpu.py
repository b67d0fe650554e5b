"""The CPU reference of an HLSL vertex shader: the user's code run on the host, per vertex.

gpuia's CPU reference knows exactly what the Input Assembler delivers; to say what Stream
Output writes for a real shader it must also run that shader. Slang cannot compile the vertex
stage for a CPU target (it crashes), so gpuia wraps the user's entry point in a compute kernel
(``gpuia.hlsl.wrapper.cpu_kernel``: every invocation reads its inputs from a flat buffer of
32-bit patterns and writes its outputs to another), has Slang emit C++ for it, and builds that
with the host's C++ compiler (``$CXX``, else ``g++``) into a small executable together with
gpuia's runner (``shaders/runner.cpp``). The C++ computes D3D's values where C++ leaves the result
undefined (``gpuia.hlsl.cpu_defined``: integer division by zero, float-to-int overflow, shifts,
subscripts); what D3D leaves undefined too is one error saying the shader is not comparable.
The executable runs in its own process: a shader that faults or loops forever on the CPU ends in
a clear error, never in a crash of the caller. It uses every core.
What Slang turns into C++ is checked for Slang's ways out of a shader first
(``gpuia.hlsl.escapes``), and the build and the run are contained (``gpuia.hlsl.sandbox``,
the runner's seccomp filter): docs/hlsl.md.

Constant buffers arrive as D3D packs them; Slang's C++ lays a cbuffer out by natural C rules,
so every scalar is copied from its D3D offset to its C++ offset first
(``gpuia.hlsl.cbuffer.natural_leaves``). A subscript out of range never reads or writes
outside its array, vector or matrix (rules 12.4).

The CPU and a GPU do not round shader arithmetic alike (fused multiply-adds, transcendental
approximations): callers compare float results with a tolerance (``gpuia.harness.compare``); the
inputs the shader receives are the reference's exact IA values.
"""

from __future__ import annotations

import atexit
import contextlib
import mmap
import os
import re
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InvalidDescError, UnsupportedError
from ..util.cores import usable_cores
from ..util.resources import shader_text
from . import cache, cpu_defined, escapes, launcher, library, pch, sandbox
from .cbuffer import natural_leaves
from .cpu_textures import bounded_textures, lower_comparisons
from .cpu_views import bounded_views
from .frontend import HlslShader, slang_args
from .load_offsets import lower_load_offsets
from .reflect import Leaf
from .source import prepare, restore
from .texture1d_arrays import lower_texture1d_arrays
from .typed_buffers import lower_source
from .wrapper import CPU_ENTRY, CPU_GROUP, cpu_kernel

__all__ = ["CpuShader", "cpu_shader", "compiler", "CXX_FLAGS", "entry_params", "compile_cxx",
           "build_folder", "sound_build", "CpuParam"]

CXX_FLAGS = ("-std=c++17", "-O2", "-fno-strict-aliasing", "-fwrapv", "-fno-finite-loops",
             "-pthread", "-w", "-DSLANG_ENABLE_BOUND_ZERO_INDEX", "-DNDEBUG")
"""How gpuia builds the CPU reference: no -ffast-math (IEEE arithmetic, no FMA contraction on
the x86-64 baseline); integer arithmetic wraps as D3D's does (``-fwrapv``); a loop is never
assumed to end (``-fno-finite-loops``: g++ may otherwise delete an endless loop without side
effects, which on a GPU hangs). The rest of D3D's defined values: ``gpuia.hlsl.cpu_defined``."""

_MAGIC = b"GPUIACPU"
_PACKOFFSET_RE = re.compile(r":\s*packoffset\s*\([^)]*\)")
_HEADER = struct.Struct("<8s7Q")  # magic, version, groups, threads, gp_size, regions,
# undefined (what D3D leaves undefined that the shader did: cpu_defined.UNDEFINED), done
_VERSION = 3  # shaders/runner.cpp's header version
_DONE = 0x454e4f44414955  # what the runner writes in the header's last word when it finished
_REGION = struct.Struct("<4Q")
# A view's region kind: its element's bytes + 1, with bit 63 for a typed view, whose last element
# is what a read past the view returns (shaders/runner.cpp, gpuia.hlsl.cpu_views).
_VIEWS = {"srv": 0, "typed": 1 << 63, "uav": 0}  # a UAV's bytes are copied back after a run
_ALIGN = 64


def compiler() -> str:
    """The C++ compiler gpuia builds CPU shaders with; UnsupportedError without one."""
    named = os.environ.get("CXX") or "g++"
    path = shutil.which(named)
    if path is None:
        raise UnsupportedError(f"the CPU reference of an HLSL shader needs a C++ compiler: "
                               f"{named} is not on PATH (install g++, or set CXX)")
    return path


@dataclass(frozen=True)
class CpuParam:
    """A global parameter of the compute entry: where it sits in Slang's GlobalParams."""

    role: str  # "cbuffer", "in", "out", "count", "srv", "uav" or "typed" (slot: its binding;
    # size: the element's bytes, 1 for a ByteAddressBuffer, whose count is in bytes; a typed view's
    # bytes end with its out-of-bounds element, gpuia.hlsl.typed_buffers) or "blob" (a
    # texture's or sampler's bytes, gpuia.hlsl.cpu_textures; slot: its binding)
    gp_offset: int
    slot: int = -1
    size: int = 0  # natural bytes of a cbuffer
    copy: tuple[tuple[int, int, int], ...] = ()  # (D3D offset, natural offset, natural size)
    # per scalar of a cbuffer


@dataclass(frozen=True)
class CpuShader:
    """A shader built for the CPU: run it with :meth:`run`. ``what`` names the shader in its
    errors (a geometry shader's build is one too: ``gpuia.hlsl.geometry_cpu``)."""

    executable: str
    in_words: int
    out_words: int
    inputs: tuple[Leaf, ...]  # in wrapper order
    outputs: tuple[Leaf, ...]
    params: tuple[CpuParam, ...]
    gp_size: int
    digest: str = ""  # sha256 of the executable, checked before a cached build is trusted
    what: str = "vertex shader"

    def run(self, inputs: dict, vertex_id: np.ndarray, instance_id: np.ndarray,
            constant_buffers: dict | None = None, timeout: float | None = None,
            shader_resources: dict | None = None) -> dict:
        """Run the shader for ``len(vertex_id)`` invocations. ``inputs``: {semantic key: (n, 4)
        uint32 bit patterns} (the IA's elements); ``constant_buffers``: {slot: D3D-packed bytes}
        (missing bytes read as zero); ``shader_resources``: {the SRV's binding
        (:func:`gpuia.d3d.srv_bindings.srv_binding` of its register and space): the bytes of
        its view} (a read past them returns 0, as D3D12's); a UAV's binding
        (``ShaderResource.binding``): a ``bytearray`` of its view, which the run leaves holding
        what the shader wrote (each vertex run once); and a texture's or sampler's binding:
        its blob (``gpuia.hlsl.cpu_textures``). Returns {output key: (n, components) uint32}."""
        n = int(vertex_id.shape[0])
        constant_buffers = constant_buffers or {}
        srvs = shader_resources or {}
        self._check_bound(inputs, constant_buffers, srvs)
        groups = max(1, -(-n // CPU_GROUP))
        rows = groups * CPU_GROUP
        regions, blobs, size = self._layout(rows, srvs)
        fd = _shared_file()
        try:
            os.ftruncate(fd, size)
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)  # no fault per page
            with mmap.mmap(fd, size, flags=flags) as mem:
                mem[:_HEADER.size] = _HEADER.pack(_MAGIC, _VERSION, groups, _threads(),
                                                  self.gp_size, len(regions), 0, 0)
                for i, r in enumerate(regions):
                    at = _HEADER.size + i * _REGION.size
                    mem[at:at + _REGION.size] = _REGION.pack(*r)
                out_view = self._fill(mem, blobs, rows, n, inputs, vertex_id, instance_id,
                                      constant_buffers, srvs)
                mem.flush()
                _execute(self.executable, fd, n, timeout, self.what)
                out = self._outputs(mem, out_view, rows, n)
                for at, nbytes, p in blobs:  # a UAV's view as the shader left it
                    if p.role == "uav":
                        srvs[p.slot][:] = mem[at:at + nbytes]
        finally:
            os.close(fd)
        return out

    def with_resources(self, shader_resources: dict) -> _Bound:
        """This shader with its SRVs' bytes bound ({binding: bytes}): its ``run`` takes
        :meth:`run`'s arguments less ``shader_resources``."""
        return _Bound(self, shader_resources)

    def _check_bound(self, inputs: dict, constant_buffers: dict, srvs: dict) -> None:
        """Refuse a run without a constant buffer, SRV or input element the shader reads."""
        for p in self.params:
            if (p.role in _VIEWS or p.role == "blob") and p.slot not in srvs:
                raise InvalidDescError(self.what, f"resource at binding {p.slot}", None,
                                       "the shader reads this resource and none is bound")
            if p.role in _VIEWS and len(srvs[p.slot]) % p.size:
                raise InvalidDescError(self.what, f"resource at binding {p.slot}",
                                       f"{len(srvs[p.slot])} bytes",
                                       f"not whole elements of {p.size} bytes")
            if p.role == "cbuffer" and p.slot not in constant_buffers:
                raise InvalidDescError(self.what, f"cbuffer in register b{p.slot}", None,
                                       "the shader reads this constant buffer and none is bound")
        for leaf in self.inputs:
            if leaf.semantic not in ("SV_VERTEXID", "SV_INSTANCEID") and leaf.key not in inputs:
                raise InvalidDescError(self.what, leaf.declaration, leaf.key,
                                       f"the shader reads {leaf.key} but the input layout has "
                                       f"no element with that semantic (rules 3.8)")

    def _layout(self, rows: int, srvs: dict):
        """(the region table's rows, (offset, bytes, parameter) of each region, the file's
        size) of the shared file for ``rows`` invocations: the header, the region table, then
        one aligned region per parameter."""
        regions, blobs = [], []
        offset = _round(_HEADER.size + _REGION.size * len(self.params), _ALIGN)
        for p in self.params:
            if p.role == "in":
                nbytes, kind = rows * max(self.in_words, 1) * 4, 1
            elif p.role == "out":
                nbytes, kind = rows * max(self.out_words, 1) * 4, 1
            elif p.role == "count":
                nbytes, kind = 16, 0
            elif p.role in _VIEWS:  # pointer + count: its bytes / the element's
                nbytes, kind = len(srvs[p.slot]), (p.size + 1) | _VIEWS[p.role]
            elif p.role == "blob":  # pointer: a texture's or sampler's words
                nbytes, kind = len(srvs[p.slot]), 0
            else:  # a cbuffer (copied in below) or an unread one (zeros)
                nbytes, kind = _round(max(p.size, 16), 16), 0
            regions.append((offset, nbytes, p.gp_offset, kind))
            blobs.append((offset, nbytes, p))
            offset = _round(offset + max(nbytes, 4), _ALIGN)
        return regions, blobs, offset

    def _fill(self, mem: mmap.mmap, blobs, rows: int, n: int, inputs: dict, vertex_id,
              instance_id, constant_buffers: dict, srvs: dict) -> tuple[int, int] | None:
        """Write every region's input (the IA's elements, the count, the cbuffers); the
        (offset, bytes) of the output region."""
        out_view = None
        for at, nbytes, p in blobs:
            view = np.frombuffer(mem, np.uint8, nbytes, at)
            if p.role == "in":
                self._fill_inputs(view.view(np.uint32).reshape(rows, -1), n, inputs,
                                  vertex_id, instance_id)
            elif p.role == "count":
                view.view(np.uint32)[0] = n
            elif p.role == "cbuffer":
                _fill_cbuffer(view, p, constant_buffers[p.slot])
            elif p.role in _VIEWS or p.role == "blob":
                view[:] = np.frombuffer(bytes(srvs[p.slot]), np.uint8)
            elif p.role == "out":
                out_view = (at, nbytes)
            del view
        return out_view

    def _outputs(self, mem: mmap.mmap, out_view: tuple[int, int] | None, rows: int,
                 n: int) -> dict:
        """{output key: (n, components) uint32} of a finished run, copied out of the shared
        file; refused when the runner did not finish or the shader did what D3D leaves
        undefined."""
        *_, undefined, done = _HEADER.unpack_from(mem, 0)
        if done != _DONE:
            raise UnsupportedError(f"the CPU build {self.executable} ended without "
                                   f"running the shader (a damaged cache entry? "
                                   f"remove it)")
        if undefined:
            raise InvalidDescError(
                self.what, "CPU reference", "not comparable",
                "the shader did what D3D leaves undefined, so no reference value "
                "exists to compare the GPU with: "
                + "; ".join(cpu_defined.undefined_reasons(undefined)))
        assert out_view is not None  # every kernel has its out parameter
        at, nbytes = out_view
        words = np.frombuffer(mem, np.uint32, nbytes // 4, at).reshape(rows, -1)
        out, col = {}, 0
        for leaf in self.outputs:  # one copy out of the shared file per output
            out[leaf.key] = np.array(words[:n, col:col + leaf.components], order="C")
            col += leaf.components
        del words
        return out

    def _fill_inputs(self, table: np.ndarray, n: int, inputs: dict, vertex_id, instance_id):
        col = 0
        for leaf in self.inputs:
            c = leaf.components
            if leaf.semantic == "SV_VERTEXID":
                table[:n, col] = vertex_id
            elif leaf.semantic == "SV_INSTANCEID":
                table[:n, col] = instance_id
            else:  # run() checked that every input is there
                table[:n, col:col + c] = inputs[leaf.key][:, :c]
            col += c


@dataclass(frozen=True)
class _Bound:
    """A :class:`CpuShader` with its SRVs' bytes (:meth:`CpuShader.with_resources`)."""

    shader: CpuShader
    resources: dict

    def run(self, inputs: dict, vertex_id, instance_id, constant_buffers=None,
            timeout: float | None = None) -> dict:
        return self.shader.run(inputs, vertex_id, instance_id, constant_buffers, timeout,
                               self.resources)


def _round(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _threads() -> int:
    return usable_cores()


def _fill_cbuffer(view: np.ndarray, p: CpuParam, data: bytes) -> None:
    """Copy every scalar of a D3D-packed cbuffer to its natural C++ offset (bool: one byte)."""
    size = max((d + 4 for d, _, _ in p.copy), default=0)
    src = np.zeros(_round(max(size, len(data)), 4), np.uint8)
    src[:len(data)] = np.frombuffer(bytes(data), np.uint8)
    words = src.view(np.uint32)
    for d3d, nat, nbytes in p.copy:
        if nbytes == 1:
            view[nat] = 1 if words[d3d // 4] else 0
        else:
            view[nat:nat + 4] = src[d3d:d3d + 4]


_SIGNALS: dict[int, str] = {
    signal.SIGFPE: "the shader stopped on the CPU with an arithmetic fault",
    signal.SIGSEGV: "the shader stopped on the CPU with a memory fault",
    signal.SIGILL: "the shader stopped on the CPU with an illegal instruction",
    signal.SIGBUS: "the shader stopped on the CPU with a bus error",
    signal.SIGABRT: "the shader stopped on the CPU with an abort",
    sandbox.FORBIDDEN_SYSCALL: "the CPU reference tried a system call gpuia forbids (opening a "
                               "file, starting a program, the network...): its sandbox ended it",
    signal.SIGXCPU: "the shader used more CPU time than its limit allows (an endless loop?)",
    signal.SIGXFSZ: "the CPU reference tried to write a file: its sandbox ended it",
}


def _runner_limits(limit: float, size: int, threads: int) -> sandbox.Limits:
    """The runner's resources: CPU time past the wall-clock limit on every thread (so only a
    runner nobody waits for meets it), its file, code and thread stacks with room to spare,
    no file written, a few descriptors; no network."""
    return sandbox.Limits(cpu_seconds=int(limit * threads) + 10,
                          address_space=(2 << 30) + 2 * size + threads * (256 << 20),
                          file_size=0, open_files=16, isolate=True)


def _shared_file() -> int:
    """A descriptor of a new, empty shared-memory file without a name (a memfd; where there is
    none, a temporary file removed at once), so that nothing of it is left when gpuia is
    killed (SIGKILL) while the runner runs."""
    with contextlib.suppress(AttributeError, OSError):  # no memfd here (not Linux, a filter)
        return os.memfd_create("gpuia-cpu", os.MFD_CLOEXEC)
    folder = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) \
        else None
    fd, path = tempfile.mkstemp(prefix="gpuia-cpu-", dir=folder)
    os.unlink(path)
    return fd


def _launcher() -> str | None:
    """gpuia's launcher, which starts the runner without forking gpuia (``gpuia.hlsl.launcher``);
    None where it cannot be built (the sandbox then starts the runner itself, as contained)."""
    try:
        return launcher.launcher(compiler(), build_folder(), _BUILD_LIMITS, _BUILD_SECONDS)
    except (UnsupportedError, OSError):
        return None


def _execute(executable: str, fd: int, n: int, timeout: float | None,
             what: str = "vertex shader") -> None:
    """Run the CPU build on the shared file ``fd``, given as its standard input (the runner
    opens nothing), contained (``gpuia.hlsl.sandbox``); every way it can end badly is one
    error."""
    limit = timeout if timeout is not None else 60.0 + n / 1e6
    try:
        size = os.fstat(fd).st_size
        done = sandbox.run([executable, str(size)], _runner_limits(limit, size, _threads()),
                           limit, stdin=fd, keep_stderr=False, launcher=_launcher())
    except OSError as e:  # not an executable any more (a damaged cache entry)
        raise UnsupportedError(f"cannot run the CPU build {executable}: {e}") from None
    except subprocess.TimeoutExpired:
        raise InvalidDescError(what, "CPU reference", f"{limit:.0f} s",
                               "the shader did not finish on the CPU (an endless loop?)") \
            from None
    if done.returncode < 0:
        sig = -done.returncode
        raise InvalidDescError(what, "CPU reference", f"signal {sig}",
                               _SIGNALS.get(sig, f"the shader stopped on the CPU with signal "
                                                 f"{sig}"))
    if done.returncode != 0:
        raise UnsupportedError(f"gpuia's CPU shader runner failed (exit {done.returncode})")


_BUILD_SECONDS = 600
_BUILD_LIMITS = sandbox.Limits(cpu_seconds=_BUILD_SECONDS, address_space=16 << 30,
                               file_size=1 << 30)
"""The C++ compiler's: its time, 16 GiB of address space, files of at most 1 GiB. Its network
stays (a $CXX may be a distributed compiler); what it compiles was checked first."""

_MEMORY = cache.MemoryCache(64)
_BUILD_LOCK = threading.Lock()
_OWN_FOLDER: list[tuple[int, Path]] = []  # (pid, folder): this process's private build folder


def build_request(kind: str, shader, cxx: str) -> tuple:
    """The cache request of a shader's CPU build: what the build depends on (gpuia's front end,
    Slang, the compiler binary and its flags, the shader's source, options and included files).

    Arguments:
        kind (str): the build's kind (``"cpu"`` for a vertex shader, ``"cpu-gs"``).
        shader: the compiled shader (an ``HlslShader`` or ``HlslGeometryShader``).
        cxx (str): the C++ compiler's path.
    """
    st = os.stat(cxx)
    return (kind, cache.frontend_hash(), library.library_identity(), cxx, st.st_size,
            st.st_mtime_ns, CXX_FLAGS, shader.source, shader.entry_point, shader.defines,
            shader.matrix_layout, shader.file_name, shader.include_dirs, shader.source_path,
            [cache.file_digest(p) for p in shader.dependencies])


def cpu_shader(shader: HlslShader) -> CpuShader:
    """The CPU build of a compiled HLSL vertex shader (cached in memory and on disk like the
    shader itself). Raises UnsupportedError without a C++ compiler."""
    if shader.stage != "vertex":
        raise InvalidDescError("CPU reference", "stage", shader.stage,
                               "only vertex shaders run on the CPU")
    cxx = compiler()
    request = build_request("cpu", shader, cxx)
    key = cache.key_of(*request)
    hit = _MEMORY.get(key)
    if hit is not None and os.path.isfile(hit.executable):
        return hit
    with _BUILD_LOCK:
        folder = build_folder()
        entry = cache.load("cpu", key, CpuShader, request)
        built = entry[0] if entry is not None else None
        if not sound_build(built, folder / key[:32]):
            built = _build(shader, cxx, key, folder)
            cache.store("cpu", key, built, request)
    return _MEMORY.put(key, built)


def build_folder() -> Path:
    """Where builds go and run from: the disk cache's ``cpu`` folder when it is private to
    this user (:func:`gpuia.hlsl.cache.private_folder`), else a folder of this process's own
    (``mkdtemp``: a new name, mode 0700), removed when the process ends. Never a shared,
    predictable folder another user could plant files in."""
    folder = cache.entry_folder("cpu")
    if folder is not None:
        return folder
    if not _OWN_FOLDER or _OWN_FOLDER[0][0] != os.getpid():  # a forked child makes its own
        own = Path(tempfile.mkdtemp(prefix="gpuia-cpu-"))
        _OWN_FOLDER[:] = [(os.getpid(), own)]
        atexit.register(_remove_own_folder, os.getpid(), own)
    return _OWN_FOLDER[0][1]


def _remove_own_folder(pid: int, folder: Path) -> None:
    if os.getpid() == pid:  # not in a forked child, whose parent still builds there
        shutil.rmtree(folder, ignore_errors=True)


def sound_build(built: CpuShader | None, exe: Path) -> bool:
    """A cached build is used only when its executable is the one its key builds (``exe``,
    in the private folder), a regular file of this user's that no other user may write, with
    the hash recorded when it was built. (:func:`gpuia.hlsl.cache.load` checked every field's
    type and the request.)"""
    return built is not None and built.executable == str(exe) and \
        cache.trusted_executable(exe, built.digest)


def _build(shader: HlslShader, cxx: str, key: str, folder: Path) -> CpuShader:
    what = "vertex shader"
    # shader.matrix_layout is the packing its pragmas gave: no pragma counts again
    prepared = prepare(shader.source, shader.file_name, shader.matrix_layout, frozenset(),
                       line_name=shader.slang_name, source_path=shader.source_path,
                       include_dirs=shader.include_dirs, defines=shader.defines)
    kernel, in_words, out_words = cpu_kernel(shader.entry, shader.entry_point)
    # Slang's C++ structs ignore packoffset while its C++ reflection reports it: without it
    # the reflection gives the real C++ offsets, which the D3D bytes are copied to.
    text = _PACKOFFSET_RE.sub("", prepared.text)
    # A typed Buffer<T> is a structured buffer of T here, bound to the view's decoded values
    # (gpuia.hlsl.typed_buffers).
    text = lower_source(text, {r.name for r in shader.shader_resources if r.kind == "typed"},
                        what)
    if any(s.comparison for s in shader.samplers):  # SampleCmpLevelZero as gpuia's SampleLevel
        text = lower_comparisons(text)
    # Load(location, offset) as the Load it is, as for the WGSL (rules 17.11)
    text = lower_load_offsets(text, {t.name: t.hlsl_type for t in shader.textures}, what)
    text = lower_texture1d_arrays(text, {t.name for t in shader.textures
                                         if t.hlsl_type == "Texture1DArray"}, what)
    # What Slang turns into C++ is checked again, as it is now (its includes are read again).
    escapes.refuse_escapes_in(text + kernel, shader.slang_name, slang_args(
        prepared.matrix_layout), shader.defines, shader.include_dirs, what, shader.source,
        shader.file_name, shader.source_path)
    try:
        out = library.compile_source(text + kernel, shader.slang_name, CPU_ENTRY,
                                     "compute", "cpp", slang_args(prepared.matrix_layout),
                                     shader.defines, shader.include_dirs, what)
    except library.SlangError as e:
        diagnostics = restore(e.diagnostics, prepared)
        raise InvalidDescError(what, "CPU reference", None,
                               library.first_error(diagnostics)) from None
    runner = shader_text("runner.cpp") + "\n"
    # D3D's values where C++ leaves them undefined (division by zero, float-to-int overflow,
    # shifts, subscripts out of range): gpuia.hlsl.cpu_defined
    code = bounded_views(out.code.decode("utf-8"))
    if shader.textures or shader.samplers:
        code = bounded_textures(code)
    head, body = cpu_defined.prepare_parts(code)
    source = head + body + "\n" + runner
    params, gp_size = entry_params(out.reflection, shader.constant_buffers, None,
                                   shader.shader_resources,
                                   {**{t.name: t.binding for t in shader.textures},
                                    **{s.name: s.binding for s in shader.samplers}})
    exe = folder / key[:32]
    digest = compile_cxx(cxx, source, folder, key[:32], exe, head)
    ins, outs = shader.entry.inputs(), shader.entry.outputs()
    return CpuShader(str(exe), in_words, out_words, ins, outs, tuple(params), gp_size, digest)


_ROLES = {"hlslw_in": "in", "hlslw_out": "out", "hlslw_cpu_count": "count"}


def entry_params(reflection: dict, constant_buffers, roles: dict[str, str] | None = None,
                 resources=(), blobs: dict[str, int] | None = None
                 ) -> tuple[list[CpuParam], int]:
    """Where each global parameter of the compute entry sits in Slang's GlobalParams (by the
    C++ reflection), and the GlobalParams' size. ``roles`` names the kernel's own buffers
    ({name: "in", "out" or "count"}; the vertex kernel's by default), ``constant_buffers``
    are the shader's (:class:`~gpuia.hlsl.cbuffer.ConstantBuffer`); ``blobs`` its textures and
    samplers ({name: binding})."""
    params: list[CpuParam] = []
    gp_size = 0
    roles = roles or _ROLES
    by_name = {cb.name: cb for cb in constant_buffers}
    srvs = {r.name: r for r in resources}
    for p in reflection.get("parameters", []):
        b = p.get("binding", {})
        at, size = int(b.get("offset", 0)), int(b.get("size", 8))
        gp_size = max(gp_size, at + size)
        name = p["name"]
        if name in roles:
            params.append(CpuParam(roles[name], at))
        elif name in (blobs or {}):
            params.append(CpuParam("blob", at, (blobs or {})[name]))
        elif name in srvs:
            r = srvs[name]
            role = "uav" if r.writable else "typed" if r.kind == "typed" else "srv"
            params.append(CpuParam(role, at, r.binding, 1 if r.kind == "raw" else r.stride))
        elif name in by_name:
            cb = by_name[name]
            element = p["type"]["elementType"]
            copy = tuple((d, nat, nb) for d, nat, _, nb in natural_leaves(cb, element))
            natural = int(p["type"].get("elementVarLayout", {}).get("binding", {})
                          .get("size", 0))
            natural = max(natural, max((nat + nb for _, nat, nb in copy), default=0))
            params.append(CpuParam("cbuffer", at, cb.slot, natural, copy))
        elif p.get("type", {}).get("kind") == "constantBuffer":
            # Declared, never read by the entry (the WGSL has no use of it): zeros.
            natural = int(p["type"].get("elementVarLayout", {}).get("binding", {})
                          .get("size", 0))
            params.append(CpuParam("zeros", at, -1, natural))
        # Anything else declared but not read (a texture, a global): its pointer stays null.
    return params, gp_size


def compile_cxx(cxx: str, source: str, folder: Path, name: str, exe: Path,
                shared: str = "") -> str:
    """Build the C++ ``source`` (written as ``name.cpp`` in ``folder``) into ``exe``, the
    compiler contained (``gpuia.hlsl.sandbox``); the hash of what was built. ``shared``, the
    start of ``source`` that does not depend on the shader, is read from a precompiled header
    where one can be made (``gpuia.hlsl.pch``). Raises UnsupportedError when it cannot be
    built."""
    if shared and source.startswith(shared) and cache.entry_folder("cpu") == folder:
        text = pch.shared_text(shared)
        header = pch.precompiled(cxx, CXX_FLAGS, text, _BUILD_LIMITS, _BUILD_SECONDS)
        if header is not None:  # the header's text, then the rest (its includes again: no-ops)
            source = f'#include "{header}"\n' + source[len(shared):]
    src = folder / f"{name}.cpp"
    if not cache.write_atomic(src, source.encode("utf-8")):
        raise UnsupportedError(f"cannot write the CPU shader's source in {folder}")
    tmp = folder / f".{name}.{os.getpid()}.build"
    try:
        try:  # contained: bounded time, memory and output, ended with gpuia (gpuia.hlsl.sandbox)
            done = sandbox.run([cxx, *CXX_FLAGS, "-o", str(tmp), str(src)], _BUILD_LIMITS,
                               _BUILD_SECONDS)
        except OSError as e:
            raise UnsupportedError(f"cannot run the C++ compiler {cxx}: {e}") from None
        except subprocess.TimeoutExpired:
            raise UnsupportedError(f"{cxx} did not build the CPU reference of the shader in "
                                   f"{_BUILD_SECONDS} s") from None
        if done.returncode != 0:
            stderr = done.stderr.decode("utf-8", "replace")
            raise UnsupportedError(f"{cxx} could not build the CPU reference of the shader: "
                                   f"{' '.join(stderr.split())[:400]}")
        digest = cache.file_digest(str(tmp))  # of what was built, before it is in place
        if digest is None:
            raise UnsupportedError(f"{cxx} built no CPU reference of the shader gpuia can "
                                   f"check (not a regular file of at most "
                                   f"{cache.MAX_ENTRY_BYTES} bytes)")
        os.replace(tmp, exe)
    finally:  # what a failed, timed-out or interrupted build left behind (none once in place)
        with contextlib.suppress(OSError):
            tmp.unlink()
    return digest
