"""compress / decompress / inspect / codecs: round trips within bound for every codec, dtypes,
shapes, memory orders, non-finite values; bad bytes and bad outputs raise commpress.Error."""

import numpy as np
import pytest

import commpress
from conftest import assert_within, smooth_field

CODECS = commpress.codecs()
LOSSY = [c["name"] for c in CODECS if c["lossy"]]
LOSSLESS = [c["name"] for c in CODECS if not c["lossy"]]
FLOATS = [np.float32, np.float64]


def supports(name, dtype):
    return {np.float32: "f32", np.float64: "f64"}[dtype] in \
        next(c for c in CODECS if c["name"] == name)["dtypes"]


def test_codecs_lists_capabilities():
    names = [c["name"] for c in CODECS]
    assert "szp" in names and "zstd-3" in names and "zfp" in names
    for c in CODECS:
        assert set(c) >= {"name", "id", "lossy", "dtypes", "description"}
        assert c["dtypes"], c


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", LOSSY)
@pytest.mark.parametrize("bound", [{"rel": 1e-3}, {"abs": 1e-4}])
def test_lossy_round_trip_within_bound(rng, name, dtype, bound):
    if not supports(name, dtype):
        pytest.skip(f"{name} does not code {dtype.__name__}")
    a = smooth_field(rng, (20, 30, 40), dtype)
    buf = commpress.compress(a, name, **bound)
    assert isinstance(buf, bytes)
    info = assert_within(a, commpress.decompress(buf), buf)
    assert info["codec"] == name and 0 < info["abs_bound"]
    if "abs" in bound:
        assert info["abs_bound"] <= bound["abs"]
    else:
        assert info["abs_bound"] <= 1e-3 * float(a.max() - a.min())
        assert len(buf) < a.nbytes     # a smooth field at a loose bound compresses


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", LOSSLESS)
def test_lossless_round_trip_is_exact(rng, name, dtype):
    if not supports(name, dtype):
        pytest.skip(f"{name} does not code {dtype.__name__}")
    a = rng.standard_normal((7, 11, 13)).astype(dtype)
    buf = commpress.compress(a, name)
    back = commpress.decompress(buf)
    assert back.shape == a.shape and np.array_equal(back, a)
    assert commpress.inspect(buf)["bound_mode"] == "lossless"


@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (1,), (1000,), (8, 9, 10)])
@pytest.mark.parametrize("name", ["szp", "zstd-3", "zfp"])
def test_shapes_come_back(rng, shape, name):
    a = np.asarray(rng.standard_normal(shape), dtype=np.float32)
    buf = commpress.compress(a, name, rel=1e-3)
    back = commpress.decompress(buf)
    assert back.shape == a.shape
    assert_within(a, back, buf)
    assert commpress.inspect(buf)["shape"] == a.shape


def test_fortran_order_and_strided_input_are_copied(rng):
    a = np.asfortranarray(smooth_field(rng, (16, 24, 8), np.float64))
    buf = commpress.compress(a, "szp", abs=1e-6)
    assert_within(a, commpress.decompress(buf), buf)
    s = smooth_field(rng, (64, 64), np.float32)[::3, 1::2]
    assert not s.flags.c_contiguous
    buf = commpress.compress(s, "szp", abs=1e-5)
    back = commpress.decompress(buf)
    assert back.flags.c_contiguous
    assert_within(s, back, buf)


def test_buffer_protocol_and_byte_swapped_input(rng):
    a = rng.standard_normal(100).astype(np.float32)
    buf = commpress.compress(memoryview(a), "zstd-3")
    assert np.array_equal(commpress.decompress(buf), a)
    swapped = a.astype(">f4")
    back = commpress.decompress(commpress.compress(swapped, "szp", abs=1e-4))
    assert back.dtype == np.float32 and np.abs(back - a).max() <= 1e-4


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", ["szp", "pred-byte", "pred-bit", "zfp", "zstd-1"])
def test_nan_inf_and_huge_ranges(rng, name, dtype):
    if not supports(name, dtype):
        pytest.skip(f"{name} does not code {dtype.__name__}")
    big = np.finfo(dtype).max / 4
    a = rng.standard_normal(4096).astype(dtype)
    a[::97] = np.nan
    a[5::101] = np.inf
    a[7::103] = -np.inf
    a[11::89] = big
    a[13::89] = -big
    a[17] = -0.0
    buf = commpress.compress(a, name, rel=1e-6)
    assert_within(a, commpress.decompress(buf), buf)


