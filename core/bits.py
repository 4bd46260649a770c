"""Bit tricks for compiled searches over sets of at most 64 things held in one uint64: LLVM's own
instructions (one `tzcnt` or `popcnt` on a machine that has them) where a loop would cost a branch a bit."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def trailing_zeros(typingctx, x):
    """Index of the lowest set bit of a uint64 (LLVM cttz): the first member of a set in one step."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        tz = builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))
        return builder.zext(tz, ir.IntType(64))

    return sig, codegen


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of a uint64 (LLVM ctpop): a set's size, or a member's rank, in one step."""
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.zext(builder.ctpop(args[0]), ir.IntType(64))

    return sig, codegen
