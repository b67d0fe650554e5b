"""Real engines' vertex shaders through gpuia: how many compile and pass ``gpuia check``.

Given folders (or files) of HLSL that the user fetched (DirectX-Graphics-Samples and MiniEngine,
DirectXTK12, imgui, WickedEngine, AMD Cauldron...; nothing of theirs is in gpuia), this tries
every vertex entry point it finds, as it is (no defines, the default matrix packing):

1. **compile**: :func:`gpuia.hlsl.compile_shader` (what ``gpuia validate`` runs), with the
   file's own folder and every ``--include`` folder searched by ``#include``;
2. **check**: a case generated from the compiled signature (every input element in one vertex
   buffer, every cbuffer the entry reads filled member by member, every output streamed out, a
   POINTLIST draw of 12 vertices and 2 instances), loaded as ``gpuia check`` loads it and
   cross-checked on the first adapter: every GPU path, and the Stream Output of the shader run
   on the GPU against its CPU reference. The values are deterministic and plausible: floats in
   [-1, 1], integer indices (BLENDINDICES) 0-1, other integer inputs 2-5, cbuffer integers 1-2
   (never 0: a shader may divide by one), bools true.

A shader passes when it compiles and every line of its check is ``OK`` (a path that is ``not
applicable`` on the adapter does not count against it; the Stream Output line must be ``OK``).
Each failure is reported with its reason (gpuia's one-line error, or the check's differing
lines). The report counts entry points; ``--list`` restricts them to the ones a text file names
(``path`` or ``path:entry``, one a line, relative to the folder; ``#`` starts a comment line),
so a fixed set can be measured again.

Vertex entry points are found by name: a function whose name spells ``VS`` as a word (``VSMain``,
``mainVS``, ``VSBasicTx``, ``vs_main``), or ``main`` in a file whose name does (``ModelViewerVS``,
``objectVS_common``, ``mesh.vs``, ``*_vs``, ``*Vertex*``). Functions inside ``#if 0`` count
too: they fail to compile and say so.

Run: ``python benchmarks/real_shaders.py FOLDER [FOLDER...] [--list FILE | --forty]
[--include DIR] [--no-check] [--out report.json]``. Exit status 0 whatever the numbers.

``--forty`` measures :data:`FORTY`: 40 vertex entry points of the five engines, each repository
in a folder of FOLDER named ``owner+name`` (its files at their own paths; the two imgui entries
are the vertex shader strings of ``backends/imgui_impl_dx11.cpp`` and ``imgui_impl_dx12.cpp``
saved as the files named). Measured on lavapipe (repositories at DirectX-Graphics-Samples
357ade6e, DirectXTK12 695e07f, imgui 46d39d56f, WickedEngine bc3ef1654, Cauldron b92d559):

* the forty: 23 compiled and passed before gpuia resolved includes itself and took fxc's
  forms; now 35 compile and pass. The five that fail: four WickedEngine shaders (its
  ``globals.hlsli`` uses HLSL 2021's ``template`` functions and out-of-line member definitions,
  ``L1 L1::Packed::Unpack()``, which Slang does not parse) and nBodyGravity's particle shader
  (it reads a StructuredBuffer: gpuia binds no resources yet);
* every vertex entry point found in those repositories (216): 51 compiled and passed before;
  now 177 compile and 173 pass. Besides the above, the failures are WickedEngine's (34 of 36:
  the same two reasons, and a ``__`` name), four more resource readers, and four DirectXTK
  lighting entries whose generated constants make ``pow(0, y < 0)`` (a negative
  SpecularPower), which WGSL leaves indeterminate: with positive constants they pass.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import struct
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

EXTENSIONS = (".hlsl", ".fx")
FORTY = (
    "microsoft+DirectXTK12/Src/Shaders/AlphaTestEffect.fx:VSAlphaTest",
    "microsoft+DirectXTK12/Src/Shaders/BasicEffect.fx:VSBasicVertexLighting",
    "microsoft+DirectXTK12/Src/Shaders/BasicEffect.fx:VSBasicPixelLightingTx",
    "microsoft+DirectXTK12/Src/Shaders/DebugEffect.fx:VSDebug",
    "microsoft+DirectXTK12/Src/Shaders/DualTextureEffect.fx:VSDualTexture",
    "microsoft+DirectXTK12/Src/Shaders/EnvironmentMapEffect.fx:VSEnvMap",
    "microsoft+DirectXTK12/Src/Shaders/NormalMapEffect.fx:VSNormalPixelLightingTx",
    "microsoft+DirectXTK12/Src/Shaders/SkinnedEffect.fx:VSSkinnedVertexLightingFourBones",
    "microsoft+DirectXTK12/Src/Shaders/PBREffect.fx:VSConstant",
    "microsoft+DirectXTK12/Src/Shaders/PostProcess.fx:VSQuad",
    "ocornut+imgui/imgui_impl_dx11_vs.hlsl:main",
    "ocornut+imgui/imgui_impl_dx12_vs.hlsl:main",
    "turanszkij+WickedEngine/Samples/Example_ImGui/ImGuiVS.hlsl:main",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12HelloWorld/src/HelloTriangle/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12HelloWorld/src/HelloConstBuffers/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12HelloWorld/src/HelloTexture/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12HelloWorld/src/HelloBundles/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12Bundles/src/shader_mesh_simple_vert.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12Multithreading/src/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12ExecuteIndirect/src/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12Fullscreen/src/sceneShaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12HDR/src/gradientVS.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12LinkedGpus/src/LinkedGpus/SceneVS.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12PredicationQueries/src/shaders.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12SM6WaveIntrinsics/src/wave.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12StateObjectDatabase/src/PositionColorVS.hlsl:PositionColorVS",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12VariableRateShading/src/ShadowsAndScenePass.hlsl:VSMain",
    "microsoft+DirectX-Graphics-Samples/Samples/Desktop/D3D12nBodyGravity/src/ParticleDraw.hlsl:VSParticleDraw",
    "microsoft+DirectX-Graphics-Samples/MiniEngine/Model/Shaders/ModelViewerVS.hlsl:main",
    "microsoft+DirectX-Graphics-Samples/MiniEngine/Model/Shaders/DepthOnlyVS.hlsl:main",
    "microsoft+DirectX-Graphics-Samples/MiniEngine/Core/Shaders/TextVS.hlsl:main",
    "microsoft+DirectX-Graphics-Samples/MiniEngine/Core/Shaders/ScreenQuadCommonVS.hlsl:main",
    "microsoft+DirectX-Graphics-Samples/MiniEngine/Model/Shaders/SkyboxVS.hlsl:main",
    "turanszkij+WickedEngine/WickedEngine/shaders/fontVS.hlsl:main",
    "turanszkij+WickedEngine/WickedEngine/shaders/imageVS.hlsl:main",
    "turanszkij+WickedEngine/WickedEngine/shaders/vertexcolorVS.hlsl:main",
    "turanszkij+WickedEngine/WickedEngine/shaders/screenVS.hlsl:main",
    "GPUOpen-LibrariesAndSDKs+Cauldron/src/DX12/shaders/GLTFPbrPass-VS.hlsl:mainVS",
    "GPUOpen-LibrariesAndSDKs+Cauldron/src/DX12/shaders/GLTFDepthPass.hlsl:mainVS",
    "GPUOpen-LibrariesAndSDKs+Cauldron/src/DX12/shaders/GLTFMotionVectorsPass.hlsl:mainVS",
)
"""The forty entry points ``--forty`` measures (``path:entry``, under the folder given)."""
_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_FUNCTION_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\(([^;{}()]|\([^;{}()]*\))*\)\s*"
                          r"(?::\s*\w+\s*)?\{")
_VS_NAME_RE = re.compile(r"(?:^|_)[vV][sS](?:_|$)|(?:^|[a-z0-9])VS(?:[A-Z0-9_]|$)|^vs[A-Z]")
_VS_FILE_RE = re.compile(r"(?:^|[_.\-])[vV][sS](?:[_.\-]|$)|[a-z0-9]VS(?:[A-Z_]|$)|Vertex|"
                         r"vertex")
_OTHER_STAGE_RE = re.compile(r"(?:^|[_.\-a-z0-9])(?:PS|CS|GS|HS|DS|ps|cs|gs)(?:[_.\-A-Z0-9]|$)")
_KEYWORDS = frozenset("if for while switch return do".split())
_BUILTIN_RE = re.compile(r"^(?:(?:in|const|uniform)\s+)*(?:float|int|uint|bool|half|double|"
                         r"min16\w+)(?:[1-4](?:x[1-4])?)?\s+\w+$")


def _helper(params: str, after: str) -> bool:
    """A function of built-in numbers without semantics (``ComputeCommonVS(float4 position,
    float3 normal)``) or with ``uniform`` arguments: a helper, not an entry point."""
    if re.search(r"\buniform\b", params):  # fxc effects' compile-time arguments
        return True
    if ":" in params or ":" in after:
        return False
    return all(_BUILTIN_RE.match(" ".join(p.split())) for p in params.split(",") if p.strip())


def vertex_entries(text: str, file_name: str) -> list[str]:
    """The names of the functions of ``text`` that look like vertex entry points (see the
    module docstring), in order, each once."""
    code = _COMMENT_RE.sub(" ", text)
    code = re.sub(r"^[ \t]*#[^\n]*(?:\\\n[^\n]*)*", " ", code, flags=re.M)
    stem = Path(file_name).stem
    out: list[str] = []
    for m in _FUNCTION_RE.finditer(code):
        name = m.group(1)
        if name in _KEYWORDS or name in out:
            continue
        depth = code.count("{", 0, m.start()) - code.count("}", 0, m.start())
        if depth:
            continue
        params = m.group(0)[m.group(0).index("(") + 1:m.group(0).rindex(")")]
        if _helper(params, m.group(0)[m.group(0).rindex(")"):]):
            continue
        if _VS_NAME_RE.search(name) or (name == "main" and _VS_FILE_RE.search(stem)
                                        and not _OTHER_STAGE_RE.search(stem)):
            out.append(name)
    return out


# -- the generated case -------------------------------------------------------------------------
_FORMAT_KIND = {"float": "FLOAT", "uint": "UINT", "sint": "SINT", "bool": "UINT"}
_CHANNELS = ("R32", "R32G32", "R32G32B32", "R32G32B32A32")
VERTICES, INSTANCES = 12, 2


_INDEX_SEMANTICS = ("BLENDINDICES", "BONEINDICES", "INDEX")


def _value_bytes(kind: str, rng: random.Random, ints: tuple[int, int]) -> bytes:
    """One 32-bit value: floats in [-1, 1] on a 1/64 grid, integers in ``ints``, bools
    true."""
    if kind == "float":
        return struct.pack("<f", rng.randint(-64, 64) / 64)
    if kind == "bool":
        return struct.pack("<I", 1)
    return struct.pack("<I", rng.randint(*ints))


def _input_ints(semantic: str) -> tuple[int, int]:
    """Integer inputs: 0-1 for indices into the shader's arrays (BLENDINDICES), else 2-5, so
    that a difference with a cbuffer integer (1-2, never 0: a shader may divide by it) does
    not wrap around (MiniEngine's glyph rectangle minus its border, say)."""
    return (0, 1) if semantic.startswith(_INDEX_SEMANTICS) else (2, 5)


def generated_case(shader, hlsl_path: str, entry: str, name: str) -> dict:
    """A case that feeds every input of ``shader`` from one vertex buffer, fills every cbuffer
    it reads, and streams every output out (see the module docstring)."""
    rng = random.Random(f"{hlsl_path}:{entry}")
    elements, kinds, stride = [], [], 0
    for leaf in shader.entry.inputs():
        if leaf.semantic in ("SV_VERTEXID", "SV_INSTANCEID"):
            continue
        fmt = f"{_CHANNELS[leaf.components - 1]}_{_FORMAT_KIND[leaf.kind]}"
        elements.append({"SemanticName": leaf.semantic, "SemanticIndex": leaf.index,
                         "Format": fmt, "InputSlot": 0, "AlignedByteOffset": stride})
        kinds += [(leaf.kind, _input_ints(leaf.semantic))] * leaf.components
        stride += 4 * leaf.components
    data = b"".join(_value_bytes(k, rng, ints) for _ in range(VERTICES) for k, ints in kinds)
    decl, out_stride = [], 0
    for leaf in shader.entry.outputs():
        decl.append({"Stream": 0, "SemanticName": leaf.semantic, "SemanticIndex": leaf.index,
                     "StartComponent": 0, "ComponentCount": leaf.components, "OutputSlot": 0})
        out_stride += 4 * leaf.components
    cbuffers = []
    for cb in shader.constant_buffers:
        raw = bytearray(cb.registers * 16)
        for m in cb.members:
            raw[m.d3d:m.d3d + 4] = _value_bytes(m.kind, rng, (1, 2))
        cbuffers.append({"slot": cb.slot, "data": {"hex": raw.hex()}})
    doc = {"gpuia_case": 1, "name": name,
           "input_layout": elements or [{"SemanticName": "UNUSED", "Format": "R32_FLOAT"}],
           "vertex_buffers": [{"slot": 0, "stride": max(stride, 4),
                               "data": {"hex": (data or bytes(4 * VERTICES)).hex()}}],
           "primitive_topology": "POINTLIST",
           "draw": {"DrawInstanced": {"VertexCountPerInstance": VERTICES,
                                      "InstanceCount": INSTANCES, "StartVertexLocation": 0,
                                      "StartInstanceLocation": 0}},
           "vertex_shader": {"hlsl_file": hlsl_path, "entry_point": entry},
           "constant_buffers": cbuffers,
           "stream_output": {"declaration": decl, "buffer_strides": [out_stride],
                             "rasterized_stream": "NO_RASTERIZED_STREAM",
                             "targets": [{"slot": 0,
                                          "size": out_stride * VERTICES * INSTANCES}]}}
    return doc


# -- one entry point ------------------------------------------------------------------------------
@dataclass
class Outcome:
    file: str
    entry: str
    compiled: bool = False
    passed: bool = False
    stage: str = ""  # where it failed: compile, case, check
    reason: str = ""
    seconds: float = 0.0


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300] or type(exc).__name__


