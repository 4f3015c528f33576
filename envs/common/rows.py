"""``row(a, b)``: row ``b`` of a C-contiguous array as a view that numba does not reference-count.

Why: the batched loops take one row view of the state (and of the observation, mask and reward buffers) per
game and step, and numba increments and decrements the parent's reference count for every such view; at
B = 4096 that costs more than Yay!'s rules (measured: -12% per step without it). A view built here carries no
``meminfo``, so numba emits no reference counting for it. It is safe only where the loops use it: the parent
array is an argument of the running kernel (alive for the whole call) and the view never escapes it.

Under ``NUMBA_DISABLE_JIT=1`` (the loops run as plain Python, for a debugger) ``row`` is NumPy's ``a[b]``: the
same view, reference-counted by Python.
"""

from __future__ import annotations

from numba import config, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array, populate_array

__all__ = ["row"]


def _python_row(arr, b):
    """``row`` in plain Python (``NUMBA_DISABLE_JIT=1``): NumPy's own view of row ``b``."""
    return arr[b]


@intrinsic
def _compiled_row(typingctx, arr, b):  # noqa: ARG001 (numba's intrinsic signature)
    if not isinstance(arr, types.Array) or arr.ndim < 2 or arr.layout != "C":
        return None
    row_type = types.Array(arr.dtype, arr.ndim - 1, "C")

    def codegen(context, builder, signature, args):
        array = make_array(signature.args[0])(context, builder, args[0])
        out = make_array(row_type)(context, builder)
        shape = cgutils.unpack_tuple(builder, array.shape)
        strides = cgutils.unpack_tuple(builder, array.strides)
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        data = builder.gep(builder.bitcast(array.data, cgutils.voidptr_t), [builder.mul(index, strides[0])])
        populate_array(out, data=builder.bitcast(data, array.data.type), shape=shape[1:], strides=strides[1:],
                       itemsize=array.itemsize, meminfo=None)  # fmt: skip
        return out._getvalue()

    return row_type(arr, b), codegen


row = _python_row if config.DISABLE_JIT else _compiled_row
