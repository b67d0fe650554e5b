"""A shader's registers against a root signature (docs/rules.md 16.9) and where the covered
registers land in WebGPU (docs/resources.md, "Root signatures")."""

import pytest

from gpuia.d3d.root_signature import ShaderBinding, cover, parse_root_signature, webgpu_bindings
from gpuia.d3d.srv_bindings import srv_binding
from gpuia.errors import InvalidDescError, UnsupportedError

CB0 = ShaderBinding("b", 0, 0, 1, "cbuffer", "Camera", 64)
PALETTE = ShaderBinding("t", 3, 0, 1, "structured", "Palette")
TEX = ShaderBinding("t", 5, 0, 1, "texture", "Albedo")


def rs(text, version="1.1"):
    return parse_root_signature(text, version)


def test_covered_by_table_constants_and_descriptor():
    sig = rs("RootConstants(num32BitConstants=16, b0, visibility=SHADER_VISIBILITY_VERTEX), "
             "DescriptorTable(SRV(t0, numDescriptors=4)), SRV(t5)")
    got = cover(sig, [CB0, PALETTE])
    assert [(r.kind, r.parameter, r.range) for _, r in got] == \
        [("root constants", 0, None), ("table", 1, 0)]


def test_not_visible_to_the_stage():
    # 16.9: a PIXEL range does not hold a vertex shader's register
    with pytest.raises(InvalidDescError) as e:
        cover(rs("SRV(t3, visibility=SHADER_VISIBILITY_PIXEL)"), [PALETTE])
    assert "t3" in str(e.value) and "root parameter 0" in str(e.value)
    assert "rules 16.9" in str(e.value)


def test_wrong_space_names_the_closest_range():
    with pytest.raises(InvalidDescError, match="closest is root parameter 1") as e:
        cover(rs("SRV(t0, space=1), DescriptorTable(SRV(t2, numDescriptors=8, space=1))"),
              [PALETTE])
    assert "rules 16.9" in str(e.value)


def test_array_must_sit_in_one_range():
    # 16.9: t2..t5 over two ranges t2..t3 and t4..t5 is not held whole by one
    arr = ShaderBinding("t", 2, 0, 4, "structured", "Lights")
    with pytest.raises(InvalidDescError, match="rules 16.9"):
        cover(rs("DescriptorTable(SRV(t2, numDescriptors=2), SRV(t4, numDescriptors=2))"), [arr])
    cover(rs("DescriptorTable(SRV(t0, numDescriptors=unbounded))"), [arr])


def test_texture_on_root_descriptor():
    # 16.9: a root SRV holds raw and structured buffers only
    with pytest.raises(InvalidDescError, match="root descriptor"):
        cover(rs("SRV(t5)"), [TEX])
    cover(rs("DescriptorTable(SRV(t5))"), [TEX])


def test_deny_flag():
    sig = rs("RootFlags(DENY_VERTEX_SHADER_ROOT_ACCESS), CBV(b0)")
    with pytest.raises(InvalidDescError, match="DENY_VERTEX_SHADER_ROOT_ACCESS"):
        cover(sig, [CB0])
    assert cover(sig, []) == []  # a shader that binds nothing is not denied anything
    # the pixel flag does not deny the vertex stage
    cover(rs("RootFlags(DENY_PIXEL_SHADER_ROOT_ACCESS), CBV(b0)"), [CB0])


def test_mapping_is_the_implied_bindings():
    sig = rs("CBV(b0), DescriptorTable(SRV(t0, numDescriptors=8, space=2))")
    far = ShaderBinding("t", 7, 2, 1, "raw", "Raw")
    rows = webgpu_bindings(sig, cover(sig, [CB0, far]), {})
    assert [(r["register"], r["group"], r["binding"], r["buffer"]) for r in rows] == \
        [("b0", 3, 0, "uniform"), ("t7", 3, 16 + 128 * 2 + 7, "read-only-storage")]
    assert rows[1]["binding"] == srv_binding(7, 2)


