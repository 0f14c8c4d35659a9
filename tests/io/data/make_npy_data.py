#!/usr/bin/python3
# Regenerates the .npy files in this directory with Debian's NumPy (python3-numpy, 1.24 when
# they were made): run `/usr/bin/python3 tests/io/data/make_npy_data.py` from the repository root.
# tests/io/npy_data_test.cc checks the values below; keep the two in step.
import os

import numpy as np
from numpy.lib import format as npf

here = os.path.dirname(os.path.abspath(__file__))


def save(name, arr, version=None):
    with open(os.path.join(here, name), "wb") as f:
        if version is None:
            np.save(f, arr)  # version 1.0, as numpy.save picks it
        else:
            npf.write_array(f, arr, version=version)


x = (np.arange(6, dtype=np.float64).reshape(2, 3) - 2.5) * 0.75  # -1.875 ... 1.875
save("f32_2x3.npy", x.astype(np.float32))
save("f64_2x3_v2.npy", x, version=(2, 0))
save("f16_4.npy", np.array([0.5, -2.0, 65504.0, 1e-7], dtype=np.float16))
save("i32_3x2.npy", np.array([[1, -2], [3, -4], [2147483647, -2147483648]], dtype=np.int32))
save("i64_3_v3.npy", np.array([-1, 0, 1 << 40], dtype=np.int64), version=(3, 0))
save("u8_2x2.npy", np.array([[0, 1], [254, 255]], dtype=np.uint8))
save("bool_5.npy", np.array([True, False, False, True, True]))
save("f64_scalar.npy", np.float64(3.25))
save("f32_empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
save("f32_big_endian.npy", np.arange(3, dtype=">f4"))
save("f64_fortran_2x3.npy", np.asfortranarray(x))
save("i16_3.npy", np.arange(3, dtype=np.int16))
save("i8_4.npy", np.array([-128, -1, 0, 127], dtype=np.int8))
save("u32_3.npy", np.array([0, 1, 4294967295], dtype=np.uint32))
