"""What D3D defines where C++ does not (rules section 12), on the GPU path: the CPU reference
(tests/unit/test_hlsl_cpu_defined.py holds it to the spec) against Slang's WGSL on the adapter,
through gpuia check's own comparison. Expected values are the D3D11.3 spec's, derived by hand.

Where WGSL defines another value than D3D, gpuia's WGSL computes D3D's
(gpuia/hlsl/wgsl_defined.py), so every adapter gives D3D's; before, the GPU path gave:
- for an unsigned division or remainder by zero, WGSL's x / 0 = x and x % 0 = 0 (lavapipe),
  D3D's is 0xFFFFFFFF (udiv, 22.12.9);
- for a float beyond the integer range, the largest float inside it (lavapipe: i32 2147483520,
  u32 4294967040), D3D's is 2147483647 / 4294967295 (ftoi/ftou, 22.13.3-4); NaN to int gave
  INT_MIN on lavapipe, D3D's is 0; llvmpipe through OpenGL (wgpu's GLSL, which leaves it
  undefined) gave 0xFFFFFFFF for uint(-2.9), D3D's and WGSL's is 0.
CI runs the file on both adapters (GPUIA_BACKEND=Vulkan and OpenGL).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gpuia.errors import InvalidDescError
from gpuia.harness.case import load_case
from gpuia.harness.crosscheck import cross_check
from gpuia.harness.run import reference_ia, reference_so
from gpuia.harness.run_gpu import run_case_so_gpu

INT_MIN, INT_MAX, UINT_MAX = -2**31, 2**31 - 1, 2**32 - 1


def _case(hlsl: str, rows: list[list], outputs: int) -> dict:
    """A POINTLIST case: TEXCOORD0 is four 32-bit words per vertex (floats as their bits),
    the shader's uint4/int4 outputs TEXCOORD0..outputs-1 streamed out."""
    data = np.zeros((len(rows), 4), np.uint32)
    for i, row in enumerate(rows):
        for c, v in enumerate(row):
            data[i, c] = np.float32(v).view(np.uint32) if isinstance(v, float) \
                else np.uint32(v & 0xFFFFFFFF)
    decl = [{"Stream": 0, "SemanticName": "TEXCOORD", "SemanticIndex": k, "StartComponent": 0,
             "ComponentCount": 4, "OutputSlot": 0} for k in range(outputs)]
    stride = 16 * outputs
    return {
        "gpuia_case": 1, "name": "defined",
        "input_layout": [{"SemanticName": "TEXCOORD", "SemanticIndex": 0,
                          "Format": "R32G32B32A32_UINT", "InputSlot": 0,
                          "AlignedByteOffset": 0, "InputSlotClass": "PER_VERTEX_DATA",
                          "InstanceDataStepRate": 0}],
        "vertex_buffers": [{"slot": 0, "stride": 16, "data": {"hex": data.tobytes().hex()}}],
        "primitive_topology": "POINTLIST",
        "draw": {"DrawInstanced": {"VertexCountPerInstance": len(rows), "InstanceCount": 1,
                                   "StartVertexLocation": 0, "StartInstanceLocation": 0}},
        "vertex_shader": {"hlsl": hlsl},
        "stream_output": {"declaration": decl, "buffer_strides": [stride],
                          "targets": [{"slot": 0, "size": stride * len(rows)}]},
    }


def _words(so_bytes: bytes, n: int, outputs: int) -> np.ndarray:
    return np.frombuffer(so_bytes, np.uint32)[:n * 4 * outputs].reshape(n, outputs, 4)


def _both(doc: dict, device, n: int, outputs: int) -> tuple[np.ndarray, np.ndarray]:
    case = load_case(doc)
    cpu = _words(reference_so(case, reference_ia(case)).buffers[0], n, outputs)
    gpu = _words(run_case_so_gpu(case, device).buffers[0], n, outputs)
    return cpu, gpu


CONVERT = """
struct O { int4 i : TEXCOORD0; uint4 u : TEXCOORD1; int4 s : TEXCOORD2; };
O main(uint4 w : TEXCOORD0) {
    float4 f = asfloat(w);
    O o; o.i = int4(f); o.u = uint4(f);
    int a = asint(w.x);
    o.s = int4(1 << (w.y & 0xFFu), (int)0x80000000 >> (w.y & 0xFFu), a + INT_ONE, a * 2);
    return o;
}
""".replace("INT_ONE", "1")


# Every conversion in range, shifts by counts >= 32, wrapping arithmetic: WGSL agrees with D3D.
AGREE = [[-2.9, 2.9, 2147483520.0, -2147483648.0], [0.5, -0.5, 16777216.0, 65537.75]]
# Beyond the integer range and NaN: WGSL does not.
BEYOND = [[1e30, -1e30, math.nan, math.inf], [-2.9, 2.9, 4294967296.0, -math.inf]]


