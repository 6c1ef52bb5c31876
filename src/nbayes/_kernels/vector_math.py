"""glibc's vector math library (libmvec) in numba kernels: ``exp`` of several float64
lanes in one call.

NumPy vectorises its float64 ``exp`` only on CPUs with AVX-512; elsewhere it costs
~5 ns an element, and the exponentials of ``predict_proba`` (n_samples x n_classes
of them) become most of its time. glibc (2.22 and later, on x86-64 Linux) ships
SIMD variants of its ``exp`` under the vector function ABI names: ``_ZGVdN4v_exp``
takes four doubles in an AVX2 register, ``_ZGVbN2v_exp`` two in an SSE2 register
(any x86-64 CPU). glibc documents them to within 4 ulp; they give ``exp(-inf) = 0``,
``exp(nan) = nan``, ``exp(+inf) = inf``, overflow to ``inf`` and gradual underflow
as the scalar ``exp`` does (tests compare them with NumPy's).

:data:`LANES` says which variant a kernel compiled in this process may call (0:
none, on other systems, or where the library cannot be loaded); :func:`exp_lanes`
is the numba intrinsic that calls it on ``LANES`` consecutive elements. Import
this module only where numba is installed.
"""

from __future__ import annotations

import platform
import sys

import llvmlite.binding as llvm
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

from nbayes._kernels.llvm import element_pointer

_VARIANTS = {4: "_ZGVdN4v_exp", 2: "_ZGVbN2v_exp"}  # AVX2, SSE2


def _lanes() -> int:
    """Doubles per call of the vector ``exp`` that kernels compiled here use: 4 where
    numba generates code for this CPU and it has AVX2 (the 4-lane variant takes its
    argument in a 256-bit register, which only AVX code passes there), else 2; 0 where
    glibc's libmvec is not available (not x86-64 Linux, or the library not found)
    or numba's compiler is switched off (``NUMBA_DISABLE_JIT``)."""
    if sys.platform != "linux" or platform.machine() != "x86_64" or config.DISABLE_JIT:
        return 0
    try:
        llvm.load_library_permanently("libmvec.so.1")
    except RuntimeError:
        return 0
    host_code = config.CPU_NAME is None and not config.CPU_FEATURES
    if host_code and llvm.get_host_cpu_features().get("avx2", False):
        return 4
    return 2


#: Doubles per vector ``exp`` call in this process (see :func:`_lanes`); 0: none.
LANES = _lanes()


@intrinsic
def exp_lanes(typingctx, values, start):
    """``values[start:start + LANES] = exp(values[start:start + LANES])`` for a 1-d
    float64 array; the caller keeps the slice inside the array, and calls this only
    where :data:`LANES` > 0."""
    if not (
        isinstance(values, types.Array)
        and values.dtype == types.float64
        and values.ndim == 1
        and values.layout == "C"
        and isinstance(start, types.Integer)
    ):
        return None
    width = LANES
    signature = types.void(values, start)

    def codegen(context, builder, sig, args):
        pointer = element_pointer(context, builder, sig.args[0], *args)
        vector = ir.VectorType(ir.DoubleType(), width)
        vector_pointer = builder.bitcast(pointer, vector.as_pointer())
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vector, [vector]), _VARIANTS[width]
        )
        result = builder.call(function, [builder.load(vector_pointer, align=8)])
        builder.store(result, vector_pointer, align=8)
        return context.get_dummy_value()

    return signature, codegen


def exp_in_place_kernel(values):
    """``values[:] = exp(values)`` for a 1-d C-contiguous float64 array, ``LANES`` at
    a time, the last few one by one (NumPy's scalar ``exp`` in numba)."""
    n = values.shape[0]
    width = LANES
    whole = n - n % width
    for start in range(0, whole, width):
        exp_lanes(values, start)
    for i in range(whole, n):
        values[i] = np.exp(values[i])
