"""``gpuia shader`` shows the root signature a container's RTS0 chunk or an HLSL entry's
[RootSignature] holds, with D3D12's verdict (docs/case-format.md, ``gpuia shader``; rules 16)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from gpuia.cli import main

BLOBS = Path(__file__).resolve().parents[1] / "data" / "shaders" / "blobs"


def _with_rts0(container: bytes, rts0: bytes) -> bytes:
    """An FXC container with one more chunk, RTS0, appended (header and table rebuilt)."""
    count = struct.unpack_from("<I", container, 28)[0]
    offsets = struct.unpack_from(f"<{count}I", container, 32)
    body = container[32 + 4 * count:]
    new_offsets = [o + 4 for o in offsets] + [32 + 4 * (count + 1) + len(body)]
    chunk = b"RTS0" + struct.pack("<I", len(rts0)) + rts0
    total = 32 + 4 * (count + 1) + len(body) + len(chunk)
    return container[:24] + struct.pack("<2I", total, count + 1) + \
        struct.pack(f"<{count + 1}I", *new_offsets) + body + chunk


def test_container_rts0(tmp_path, capsys):
    # 1.0, one root CBV b0 space0 visibility VERTEX (type 2, visibility 1, payload at 36)
    rts0 = struct.pack("<6I", 1, 1, 24, 0, 44, 0x1) + struct.pack("<3I", 2, 1, 36) + \
        struct.pack("<2I", 0, 0)
    path = tmp_path / "vs.cso"
    path.write_bytes(_with_rts0((BLOBS / "cbuffers.main.vs_5_0.cso").read_bytes(), rts0))
    assert main(["shader", str(path), "--json"]) == 0
    rs = json.loads(capsys.readouterr().out)["root_signature"]
    assert rs["version"] == "1.0" and rs["flags"] == ["allow_input_assembler_input_layout"]
    assert rs["parameters"] == [{"type": "cbv", "visibility": "vertex", "shader_register": 0,
                                 "register_space": 0}]
    assert rs["verdict"] is None
    assert main(["shader", str(BLOBS / "cbuffers.main.vs_5_0.cso"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["root_signature"] is None


def test_hlsl_attribute_verdict(tmp_path, capsys):
    pytest.importorskip("gpuia.hlsl.library")
    # rules 16.6: t0 bound twice with visibility ALL
    path = tmp_path / "vs.hlsl"
    path.write_text('#define RS "SRV(t0), " \\\n  "SRV(t0)"\n[RootSignature(RS)]\n'
                    'float4 main(float4 p : POSITION) : SV_Position { return p; }\n')
    assert main(["shader", str(path)]) == 0
    out = capsys.readouterr().out
    assert "root signature: version 1.1, 2 parameters" in out and "rules 16.6" in out