def _want(rows) -> tuple[list, list, list]:
    """D3D's values, by hand: ftoi/ftou (clamp to the range, NaN 0, truncate); 1 << count and
    INT_MIN >> count by the count's low 5 bits (ishl, ishr); a + 1 and a * 2 modulo 2^32."""
    def ftoi(f):
        return 0 if math.isnan(f) else int(max(-2**31, min(2**31 - 1, math.trunc(f)
                                                            if math.isfinite(f) else f)))

    def ftou(f):
        return 0 if math.isnan(f) else int(max(0, min(2**32 - 1, math.trunc(f)
                                                      if math.isfinite(f) else f)))

    def wrap(v):
        return (v + 2**31) % 2**32 - 2**31

    ints, uints, shifts = [], [], []
    for row in rows:
        ints.append([ftoi(f) for f in row])
        uints.append([ftou(f) for f in row])
        a = int(np.float32(row[0]).view(np.int32))
        count = int(np.float32(row[1]).view(np.uint32)) & 0xFF & 31
        shifts.append([wrap(1 << count), INT_MIN >> count, wrap(a + 1), wrap(a * 2)])
    return ints, uints, shifts


def test_conversions_in_range_shifts_and_wrapping_match_d3d_on_cpu_and_gpu(gpu_device):
    cpu, gpu = _both(_case(CONVERT, AGREE, 3), gpu_device, 2, 3)
    ints, uints, shifts = _want(AGREE)
    for who, got in (("CPU", cpu), ("GPU", gpu)):
        assert got[:, 0].view(np.int32).tolist() == ints, who
        assert got[:, 1].tolist() == uints, who
        assert got[:, 2].view(np.int32).tolist() == shifts, who


def test_conversions_beyond_the_range_are_d3d_values_on_the_cpu(gpu_device):
    cpu, _ = _both(_case(CONVERT, BEYOND, 3), gpu_device, 2, 3)
    ints, uints, shifts = _want(BEYOND)
    assert ints == [[INT_MAX, INT_MIN, 0, INT_MAX], [-2, 2, INT_MAX, INT_MIN]]
    assert cpu[:, 0].view(np.int32).tolist() == ints
    assert cpu[:, 1].tolist() == uints == [[UINT_MAX, 0, 0, UINT_MAX], [0, 2, UINT_MAX, 0]]
    assert cpu[:, 2].view(np.int32).tolist() == shifts


def test_conversions_beyond_the_range_are_d3d_values_on_the_gpu(gpu_device):
    _, gpu = _both(_case(CONVERT, BEYOND, 3), gpu_device, 2, 3)
    ints, uints, _ = _want(BEYOND)
    assert (gpu[:, 0].view(np.int32).tolist(), gpu[:, 1].tolist()) == (ints, uints)


# The edges of ftoi/ftou (22.13.3-4), by hand: -2^31 is INT_MIN exactly; 2147483520 (2^31 - 128,
# the largest float below 2^31) converts as it is; 2^31 and 2^32 - 256, 2^32 are past INT_MAX;
# -2147483904 (the float below -2^31) clamps to INT_MIN; -0.5 truncates to 0, -1.0 to -1 (ftou:
# clamped to 0 first); NaN of either sign, quiet or signalling (0x7F800001) and 0x7FFFFFFF is
# 0; the infinities clamp; a denormal (0x00000001) and -0.0 are 0.
EDGES = [[-2147483648.0, 2147483520.0, 2147483648.0, -2147483904.0],
         [4294967040.0, 4294967296.0, -0.5, -1.0],
         [math.nan, math.inf, -math.inf, -0.0],
         [0xFFC00000, 0x7F800001, 0x7FFFFFFF, 0x00000001]]
EDGE_INTS = [[INT_MIN, 2147483520, INT_MAX, INT_MIN], [INT_MAX, INT_MAX, 0, -1],
             [0, INT_MAX, INT_MIN, 0], [0, 0, 0, 0]]
EDGE_UINTS = [[0, 2147483520, 2147483648, 0], [4294967040, UINT_MAX, 0, 0],
              [0, UINT_MAX, 0, 0], [0, 0, 0, 0]]
EDGE_CONVERT = """
struct O { int4 i : TEXCOORD0; uint4 u : TEXCOORD1; int4 si : TEXCOORD2; uint4 su : TEXCOORD3;
           int4 m : TEXCOORD4; };
float g(float x) { return x; }
O main(uint4 w : TEXCOORD0) {
    float4 f = asfloat(w);
    O o; o.i = int4(f); o.u = uint4(f);
    o.si = int4(int3(f.xyz), (int)g(f.w));
    o.su = uint4(uint2(f.xy), (uint)f.z, (uint)g(f.w));
    int2x2 m = (int2x2)float2x2(f.x, f.y, f.z, f.w);
    o.m = int4(m[0], m[1]);
    return o;
}
"""


