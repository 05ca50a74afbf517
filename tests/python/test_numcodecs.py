"""The numcodecs codec: config round trip, lookup by id through the entry point, encode and
decode (with and without out), and a zarr v3 array written and read back within bound."""

import numpy as np
import pytest

import commpress
from commpress.numcodecs import Commpress
from conftest import smooth_field

numcodecs = pytest.importorskip("numcodecs")


def test_config_round_trip_and_registry_lookup():
    c = Commpress(codec="szp", rel=1e-4)
    config = c.get_config()
    assert config == {"id": "commpress", "codec": "szp", "rel": 1e-4}
    again = Commpress.from_config({k: v for k, v in config.items() if k != "id"})
    assert again.get_config() == config
    found = numcodecs.get_codec(dict(config))   # through the numcodecs.codecs entry point
    assert type(found).__module__ == "commpress.numcodecs" and found.get_config() == config
    lossless = numcodecs.get_codec({"id": "commpress", "codec": "zstd-3"})
    assert lossless.get_config() == {"id": "commpress", "codec": "zstd-3"}
    assert numcodecs.get_codec({"id": "commpress", "codec": "zfp", "abs": 0.5}).abs == 0.5


def test_encode_decode_with_out(rng):
    a = smooth_field(rng, (32, 48), np.float64)
    c = Commpress(codec="szp", abs=1e-5)
    enc = c.encode(a)
    dec = c.decode(enc)
    assert dec.shape == a.shape and np.abs(dec - a).max() <= 1e-5
    out = np.empty(a.size, np.float64)
    assert c.decode(enc, out=out) is out
    assert np.array_equal(out, dec.reshape(-1))
    raw = bytearray(a.nbytes)                  # numcodecs also hands out untyped buffers
    c.decode(enc, out=raw)
    assert np.array_equal(np.frombuffer(raw, np.float64), dec.reshape(-1))
    with pytest.raises(ValueError):
        c.decode(enc, out=np.empty(a.size - 1, np.float64))


@pytest.mark.filterwarnings("ignore:Numcodecs codecs are not in the Zarr version 3")
def test_zarr_v3_array_within_bound(tmp_path, rng):
    zarr = pytest.importorskip("zarr")
    import commpress.zarr3
    a = smooth_field(rng, (40, 50, 30), np.float32)
    z = zarr.create_array(str(tmp_path / "field.zarr"), shape=a.shape, chunks=(20, 25, 30),
                          dtype="float32", zarr_format=3,
                          serializer=commpress.zarr3.Commpress(codec="szp", abs=1e-3))
    z[:] = a
    back = zarr.open_array(str(tmp_path / "field.zarr"), mode="r")   # codec found by name
    got = back[:]
    assert got.shape == a.shape and got.dtype == np.float32
    assert np.abs(got.astype(np.float64) - a).max() <= 1e-3
    assert not np.array_equal(got, a)          # lossy indeed: the codec ran
    assert "numcodecs.commpress" in str(back.metadata.to_dict()["codecs"])