def test_bound_arguments():
    a = np.ones(10, np.float32)
    with pytest.raises(commpress.InvalidArgument):
        commpress.compress(a, "szp", rel=1e-3, abs=1e-3)
    with pytest.raises(commpress.Error) as e:
        commpress.compress(a, "szp", rel=-1.0)
    assert e.value.code == 1 and "invalid_argument" in str(e.value)
    with pytest.raises(commpress.Error) as e:
        commpress.compress(a, "no-such-codec", rel=1e-3)
    assert "szp" in e.value.message          # the library's message lists the known names
    with pytest.raises(commpress.InvalidArgument):
        commpress.compress(np.ones(3, np.complex64), "zstd-3")
    exact = commpress.compress(np.arange(10, dtype=np.float64), "szp", lossless=True)
    assert np.array_equal(commpress.decompress(exact), np.arange(10, dtype=np.float64))


def frame_of(a=None):
    a = np.linspace(0, 1, 5000, dtype=np.float32) if a is None else a
    return a, commpress.compress(a, "szp", rel=1e-3)


@pytest.mark.parametrize("cut", [1, 3, 8, 20, 100, -1])
def test_truncated_bytes_raise(cut):
    _, buf = frame_of()
    with pytest.raises(commpress.Error):
        commpress.decompress(buf[:cut])
    with pytest.raises(commpress.Error):
        commpress.inspect(buf[:cut])


def test_corrupt_bytes_raise_with_the_c_code(rng):
    _, buf = frame_of()
    header = len(buf) - commpress.inspect(buf)["frame_size"]
    flipped = bytearray(buf)
    flipped[header + 200] ^= 0x10                        # a payload byte
    with pytest.raises(commpress.ChecksumMismatch) as e:
        commpress.decompress(bytes(flipped))
    assert e.value.code == 5
    bad_magic = bytearray(buf)
    bad_magic[header] ^= 0xFF
    with pytest.raises(commpress.CorruptFrame):
        commpress.decompress(bytes(bad_magic))
    shape_lie = bytearray(buf)
    shape_lie[8] += 1                                    # the container's first dimension
    with pytest.raises(commpress.CorruptFrame):
        commpress.decompress(bytes(shape_lie))
    for _ in range(200):                                 # random damage never crashes
        junk = bytearray(buf)
        junk[rng.integers(len(junk))] = rng.integers(256)
        try:
            commpress.decompress(bytes(junk))
        except commpress.Error:
            pass
    with pytest.raises(commpress.Error):
        commpress.decompress(b"")
    with pytest.raises(commpress.Error):
        commpress.decompress(b"not a frame at all, not at all" * 3)


def test_out_argument():
    a, buf = frame_of(np.linspace(0, 1, 600, dtype=np.float32).reshape(20, 30))
    out = np.empty((20, 30), np.float32)
    assert commpress.decompress(buf, out=out) is out
    assert_within(a, out, buf)
    flat = np.empty(600, np.float32)                     # same count, another shape: accepted
    commpress.decompress(buf, out=flat)
    assert np.array_equal(flat, out.reshape(-1))
    with pytest.raises(commpress.Error):
        commpress.decompress(buf, out=np.empty(599, np.float32))
    with pytest.raises(commpress.Error):
        commpress.decompress(buf, out=np.empty(600, np.float64))
    with pytest.raises(commpress.Error):
        commpress.decompress(buf, out=np.empty((30, 40), np.float32)[:20, :30])
    ro = np.empty(600, np.float32)
    ro.flags.writeable = False
    with pytest.raises(commpress.Error):
        commpress.decompress(buf, out=ro)


def test_bare_frames_from_other_layers_decode_as_1d():
    a, buf = frame_of()
    frame = buf[len(buf) - commpress.inspect(buf)["frame_size"]:]
    info = commpress.inspect(frame)
    assert info["shape"] is None and info["count"] == a.size
    back = commpress.decompress(frame)
    assert back.shape == a.shape
    assert_within(a, back, buf)


@pytest.mark.parametrize("codec", ["szp-e", "szp-eh"])
def test_szp_e_predicts_across_the_arrays_shape(codec):
    # A field smooth along all three axes: szp-e (and szp-eh, its codes Huffman-coded) given
    # the 3-D array interpolates across them (a shaped payload), far denser than the same
    # values as a flat array, within the bound.
    z, y, x = np.meshgrid(np.arange(24), np.arange(40), np.arange(56), indexing="ij")
    a = (np.sin(0.11 * x) * np.cos(0.07 * y) + 0.5 * np.sin(0.05 * z + 0.03 * x)).astype(np.float32)
    shaped = commpress.compress(a, codec, rel=1e-2)
    flat = commpress.compress(a.reshape(-1), codec, rel=1e-2)
    assert 3 * len(shaped) < len(flat)
    assert_within(a, commpress.decompress(shaped), shaped)
    # Codecs that do not predict across dimensions write the same frame either way.
    assert commpress.compress(a, "szp", rel=1e-2)[-1000:] == \
        commpress.compress(a.reshape(-1), "szp", rel=1e-2)[-1000:]