def test_conversions_at_the_edges_of_the_range_are_d3d_values_on_cpu_and_gpu(gpu_device):
    """Every width gpuia's WGSL converts (scalars, int2/uint2, int3, int4/uint4, a matrix's
    columns) at the edges of the integer range, at NaN and the infinities: D3D's values on
    both paths."""
    cpu, gpu = _both(_case(EDGE_CONVERT, EDGES, 5), gpu_device, 4, 5)
    for who, got in (("CPU", cpu), ("GPU", gpu)):
        for k, kind in ((0, "int4"), (2, "int3 + int"), (4, "int2x2")):
            assert got[:, k].view(np.int32).tolist() == EDGE_INTS, (who, kind)
        for k, kind in ((1, "uint4"), (3, "uint2 + uint")):
            assert got[:, k].tolist() == EDGE_UINTS, (who, kind)


def test_gpuia_check_agrees_end_to_end(gpu_device):
    """gpuia check on a case whose values WGSL and D3D agree on: the Stream Output line is OK
    (exact integers)."""
    result = cross_check(load_case(_case(CONVERT, AGREE, 3)), [gpu_device],
                         ("native", "pulling"))
    assert result.ok, result.text()
    assert {ln.path: ln.status for ln in result.lines}["stream output"] == "OK", result.text()


VECTOR_DIVIDE = """
struct O { uint4 q : TEXCOORD0; uint4 r : TEXCOORD1; };
O main(uint4 w : TEXCOORD0) {
    O o; o.q = uint4(w.xz / w.yw, w.xz % w.yw); o.r = uint4(w.xy / w.y, w.zw % w.w);
    return o;
}
"""


def test_unsigned_vector_division_by_zero_is_d3d_value(gpu_device):
    """udiv per component, a scalar divisor of a vector too: with (7, 0, 9, 2), (7, 9) / (0, 2)
    is (0xFFFFFFFF, 4), their remainders (0xFFFFFFFF, 1); (7, 0) / 0 is 0xFFFFFFFF twice;
    (9, 2) % 2 is (1, 0)."""
    cpu, gpu = _both(_case(VECTOR_DIVIDE, [[7, 0, 9, 2]], 2), gpu_device, 1, 2)
    want = [[UINT_MAX, 4, UINT_MAX, 1], [UINT_MAX, UINT_MAX, 1, 0]]
    assert cpu[0].tolist() == want
    assert gpu[0].tolist() == want


DIVIDE = """
struct O { uint4 q : TEXCOORD0; };
O main(uint4 w : TEXCOORD0) { O o; o.q = uint4(w.x / w.y, w.x % w.y, w.z / w.w, w.z % w.w);
                              return o; }
"""


def test_unsigned_division_by_zero_is_d3d_value_on_the_gpu(gpu_device):
    cpu, gpu = _both(_case(DIVIDE, [[7, 0, 9, 2]], 1), gpu_device, 1, 1)
    assert cpu[0, 0].tolist() == [UINT_MAX, UINT_MAX, 4, 1]  # the CPU reference: D3D's
    assert gpu[0, 0].tolist() == [UINT_MAX, UINT_MAX, 4, 1]


def test_what_d3d_leaves_undefined_is_not_compared(gpu_device):
    """A signed division by zero: gpuia check says the CPU reference has no value, naming the
    construct, instead of calling the GPU wrong."""
    doc = _case(DIVIDE.replace("uint4 q", "int4 q").replace("uint4(", "int4(")
                .replace("O o;", "int4 v = asint(w); O o;").replace("w.", "v."), [[7, 0, 9, 2]], 1)
    with pytest.raises(InvalidDescError, match="not comparable.*signed integer division"):
        cross_check(load_case(doc), [gpu_device], ("native",))


CONSTANT_SHIFTS = """
struct O { uint4 u : TEXCOORD0; uint4 v : TEXCOORD1; };
O main(uint4 w : TEXCOORD0) {
    O o;
    o.u = uint4(w.x << 33u, w.x >> 40u, w.y << 32u, (uint)(asint(w.y) >> 63));
    uint2 pair = uint2(w.x, w.y) << uint2(w.z, 36u);
    o.v = uint4(pair, w.x >> uint2(32u, 1u));
    return o;
}
"""


def test_constant_shift_counts_of_32_and_more_compile_and_match_d3d(gpu_device):
    """A shift by a literal count of 32 or more compiles (naga refused Slang's WGSL for it) and
    shifts by the count's low five bits on the CPU and on the GPU (ishl/ushr/ishr, rules 12.3):
    with x = 0x81, y = 0x80000001, z = 3: x << 33 = x << 1 = 0x102, x >> 40 = x >> 8 = 0,
    y << 32 = y, ishr(y, 63) = ishr(y, 31) = -1 (0xFFFFFFFF); (x, y) << (3, 36) = (0x408, y << 4
    = 0x10), x >> (32, 1) = (0x81, 0x40)."""
    cpu, gpu = _both(_case(CONSTANT_SHIFTS, [[0x81, 0x80000001, 3, 0]], 2), gpu_device, 1, 2)
    want = [[0x102, 0, 0x80000001, 0xFFFFFFFF], [0x408, 0x10, 0x81, 0x40]]
    assert cpu[0].tolist() == want
    assert gpu[0].tolist() == want
