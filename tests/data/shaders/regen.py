"""Regenerate the compiled test shaders in ``blobs/`` from the HLSL sources and ``manifest.json``.

Shader models 4 and 5 are compiled by Microsoft's FXC (``d3dcompiler_47.dll``, from the PyPI wheel
``kivy-deps-angle`` for win_amd64) under Wine, through ``fxc_driver.c`` built with mingw-w64;
shader model 6 by DXC for Linux (``libdxcompiler_x86_64.so``, from the PyPI wheel
``compushady-lrtu``) through ctypes. Beside each blob ``NAME.cso`` it writes ``NAME.json``: the
compiler, its package and file hash, the flags, the blob's SHA-256, and the compiler's own
reflection of the blob (D3DReflect for FXC, IDxcUtils::CreateReflection for DXC) as D3D's raw
numbers, which the tests take as truth that does not come from gpuia; for FXC also ``NAME.asm``,
D3DDisassemble's text, as a readable golden. None of Microsoft's files is committed.

    pip download compushady-lrtu --no-deps -d W && unzip W/compushady_lrtu-*.whl -d W/lrtu
    pip download kivy-deps-angle --no-deps --platform win_amd64 --only-binary=:all: -d W
    unzip W/kivy_deps_angle-*.whl -d W/angle     # needs wine64 and gcc-mingw-w64-x86-64
    python tests/data/shaders/regen.py --dxc W/lrtu/compushady/backends/libdxcompiler_x86_64.so \\
        --fxc W/angle/kivy_deps_angle-*.data/data/share/angle/bin/d3dcompiler_47.dll [--check]

``--check`` writes nothing: it compiles into a temporary folder and exits 1 naming every file that
differs from the committed one. Ordinary test runs read the committed files and need neither
compiler.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
BLOBS = HERE / "blobs"
FXC_FLAGS = 0  # D3DCOMPILE_* flags: none (optimization level 1, FXC's default)
DXC_ARGS = ("-HV", "2021")
PACKAGES = {"fxc": "kivy-deps-angle 0.5.0 (win_amd64)", "dxc": "compushady-lrtu 0.18.0"}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- FXC under Wine -------------------------------------------------------------------------
def build_driver(work: Path) -> Path:
    exe = work / "fxc_driver.exe"
    subprocess.run(["x86_64-w64-mingw32-gcc", "-O1", "-o", str(exe), str(HERE / "fxc_driver.c")],
                   check=True)
    return exe


def wine_path(path: Path) -> str:
    return "Z:" + str(path.resolve()).replace("/", "\\")


def fxc(dll: Path, driver: Path, source: Path, entry: str, target: str, out: Path) -> dict:
    env = dict(os.environ, WINEDEBUG="-all",
               WINEPREFIX=os.environ.get("WINEPREFIX", str(Path.home() / ".wine-gpuia")))
    wine = shutil.which("wine64") or "/usr/lib/wine/wine64"
    cso, asm, refl = (_file(out, s) for s in (".cso", ".asm", ".reflect"))
    subprocess.run([wine, str(driver), wine_path(dll), wine_path(source), entry, target,
                    str(FXC_FLAGS), wine_path(cso), wine_path(asm), wine_path(refl)],
                   check=True, env=env, cwd=source.parent)
    asm.write_text(asm.read_text().replace("\r\n", "\n"))
    reflection = parse_fxc_reflection(refl.read_text())
    refl.unlink()
    return reflection


def parse_fxc_reflection(text: str) -> dict:
    out: dict = {"input": [], "output": [], "patch_constant": [], "bindings": [],
                 "cbuffers": []}
    for line in text.splitlines():
        kind, *rest = line.split()
        if kind == "binding":
            out["bindings"].append(_binding(rest[0], *map(int, rest[1:])))
        elif kind == "cbuffer":
            out["cbuffers"].append(_cbuffer(rest[0], *map(int, rest[1:])))
        elif kind == "variable":
            out["cbuffers"][-1]["Variables"].append(_variable(rest[1], *map(int, rest[2:])))
        elif kind == "version":
            out["version"] = int(rest[0])
        elif kind == "gs":
            out["gs"] = dict(zip(("GSOutputTopology", "GSMaxOutputVertexCount", "InputPrimitive",
                                  "cGSInstanceCount"), map(int, rest), strict=True))
        else:
            out[{"patch": "patch_constant"}.get(kind, kind)].append(_row(rest[0], rest[1:]))
    return out


def _binding(name: str, kind: int, point: int, count: int) -> dict:
    return {"Name": name, "Type": kind, "BindPoint": point, "BindCount": count}


def _cbuffer(name: str, kind: int, size: int) -> dict:
    return {"Name": name, "Type": kind, "Size": size, "Variables": []}


def _variable(name: str, offset: int, size: int) -> dict:
    return {"Name": name, "StartOffset": offset, "Size": size}


def _row(name: str, numbers) -> dict:
    keys = ("SemanticIndex", "Register", "SystemValueType", "ComponentType", "Mask",
            "ReadWriteMask", "Stream", "MinPrecision")
    return {"SemanticName": name, **dict(zip(keys, map(int, numbers), strict=True))}


# -- DXC through ctypes ---------------------------------------------------------------------
# An interface's own methods follow IUnknown's three. (DXC builds for Linux before 1.8 gave
# IUnknown a virtual destructor, two more entries; this build has none: measured.)
_BASE = 3


def _guid(text: str) -> ctypes.Array:
    return (ctypes.c_ubyte * 16).from_buffer_copy(uuid.UUID(text).bytes_le)


def _method(obj: ctypes.c_void_p, index: int, restype, *argtypes):
    table = ctypes.cast(obj, ctypes.POINTER(ctypes.POINTER(ctypes.c_void_p)))[0]
    return lambda *a: ctypes.CFUNCTYPE(restype, ctypes.c_void_p, *argtypes)(table[index])(obj, *a)


class _Buffer(ctypes.Structure):
    _fields_ = [("ptr", ctypes.c_void_p), ("size", ctypes.c_size_t), ("encoding", ctypes.c_uint)]


class _ShaderDesc(ctypes.Structure):
    _fields_ = ([("Version", ctypes.c_uint), ("Creator", ctypes.c_char_p)]
                + [(n, ctypes.c_uint) for n in (
                    "Flags ConstantBuffers BoundResources InputParameters OutputParameters "
                    "InstructionCount TempRegisterCount TempArrayCount DefCount DclCount "
                    "TextureNormalInstructions TextureLoadInstructions TextureCompInstructions "
                    "TextureBiasInstructions TextureGradientInstructions FloatInstructionCount "
                    "IntInstructionCount UintInstructionCount StaticFlowControlCount "
                    "DynamicFlowControlCount MacroInstructionCount ArrayInstructionCount "
                    "CutInstructionCount EmitInstructionCount GSOutputTopology "
                    "GSMaxOutputVertexCount InputPrimitive PatchConstantParameters "
                    "cGSInstanceCount cControlPoints HSOutputPrimitive HSPartitioning "
                    "TessellatorDomain cBarrierInstructions cInterlockedInstructions "
                    "cTextureStoreInstructions").split()])


class _ParameterDesc(ctypes.Structure):
    _fields_ = [("SemanticName", ctypes.c_char_p), ("SemanticIndex", ctypes.c_uint),
                ("Register", ctypes.c_uint), ("SystemValueType", ctypes.c_int),
                ("ComponentType", ctypes.c_int), ("Mask", ctypes.c_ubyte),
                ("ReadWriteMask", ctypes.c_ubyte), ("Stream", ctypes.c_uint),
                ("MinPrecision", ctypes.c_int)]


class _BindDesc(ctypes.Structure):
    _fields_ = [("Name", ctypes.c_char_p), ("Type", ctypes.c_int), ("BindPoint", ctypes.c_uint),
                ("BindCount", ctypes.c_uint), ("uFlags", ctypes.c_uint),
                ("ReturnType", ctypes.c_int), ("Dimension", ctypes.c_int),
                ("NumSamples", ctypes.c_uint), ("Space", ctypes.c_uint), ("uID", ctypes.c_uint)]


class _BufferDesc(ctypes.Structure):
    _fields_ = [("Name", ctypes.c_char_p), ("Type", ctypes.c_int), ("Variables", ctypes.c_uint),
                ("Size", ctypes.c_uint), ("uFlags", ctypes.c_uint)]


class _VariableDesc(ctypes.Structure):
    _fields_ = [("Name", ctypes.c_char_p), ("StartOffset", ctypes.c_uint),
                ("Size", ctypes.c_uint), ("uFlags", ctypes.c_uint),
                ("DefaultValue", ctypes.c_void_p), ("StartTexture", ctypes.c_uint),
                ("TextureSize", ctypes.c_uint), ("StartSampler", ctypes.c_uint),
                ("SamplerSize", ctypes.c_uint)]


def _dxc_resources(refl: ctypes.c_void_p, desc: _ShaderDesc) -> dict:
    """The bindings and constant buffers of an ID3D12ShaderReflection. Its constant buffers and
    variables are plain (not IUnknown) interfaces: GetDesc is their first method."""
    bindings = []
    for i in range(desc.BoundResources):
        b = _BindDesc()
        _method(refl, _BASE + 3, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p)(i, ctypes.byref(b))
        bindings.append(_binding(b.Name.decode(), b.Type, b.BindPoint, b.BindCount))
    cbuffers = []
    for i in range(desc.ConstantBuffers):
        cb = ctypes.c_void_p(_method(refl, _BASE + 1, ctypes.c_void_p, ctypes.c_uint)(i))
        c = _BufferDesc()
        _method(cb, 0, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(c))
        out = _cbuffer(c.Name.decode(), c.Type, c.Size)
        for v in range(c.Variables):
            var = ctypes.c_void_p(_method(cb, 1, ctypes.c_void_p, ctypes.c_uint)(v))
            vd = _VariableDesc()
            _method(var, 0, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(vd))
            out["Variables"].append(_variable(vd.Name.decode(), vd.StartOffset, vd.Size))
        cbuffers.append(out)
    return {"bindings": bindings, "cbuffers": cbuffers}


class Dxc:
    """DxcCreateInstance's compiler (IDxcCompiler3) and utilities (IDxcUtils)."""

    CLSID_COMPILER = "73e22d93-e6ce-47f3-b5bf-f0664f39c1b0"
    IID_COMPILER3 = "228b4687-5a6a-4730-900c-9702b2203f54"
    CLSID_UTILS = "6245d6af-66e0-48fd-80b4-4d271796748c"
    IID_UTILS = "4605c4cb-2019-492a-ada4-65f20bb7d67f"
    IID_RESULT = "58346cda-dde7-4497-9461-6f87af5e0659"
    IID_REFLECTION = "5a58797d-a72c-478d-8ba2-efc6b0efe88e"  # ID3D12ShaderReflection

    def __init__(self, path: Path):
        self.lib = ctypes.CDLL(str(path))
        self.compiler = self._create(self.CLSID_COMPILER, self.IID_COMPILER3)
        self.utils = self._create(self.CLSID_UTILS, self.IID_UTILS)

    def _create(self, clsid: str, iid: str) -> ctypes.c_void_p:
        obj = ctypes.c_void_p()
        hr = self.lib.DxcCreateInstance(_guid(clsid), _guid(iid), ctypes.byref(obj))
        if hr != 0 or not obj:
            raise RuntimeError(f"DxcCreateInstance({clsid}) failed: {hr & 0xFFFFFFFF:#x}")
        return obj

    def compile(self, source: bytes, entry: str, target: str) -> bytes:
        args = ["-E", entry, "-T", target, *DXC_ARGS]
        argv = (ctypes.c_wchar_p * len(args))(*args)
        src = ctypes.create_string_buffer(source, len(source))
        buf = _Buffer(ctypes.cast(src, ctypes.c_void_p), len(source), 65001)  # DXC_CP_UTF8
        result = ctypes.c_void_p()
        hr = _method(self.compiler, _BASE, ctypes.c_int, ctypes.POINTER(_Buffer), ctypes.c_void_p,
                     ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.byref(buf), argv, len(args), None, _guid(self.IID_RESULT), ctypes.byref(result))
        status = ctypes.c_int()
        _method(result, _BASE, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(status))
        if hr != 0 or status.value != 0:
            errors = ctypes.c_void_p()
            _method(result, _BASE + 2, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(errors))
            message = self._bytes(errors).decode(errors="replace")
            raise RuntimeError(f"DXC {entry} {target}: {message}")
        blob = ctypes.c_void_p()
        _method(result, _BASE + 1, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(blob))
        return self._bytes(blob)

    @staticmethod
    def _bytes(blob: ctypes.c_void_p) -> bytes:
        if not blob:
            return b""
        ptr = _method(blob, _BASE, ctypes.c_void_p)()
        size = _method(blob, _BASE + 1, ctypes.c_size_t)()
        return ctypes.string_at(ptr, size)

    def reflect(self, code: bytes) -> dict:
        data = ctypes.create_string_buffer(code, len(code))
        buf = _Buffer(ctypes.cast(data, ctypes.c_void_p), len(code), 0)
        refl = ctypes.c_void_p()
        hr = _method(self.utils, _BASE + 10, ctypes.c_int, ctypes.POINTER(_Buffer),
                     ctypes.c_void_p, ctypes.c_void_p)(
            ctypes.byref(buf), _guid(self.IID_REFLECTION), ctypes.byref(refl))
        if hr != 0:
            raise RuntimeError(f"CreateReflection failed: {hr & 0xFFFFFFFF:#x}")
        desc = _ShaderDesc()
        _method(refl, _BASE, ctypes.c_int, ctypes.c_void_p)(ctypes.byref(desc))
        out: dict = {"version": desc.Version,
                     "gs": {k: getattr(desc, k) for k in ("GSOutputTopology",
                                                          "GSMaxOutputVertexCount",
                                                          "InputPrimitive", "cGSInstanceCount")}}
        for kind, index, count in (("input", 4, desc.InputParameters),
                                   ("output", 5, desc.OutputParameters),
                                   ("patch_constant", 6, desc.PatchConstantParameters)):
            rows = []
            for i in range(count):
                p = _ParameterDesc()
                _method(refl, _BASE + index, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p)(
                    i, ctypes.byref(p))
                rows.append({"SemanticName": p.SemanticName.decode(),
                             **{k: getattr(p, k) for k, _ in _ParameterDesc._fields_[1:]}})
            out[kind] = rows
        out.update(_dxc_resources(refl, desc))
        return out


