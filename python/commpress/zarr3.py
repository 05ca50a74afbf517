"""zarr v3 codec ``numcodecs.commpress``: the numcodecs codec ``Commpress`` as zarr v3's
array-to-bytes codec (registered through the ``zarr.codecs`` entry point; needs zarr >= 3.1.3).

    import zarr, commpress.zarr3
    z = zarr.create_array(store, shape=..., chunks=..., dtype="float32",
                          serializer=commpress.zarr3.Commpress(codec="szp", rel=1e-4))

A REL bound resolves per chunk (see commpress.numcodecs).
"""

from zarr.codecs.numcodecs._codecs import _NumcodecsArrayBytesCodec

from . import numcodecs as _numcodecs  # noqa: F401  (registers the numcodecs codec id)


class Commpress(_NumcodecsArrayBytesCodec, codec_name="commpress"):
    pass
