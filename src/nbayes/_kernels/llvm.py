"""What the numba intrinsics (:mod:`nbayes._kernels.vector_math`, :mod:`nbayes.tokens._prefetch`)
share in their code generation. Import only where numba is installed."""

from __future__ import annotations

from numba.core import cgutils


def element_pointer(context, builder, array_type, array, index):
    """The LLVM pointer to ``array[index]`` (a numba array value of ``array_type``, an
    integer index), not bounds-checked and with no negative-index wraparound."""
    data = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, data, [index], wraparound=False)