# -- the manifest ---------------------------------------------------------------------------
def _file(stem: Path, suffix: str) -> Path:
    return stem.with_name(stem.name + suffix)


def blob_name(source: str, entry: str, target: str) -> str:
    return f"{Path(source).stem}.{entry}.{target}"


def regenerate(out: Path, dxc_path: Path, fxc_dll: Path, work: Path) -> None:
    manifest = json.loads((HERE / "manifest.json").read_text())
    dxc = Dxc(dxc_path)
    driver = build_driver(work)
    for shader in manifest["shaders"]:
        source = HERE / shader["source"]
        for target in shader["targets"]:
            name = blob_name(shader["source"], shader["entry"], target)
            path = out / name
            if int(target.split("_")[1]) >= 6:
                _file(path, ".cso").write_bytes(
                    dxc.compile(source.read_bytes(), shader["entry"], target))
                tool, flags, compiler = "dxc", " ".join(DXC_ARGS), dxc_path
            else:
                tool, flags, compiler = "fxc", str(FXC_FLAGS), fxc_dll
                reflection = fxc(fxc_dll, driver, source, shader["entry"], target, path)
            if tool == "dxc":
                reflection = dxc.reflect(_file(path, ".cso").read_bytes())
            meta = {"source": shader["source"], "entry": shader["entry"], "target": target,
                    "compiler": tool, "compiler_file": compiler.name,
                    "compiler_package": PACKAGES[tool], "compiler_sha256": sha256(compiler),
                    "flags": flags, "sha256": sha256(_file(path, ".cso")),
                    "reflection": reflection}
            _file(path, ".json").write_text(json.dumps(meta, indent=1) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dxc", type=Path, required=True, help="libdxcompiler_x86_64.so")
    p.add_argument("--fxc", type=Path, required=True, help="d3dcompiler_47.dll")
    p.add_argument("--check", action="store_true",
                   help="compile into a temporary folder and fail on any difference")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        out = work / "blobs" if args.check else BLOBS
        out.mkdir(parents=True, exist_ok=True)
        regenerate(out, args.dxc, args.fxc, work)
        if not args.check:
            return 0
        made = {f.name for f in out.iterdir()}
        kept = {f.name for f in BLOBS.iterdir()}
        differ = sorted(n for n in made | kept
                        if n not in made or n not in kept
                        or (out / n).read_bytes() != (BLOBS / n).read_bytes())
        for name in differ:
            print(f"differs: blobs/{name}", file=sys.stderr)
        return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