def test_root_constants_smaller_than_the_cbuffer():
    sig = rs("RootConstants(num32BitConstants=4, b0)")  # 16 bytes, the cbuffer spans 64
    with pytest.raises(UnsupportedError, match="64 bytes"):
        webgpu_bindings(sig, cover(sig, [CB0]), {})
    sig = rs("RootConstants(num32BitConstants=16, b0)")
    assert webgpu_bindings(sig, cover(sig, [CB0]), {})[0]["binding"] == 0


def test_registers_gpuia_cannot_bind():
    sig = rs("DescriptorTable(SRV(t0, numDescriptors=unbounded, space=7))")
    with pytest.raises(UnsupportedError, match="space7"):
        webgpu_bindings(sig, cover(sig, [ShaderBinding("t", 0, 7, 1, "raw", "R")]), {})
    # gpuia binds u0..u63 (D3D12_UAV_SLOT_COUNT 64) of spaces 0..6
    sig = rs("DescriptorTable(UAV(u0, numDescriptors=unbounded))")
    with pytest.raises(UnsupportedError, match="register u64 of space0 has no WebGPU binding"):
        webgpu_bindings(sig, cover(sig, [ShaderBinding("u", 64, 0, 1, "raw", "Out",
                                                       binding=992)]), {})


def test_adapter_limits():
    sig = rs("DescriptorTable(SRV(t0, numDescriptors=8)), CBV(b0), CBV(b1)")
    srvs = [ShaderBinding("t", k, 0, 1, "raw", f"R{k}") for k in range(8)]
    cbs = [ShaderBinding("b", k, 0, 1, "cbuffer", f"C{k}") for k in range(2)]
    covered = cover(sig, srvs + cbs)
    # 8 storage buffers against 7
    with pytest.raises(UnsupportedError, match="max-storage-buffers-per-shader-stage"):
        webgpu_bindings(sig, covered, {"max_storage_buffers_per_shader_stage": 7})
    # 2 root CBVs + gpuia's draw block + the SRV views uniform = 4 against 3
    with pytest.raises(UnsupportedError, match="max-uniform-buffers-per-shader-stage") as e:
        webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 3})
    assert "4 bindings" in str(e.value)
    assert len(webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 4,
                                              "max_storage_buffers_per_shader_stage": 8})) == 10
    # t0 of space6 is binding 16 + 768 = 784: refused below 785 bindings per group
    sig6 = rs("SRV(t0, space=6)")
    t6 = cover(sig6, [ShaderBinding("t", 0, 6, 1, "raw", "R")])
    with pytest.raises(UnsupportedError, match="max-bindings-per-bind-group 784"):
        webgpu_bindings(sig6, t6, {"max_bindings_per_bind_group": 784})
    assert webgpu_bindings(sig6, t6, {"max_bindings_per_bind_group": 785})[0]["binding"] == 784


SAMPLER = ShaderBinding("s", 0, 0, 1, "sampler", "Point")
TYPED = ShaderBinding("t", 2, 0, 1, "typed", "Heights")
LOADED = ShaderBinding("t", 0, 0, 1, "texture", "HeightMap", binding=912)  # first, loaded


def test_typed_buffer_in_a_table_never_a_root_srv():
    # 16.9: a typed view has a format, which a root SRV (a buffer address) lacks
    with pytest.raises(InvalidDescError, match="root descriptor") as e:
        cover(rs("SRV(t2)"), [TYPED])
    assert "t2" in str(e.value) and "rules 16.9" in str(e.value)
    sig = rs("DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_VERTEX)")
    rows = webgpu_bindings(sig, cover(sig, [TYPED]), {})
    assert [(r["register"], r["resource"], r["buffer"], r["binding"]) for r in rows] == \
        [("t2", "buffer", "read-only-storage", 16 + 2)]


