"""A cache prefetch hint for the compiled pass (numba): ``prefetch(array, i)`` asks
the CPU to start loading the cache line holding ``array[i]`` and returns at once.

It is LLVM's ``llvm.prefetch`` intrinsic (read, keep in all cache levels), which
compiles to one instruction (``prefetcht0`` on x86-64, ``prfm`` on ARM) or to
nothing where the target has none. A hint never faults and changes no result: the
index is not checked, and an address outside the array is simply not loaded.

The pass scans a run of tokens and prefetches each one's hash-table slot before it
looks any of them up, so the cache misses of a run overlap instead of queueing one
after another (bench/NOTES.md, text vectorizer round 6).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from nbayes._kernels.llvm import element_pointer

_READ, _KEEP_IN_ALL_LEVELS, _DATA = 0, 3, 1


@intrinsic
def prefetch(typingctx, array, index):
    """Prefetch the cache line of ``array[index]`` (a 1-d array, an integer index)."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        pointer = element_pointer(context, builder, signature.args[0], *args)
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        hint = ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32])
        function = cgutils.get_or_insert_function(builder.module, hint, "llvm.prefetch.p0")
        builder.call(
            function,
            [builder.bitcast(pointer, byte_pointer), i32(_READ), i32(_KEEP_IN_ALL_LEVELS),
             i32(_DATA)],
        )  # fmt: skip
        return context.get_dummy_value()

    return sig, codegen
