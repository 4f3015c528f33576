"""``byte_word(a, i)``: bytes ``i..i+7`` of a 1-D array of bytes (0/1 masks, int8 or bool) as one ``uint64``;
``popcount(x)``: its set bits, one instruction.

Why: a legal-action mask is bytes, and the random agent's pick reads it eight actions at a time (count them, find
the chosen one) with word arithmetic where a byte loop spent a compare and a branch per action (Yay!'s 193-action
mask: 48 to 20 ns a row). Numba has no unaligned word load of a byte array, so this is one LLVM load with alignment
1, and the set bits are counted by LLVM's ``ctpop`` (a multiply-and-shift count read 20% slower). The caller keeps
``i + 8 <= len(a)``; bit ``8 * k`` up holds byte ``i + k`` (little-endian, as every numba target this suite runs on).

Under ``NUMBA_DISABLE_JIT=1`` both are plain Python: the same word built from the bytes by NumPy, the same count.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

__all__ = ["byte_word", "popcount"]


def _python_byte_word(arr: np.ndarray, at: int) -> np.uint64:
    return np.frombuffer(np.ascontiguousarray(arr[at : at + 8]).view(np.uint8).tobytes(), dtype="<u8")[0]


def _is_byte(dtype: types.Type) -> bool:
    return dtype == types.boolean or (isinstance(dtype, types.Integer) and dtype.bitwidth == 8)


@intrinsic
def _compiled_byte_word(typingctx, arr, at):  # noqa: ARG001 (numba's intrinsic signature)
    if not isinstance(arr, types.Array) or arr.ndim != 1 or arr.layout != "C" or not _is_byte(arr.dtype):
        return None

    def codegen(context, builder, signature, args):
        array = make_array(signature.args[0])(context, builder, args[0])
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        at_byte = builder.gep(builder.bitcast(array.data, cgutils.voidptr_t), [index])
        return builder.load(builder.bitcast(at_byte, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(arr, at), codegen


byte_word = _python_byte_word if config.DISABLE_JIT else _compiled_byte_word


def _python_popcount(x: np.uint64) -> int:
    return int(x).bit_count()


@intrinsic
def _compiled_popcount(typingctx, x):  # noqa: ARG001 (numba's intrinsic signature)
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.uint64(x), codegen


popcount = _python_popcount if config.DISABLE_JIT else _compiled_popcount