def try_entry(path: Path, label: str, entry: str, include_dirs, device, work: Path) -> Outcome:
    from gpuia.errors import GpuiaError
    from gpuia.hlsl import compile_shader

    out = Outcome(label, entry)
    t0 = time.perf_counter()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
        shader = compile_shader(text, "vertex", entry, file_name=label,
                                source_path=str(path.resolve()),
                                include_dirs=include_dirs)
    except GpuiaError as e:
        out.stage, out.reason = "compile", _one_line(e)
        out.seconds = time.perf_counter() - t0
        return out
    except Exception as e:  # noqa: BLE001 (a traceback is this entry's result, not the run's end)
        out.stage, out.reason = "crash", f"{type(e).__name__}: {_one_line(e)}"
        out.seconds = time.perf_counter() - t0
        return out
    out.compiled = True
    if device is None:
        out.passed = True
        out.seconds = time.perf_counter() - t0
        return out
    from gpuia.harness.case import load_case
    from gpuia.harness.crosscheck import cross_check

    case_file = work / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', label)}.{entry}.json"
    try:
        doc = generated_case(shader, str(path.resolve()), entry, f"{label}:{entry}")
        case_file.write_text(json.dumps(doc), encoding="utf-8")
        case = load_case(case_file)
    except GpuiaError as e:
        out.stage, out.reason = "case", _one_line(e)
        out.seconds = time.perf_counter() - t0
        return out
    try:
        result = cross_check(case, device)
    except GpuiaError as e:
        out.stage, out.reason = "check", _one_line(e)
        out.seconds = time.perf_counter() - t0
        return out
    except Exception as e:  # noqa: BLE001 (a traceback is this entry's result, not the run's end)
        out.stage, out.reason = "crash", f"{type(e).__name__}: {_one_line(e)}"
        out.seconds = time.perf_counter() - t0
        return out
    bad = [line for line in result.lines if line.status not in ("OK", "not applicable")]
    so_ok = any(line.path == "stream output" and line.status == "OK" for line in result.lines)
    if bad or not so_ok:
        out.stage = "check"
        out.reason = "; ".join(f"{line.path}: {line.status}: {line.detail} "
                               f"{' '.join(line.problems[:2])}"[:300] for line in bad) \
            or "no Stream Output line compared"
    else:
        out.passed = True
    out.seconds = time.perf_counter() - t0
    return out