def test_sampler_in_a_sampler_range_or_a_static_sampler():
    for text in ("DescriptorTable(Sampler(s0, numDescriptors=2))", "StaticSampler(s0)",
                 "StaticSampler(s0, visibility=SHADER_VISIBILITY_VERTEX)"):
        [(_, holder)] = cover(rs(text), [SAMPLER])
        assert holder.type == "sampler"
    with pytest.raises(InvalidDescError, match="s0") as e:
        cover(rs("DescriptorTable(SRV(t0)), StaticSampler(s1)"), [SAMPLER])
    assert "rules 16.9" in str(e.value) and "static sampler 0" in str(e.value)


def test_static_sampler_of_the_pixel_stage_does_not_hold_a_vertex_sampler():
    with pytest.raises(InvalidDescError, match="visible to the vertex stage") as e:
        cover(rs("StaticSampler(s0, visibility=SHADER_VISIBILITY_PIXEL)"), [SAMPLER])
    assert "s0" in str(e.value) and "PIXEL" in str(e.value).upper()
    with pytest.raises(InvalidDescError, match="rules 16.9"):
        cover(rs("DescriptorTable(Sampler(s0), visibility=SHADER_VISIBILITY_PIXEL)"), [SAMPLER])


def test_texture_and_sampler_rows():
    # docs/resources.md: the first loaded texture at 912, sampler sN at 928 + N
    sig = rs("DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX), "
             "DescriptorTable(Sampler(s3))")
    sampler3 = ShaderBinding("s", 3, 0, 1, "sampler", "Linear")
    rows = webgpu_bindings(sig, cover(sig, [LOADED, sampler3]), {})
    assert [(r["register"], r["root"], r["binding"], r["resource"], r[r["resource"]],
             r["limit"]) for r in rows] == [
        ("t0", "root parameter 0, range 0", 912, "texture", "unfilterable-float 2d",
         "max_sampled_textures_per_shader_stage"),
        ("s3", "root parameter 1, range 0", 931, "sampler", "filtering",
         "max_samplers_per_shader_stage")]
    sampled = ShaderBinding("t", 0, 0, 1, "texture", "HeightMap", binding=944)
    assert webgpu_bindings(sig, cover(sig, [sampled]), {})[0]["texture"] == "float 2d"
    # an integer texture's slot: 912 + 8192 (uint) or + 16384 (sint), + 4096 for a 3d view
    # (gpuia.d3d.textures.texture_slot); its row has binding 912 and WebGPU's sample type
    for slot, kind in ((912 + 8192, "uint 2d"), (912 + 4096 + 16384, "sint 3d")):
        ints = ShaderBinding("t", 0, 0, 1, "texture", "Indices", binding=slot)
        [row] = webgpu_bindings(sig, cover(sig, [ints]), {})
        assert (row["binding"], row["texture"]) == (912, kind)


def test_texture_and_sampler_limits():
    sig = rs("CBV(b0), DescriptorTable(SRV(t0, numDescriptors=2)), StaticSampler(s0)")
    two = [ShaderBinding("t", k, 0, 1, "texture", f"T{k}", binding=912 + k) for k in range(2)]
    covered = cover(sig, [CB0, *two, SAMPLER])
    with pytest.raises(UnsupportedError,
                       match="2 bindings counted by max-sampled-textures-per-shader-stage"):
        webgpu_bindings(sig, covered, {"max_sampled_textures_per_shader_stage": 1})
    with pytest.raises(UnsupportedError, match="max-samplers-per-shader-stage"):
        webgpu_bindings(sig, covered, {"max_samplers_per_shader_stage": 0})
    # b0, gpuia's draw block and the sampler state uniform: 3 uniform buffers against 2
    with pytest.raises(UnsupportedError, match="3 bindings counted by max-uniform-buffers"):
        webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 2})
    assert len(webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 3,
                                              "max_sampled_textures_per_shader_stage": 2,
                                              "max_samplers_per_shader_stage": 1})) == 4


