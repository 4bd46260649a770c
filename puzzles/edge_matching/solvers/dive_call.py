"""A call from numba to a generated break dive (breaks_llvm_walk.py) through its address: one plain
indirect call, no Python, and the caller stays cacheable (the address is an argument, not a constant)."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def call_dive(typingctx, address, block, i, fresh, nodes, watch, check_at, cap, radix, split, final):
    """The generated dive at `address` on the block at `block`: (depth, nodes), as breaks_walk `_dive`."""
    sig = types.UniTuple(types.int64, 2)(*([types.int64] * 11))

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fnty = ir.FunctionType(ir.LiteralStructType([i64, i64]), [ir.PointerType()] + [i64] * 9)
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        pair = builder.call(fn, [builder.inttoptr(args[1], ir.PointerType()), *args[2:]])
        parts = [builder.extract_value(pair, 0), builder.extract_value(pair, 1)]
        return context.make_tuple(builder, signature.return_type, parts)

    return sig, codegen