def shader_files(roots, listed: list[str] | None) -> list[tuple[Path, str, list[str] | None]]:
    """(path, label, entry points or None: those found by name) of every HLSL file to try: the
    listed ones (``path`` or ``path:entry``), else every file under the roots whose extension
    is one of :data:`EXTENSIONS`."""
    out: list[tuple[Path, str, list[str] | None]] = []
    for root in map(Path, roots):
        if root.is_file():
            out.append((root, root.name, None))
            continue
        if listed is not None:
            for line in listed:
                rel, _, entry = line.partition(":")
                if not (root / rel).is_file():
                    print(f"{rel}: not found under {root}", file=sys.stderr)
                    continue
                out.append((root / rel, rel, [entry] if entry else None))
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix.lower() in EXTENSIONS and path.is_file():
                out.append((path, str(path.relative_to(root)), None))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("roots", nargs="+", help="folders (searched recursively) or files")
    parser.add_argument("--list", help="a text file naming the files to try, one a line, "
                                       "relative to the folder (path or path:entry)")
    parser.add_argument("--forty", action="store_true", help="measure FORTY (see the module "
                                                             "docstring)")
    parser.add_argument("--include", action="append", default=[],
                        help="an include folder for every file (repeatable)")
    parser.add_argument("--no-check", action="store_true", help="compile only (no GPU)")
    parser.add_argument("--out", help="write every outcome as JSON here")
    parser.add_argument("--quiet", action="store_true", help="print only the failures and "
                                                             "the totals")
    args = parser.parse_args(argv)
    os.environ.setdefault("GPUIA_CACHE_DIR", "none")
    listed = list(FORTY) if args.forty else None
    if args.list:
        listed = [line.strip() for line in Path(args.list).read_text().splitlines()
                  if line.strip() and not line.lstrip().startswith("#")]
    device = None
    if not args.no_check:
        from gpuia.gpu import get_device

        device = get_device()
        print(f"adapter: {device.info['summary']}")
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="gpuia-real-") as tmp:
        for path, label, entries in shader_files(args.roots, listed):
            text = path.read_text(encoding="utf-8", errors="replace")
            for entry in entries or vertex_entries(text, path.name):
                o = try_entry(path, label, entry, args.include, device, Path(tmp))
                outcomes.append(o)
                if not o.passed or not args.quiet:
                    status = "ok" if o.passed else f"FAIL ({o.stage})"
                    print(f"{label}:{entry}: {status}{': ' + o.reason if o.reason else ''}",
                          flush=True)
    total = len(outcomes)
    compiled = sum(o.compiled for o in outcomes)
    passed = sum(o.passed for o in outcomes)
    what = "compiled" if args.no_check else "passed gpuia check"
    print(f"\n{total} vertex entry points: {compiled} compiled, {passed} {what}")
    if args.out:
        Path(args.out).write_text(json.dumps({"total": total, "compiled": compiled,
                                              "passed": passed,
                                              "outcomes": [asdict(o) for o in outcomes]},
                                             indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