def test_comparison_sampler_has_no_webgpu_binding():
    # rules 17.10: a SamplerComparisonState's filter is emulated from texel loads, its state
    # in gpuia's sampler state uniform (@binding(14)): no sampler binding, no sampler counted
    # against max-samplers-per-shader-stage, the uniform counted against the uniform buffers
    from types import SimpleNamespace

    from gpuia.d3d.root_signature.pipeline import shader_bindings
    from gpuia.hlsl.textures import ShaderSampler

    shader = SimpleNamespace(samplers=(ShaderSampler("Shadow", 2, comparison=True),
                                       ShaderSampler("Point", 0)))
    shadow, point = shader_bindings(shader)
    assert (shadow.kind, point.kind) == ("comparison sampler", "sampler")
    sig = rs("CBV(b0), StaticSampler(s2, comparisonFunc=COMPARISON_LESS, "
             "filter=FILTER_COMPARISON_MIN_MAG_MIP_POINT)")
    covered = cover(sig, [CB0, shadow])
    rows = webgpu_bindings(sig, covered, {"max_samplers_per_shader_stage": 0})
    assert [(r["register"], r["binding"], r["resource"], r["limit"]) for r in rows] == [
        ("b0", 0, "buffer", "max_uniform_buffers_per_shader_stage"),
        ("s2", None, "none", None)]
    assert "sampler state uniform @binding(14)" in rows[1]["none"]
    from gpuia.cli.root_signature_view import root_signature_text
    text = root_signature_text({"origin": "test", "desc": sig.as_dict(),
                                "mapped": [{"limits": "defaults", "bindings": rows}]})
    assert "s2 space0 (Shadow) <- static sampler 0 (static sampler) -> no WebGPU binding, " \
           "comparison sampler emulated" in text
    # b0, gpuia's draw block and the sampler state uniform: 3 against 2
    with pytest.raises(UnsupportedError, match="3 bindings counted by max-uniform-buffers"):
        webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 2})


def test_sampler_register_gpuia_does_not_bind():
    # gpuia binds s0..s15 of space0 (WebGPU's guaranteed 16 samplers per stage)
    sig = rs("DescriptorTable(Sampler(s0, numDescriptors=unbounded))")
    with pytest.raises(UnsupportedError, match="s16"):
        webgpu_bindings(sig, cover(sig, [ShaderBinding("s", 16, 0, 1, "sampler", "S")]), {})


# A vertex shader's UAVs: the first two of its UAVs (by space, then register) at 992 and 993
# (gpuia.d3d.uav_bindings), as gpuia's compile numbers them.
OUT = ShaderBinding("u", 0, 0, 1, "structured", "Out", binding=992)
RAW = ShaderBinding("u", 2, 0, 1, "raw", "Raw", binding=993)


def test_uav_registers_outside_every_uav_range():
    # 16.9: u2 lies in no UAV range; the refusal names the register and the closest range
    with pytest.raises(InvalidDescError) as e:
        cover(rs("DescriptorTable(UAV(u0, numDescriptors=2)), SRV(t2)"), [OUT, RAW])
    text = str(e.value)
    assert "Raw (register u2, space0)" in text and "no UAV range" in text, text
    assert "closest is root parameter 0, range 0 (table, u0..u1, space0" in text, text
    assert "rules 16.9" in text


def test_a_range_holds_registers_of_its_own_class_only():
    # 16.9: a UAV range's numbers are u registers: it holds no SRV t3, an SRV range no u3
    srv3 = ShaderBinding("t", 3, 0, 1, "structured", "In")
    uav3 = ShaderBinding("u", 3, 0, 1, "structured", "Out", binding=992)
    with pytest.raises(InvalidDescError, match="the root signature binds no SRV register"):
        cover(rs("DescriptorTable(UAV(u0, numDescriptors=8))"), [srv3])
    with pytest.raises(InvalidDescError, match="the root signature binds no UAV register"):
        cover(rs("DescriptorTable(SRV(t0, numDescriptors=8))"), [uav3])
    # a CBV range neither: b3 is a third register of number 3
    with pytest.raises(InvalidDescError, match="no UAV range"):
        cover(rs("CBV(b3), SRV(t3)"), [uav3])
    # and t3 beside u3 is no double binding (rules 16.6 compares within a class)
    sig = rs("DescriptorTable(SRV(t3), UAV(u3))")
    assert [r.type for _, r in cover(sig, [srv3, uav3])] == ["srv", "uav"]


