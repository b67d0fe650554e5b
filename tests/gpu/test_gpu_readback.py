"""gpuia.gpu.readback.read_ranges on every adapter: the bytes of several ranges of several
buffers in one read, including lengths that are no multiple of 4, an empty range and a range
large enough to be copied out in chunks on the worker threads; ranges outside a buffer are
refused before anything is encoded. Expected bytes are the ones written."""

from __future__ import annotations

import numpy as np
import pytest

from gpuia.gpu import readback
from gpuia.gpu.readback import read_ranges


def _buffer(dev, data: np.ndarray):
    return dev.device.create_buffer_with_data(data=data, usage="STORAGE|COPY_SRC")


def test_ranges_of_several_buffers_in_one_read(devices, monkeypatch):
    monkeypatch.setattr(readback, "_CHUNK_BYTES", 4096)  # the large range goes in 4 KiB pieces
    rng = np.random.default_rng(7)
    for dev in devices:
        a = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
        b = rng.integers(0, 256, 1000, dtype=np.uint8)
        ba, bb = _buffer(dev, a), _buffer(dev, b)
        got = read_ranges(dev.device, [(ba, 0, a.size), (bb, 8, 13), (ba, 4, 0), (bb, 996, 4)])
        assert [g.dtype for g in got] == [np.uint8] * 4
        np.testing.assert_array_equal(got[0], a)
        np.testing.assert_array_equal(got[1], b[8:21])
        assert got[2].shape == (0,)
        np.testing.assert_array_equal(got[3], b[996:])
        got[0][0] ^= 1  # the caller's own copy
        assert read_ranges(dev.device, [(ba, 0, 4)])[0][0] == a[0]


def _count_staging(dev, monkeypatch, maps: list) -> None:
    """Record in ``maps`` the size of every mappable buffer ``dev`` creates from now on."""
    create = dev.device.create_buffer

    def counting(*args, **kw):
        if "MAP_READ" in str(kw.get("usage")):
            maps.append(kw["size"])
        return create(*args, **kw)

    monkeypatch.setattr(dev.device, "create_buffer", counting)


@pytest.mark.parametrize("offset,size", [(2, 4), (0, 1001), (996, 8), (-4, 4), (0, -1)])
def test_a_range_outside_its_buffer_is_refused(devices, offset, size):
    for dev in devices:
        buf = _buffer(dev, np.zeros(1000, np.uint8))
        with pytest.raises(ValueError, match="do not lie in a buffer of 1000 bytes"):
            read_ranges(dev.device, [(buf, offset, size)])


def test_reads_larger_than_the_staging_buffer_go_in_batches(devices, monkeypatch):
    """With a staging buffer of 1 KiB: a 5,000-byte range is read in pieces across batches,
    ranges beside it (one not a multiple of 4, one into the caller's array) share batches, and
    each map holds at most 1 KiB; every byte is the one written."""
    monkeypatch.setattr(readback, "_STAGING_BYTES", 1024)
    maps = []
    rng = np.random.default_rng(11)
    for dev in devices:
        a = rng.integers(0, 256, 5000, dtype=np.uint8)
        b = rng.integers(0, 256, 300, dtype=np.uint8)
        ba, bb = _buffer(dev, a), _buffer(dev, b)
        into = np.zeros(300, np.uint8)
        _count_staging(dev, monkeypatch, maps)
        got = read_ranges(dev.device, [(bb, 4, 13), (ba, 0, 5000), (bb, 0, 300)],
                          into=[None, None, into])
        np.testing.assert_array_equal(got[0], b[4:17])
        np.testing.assert_array_equal(got[1], a)
        assert got[2] is into
        np.testing.assert_array_equal(into, b)
        assert maps and max(maps) <= 1024


def test_a_reads_own_staging_limit(devices, monkeypatch):
    """``staging_bytes=512``: a 3,000-byte range into the caller's array goes through staging
    buffers of at most 512 bytes; every byte is the one written."""
    maps = []
    rng = np.random.default_rng(13)
    for dev in devices:
        a = rng.integers(0, 256, 3000, dtype=np.uint8)
        ba = _buffer(dev, a)
        into = np.zeros(3000, np.uint8)
        _count_staging(dev, monkeypatch, maps)
        [got] = read_ranges(dev.device, [(ba, 0, 3000)], into=[into], staging_bytes=512)
        assert got is into
        np.testing.assert_array_equal(into, a)
        assert maps and max(maps) <= 512