def test_uav_visibility_and_space():
    # 16.9: a PIXEL UAV range does not hold a vertex shader's u0; one of space1 not u0 of space0
    with pytest.raises(InvalidDescError, match="visible to the vertex stage"):
        cover(rs("DescriptorTable(UAV(u0), visibility=SHADER_VISIBILITY_PIXEL)"), [OUT])
    with pytest.raises(InvalidDescError, match="closest is root parameter 0"):
        cover(rs("UAV(u0, space=1)"), [OUT])
    [(_, held)] = cover(rs("UAV(u0, visibility=SHADER_VISIBILITY_VERTEX)"), [OUT])
    assert held.kind == "root descriptor"


def test_root_uav_holds_structured_and_raw_only():
    # 16.9: a root UAV is a buffer address: no format (typed), no counter
    assert len(cover(rs("UAV(u0), UAV(u2)"), [OUT, RAW])) == 2
    for kind in ("typed", "counter"):
        with pytest.raises(InvalidDescError, match="root descriptor") as e:
            cover(rs("UAV(u0)"), [ShaderBinding("u", 0, 0, 1, kind, "Out", binding=992)])
        assert "u0" in str(e.value) and "rules 16.9" in str(e.value)
    cover(rs("DescriptorTable(UAV(u0))"), [ShaderBinding("u", 0, 0, 1, "typed", "T")])


def test_uav_rows():
    # docs/resources.md: the shader's k-th UAV at 992 + k, a read-write storage buffer
    sig = rs("UAV(u0), DescriptorTable(UAV(u1, numDescriptors=2))")
    rows = webgpu_bindings(sig, cover(sig, [OUT, RAW]), {})
    assert [(r["register"], r["root"], r["held_by"], r["binding"], r["resource"], r["buffer"],
             r["limit"]) for r in rows] == [
        ("u0", "root parameter 0", "root descriptor", 992, "buffer", "storage",
         "max_storage_buffers_per_shader_stage"),
        ("u2", "root parameter 1, range 0", "table", 993, "buffer", "storage",
         "max_storage_buffers_per_shader_stage")]


def test_uavs_count_with_the_srvs():
    # one SRV and two UAVs: 3 storage buffers of the stage; b0, gpuia's draw block and one
    # views uniform (shared by SRVs and UAVs): 3 uniform buffers
    sig = rs("CBV(b0), SRV(t3), DescriptorTable(UAV(u0, numDescriptors=4))")
    covered = cover(sig, [CB0, PALETTE, OUT, RAW])
    with pytest.raises(UnsupportedError,
                       match="3 bindings counted by max-storage-buffers-per-shader-stage"):
        webgpu_bindings(sig, covered, {"max_storage_buffers_per_shader_stage": 2})
    with pytest.raises(UnsupportedError,
                       match="3 bindings counted by max-uniform-buffers-per-shader-stage"):
        webgpu_bindings(sig, covered, {"max_uniform_buffers_per_shader_stage": 2})
    assert len(webgpu_bindings(sig, covered, {"max_storage_buffers_per_shader_stage": 3,
                                              "max_uniform_buffers_per_shader_stage": 3})) == 4
    # UAVs alone bring the views uniform too
    sig = rs("CBV(b0), UAV(u0)")
    with pytest.raises(UnsupportedError, match="3 bindings counted by max-uniform"):
        webgpu_bindings(sig, cover(sig, [CB0, OUT]), {"max_uniform_buffers_per_shader_stage": 2})
