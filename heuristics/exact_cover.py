"""Knuth's Algorithm X on bitsets: the exact-cover engine behind every exact puzzle answer.

A problem is a set of rows, each a set of items. Primary items must be covered exactly once,
secondary items at most once. A row is a bitset of `W` uint64 words, so "does this row clash with
what is covered?" is `W` ANDs, and covering a row is `W` ORs: no links to unlink and relink.

Two rules choose the item to branch on (both are Algorithm X; neither breaks symmetry, so counts
are raw):

- "first": the first uncovered primary item in item order. Only rows whose first primary item is
  that item can fit (every earlier primary item is covered), so each item keeps a short
  "anchored" row list. With cells numbered in a good fill order (down the short side of a
  rectangle first) this is the classic fastest way to tile a board.
- "mrv": the uncovered primary item with the fewest fitting rows (Knuth's rule), found by counting;
  an item with none ends the branch at once. The general rule, for items with no natural order.

Optionally (`core.exact.Regions`), items that are cells of a grid are checked after each choice: a
region of empty cells too small for any piece ends the branch (the classic pentomino pruning).

The search is an explicit-stack loop compiled with numba (cache=True). It is resumable: its whole
state lives in arrays, so `solutions()` is a generator that asks the compiled loop for a batch of
solutions at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Literal, NamedTuple, overload

import numba
import numpy as np

from core.bits import popcount, trailing_zeros
from core.errors import InputError
from core.exact import CoverModel, Regions, bitsets

RULES = ("first", "mrv")
BATCH = 4096
NO_LIMIT = np.iinfo(np.int64).max
_ALL_COVERED, _DEAD_END = -1, -2
_FRESH, _RUNNING, _DONE = 0, 1, 2
NO_REGIONS = np.zeros(10, dtype=np.uint64)


class RegionRule(NamedTuple):
    """The dead-region pruning as the kernels read it, by field: built inside the search from the array
    `region_spec` lays out in this order (numba takes a named tuple as it takes a tuple: the same
    compiled code). The neighbour of cell i along axis a is i + stride_a; plus_a marks the cells that
    have one (axes 1 to 3; a missing axis is 0)."""

    axes: np.uint64  # 0: no pruning
    stride_a: np.uint64
    stride_b: np.uint64
    stride_c: np.uint64
    plus_a: np.uint64
    plus_b: np.uint64
    plus_c: np.uint64
    cells: np.uint64  # the cells to fill, a bitset
    min_size: np.uint64  # the smallest piece
    divisor: np.uint64  # the gcd of the piece sizes


@numba.njit(cache=True, nogil=True)
def _fits(lm, k, cov, base):
    """Does listed row k avoid every item covered at stack offset `base`?"""
    for w in range(lm.shape[1]):
        if lm[k, w] & cov[base + w]:
            return False
    return True


@numba.njit(cache=True, nogil=True)
def _first_open(primary, cov, base):
    """The first uncovered primary item, or _ALL_COVERED."""
    for w in range(primary.shape[0]):
        open_ = primary[w] & ~cov[base + w]
        if open_:
            return w * 64 + trailing_zeros(open_)
    return _ALL_COVERED


@numba.njit(cache=True, nogil=True)
def _fewest_options(lm, primary, cov, base, start):
    """The uncovered primary item with fewest fitting rows; _DEAD_END if one has none."""
    best, best_count = _ALL_COVERED, np.iinfo(np.int64).max
    for w in range(primary.shape[0]):
        open_ = primary[w] & ~cov[base + w]
        while open_:
            item = w * 64 + trailing_zeros(open_)
            open_ &= open_ - np.uint64(1)
            count = 0
            for k in range(start[item], start[item + 1]):
                if _fits(lm, k, cov, base):
                    count += 1
                    if count >= best_count:
                        break
            if count == 0:
                return _DEAD_END
            if count < best_count:
                best, best_count = item, count
                if count == 1:
                    return best
    return best


@numba.njit(cache=True, nogil=True)
def _grow(region, s, plus):
    """Add the neighbours along one axis (stride s; `plus` marks cells with a + neighbour)."""
    return ((region & plus) << s) | ((region >> s) & plus)


@numba.njit(cache=True, nogil=True)
def _regions_ok(empty, spec):
    """Can every connected region of `empty` cells still be filled? (size >= min, divisible)

    Cells are bits of one word laid out on a grid (`spec`: a `RegionRule`). Regions grow by shifts, a
    whole front at a time.
    """
    axes, min_size, divisor = spec.axes, spec.min_size, spec.divisor
    while empty:
        region = empty & (~empty + np.uint64(1))
        while True:
            grown = region | _grow(region, spec.stride_a, spec.plus_a)
            if axes > 1:
                grown |= _grow(region, spec.stride_b, spec.plus_b)
            if axes > 2:
                grown |= _grow(region, spec.stride_c, spec.plus_c)
            grown &= empty
            if grown == region:
                break
            region = grown
        size = popcount(region)
        if size < min_size or size % divisor:
            return False
        empty &= ~region
    return True


@numba.njit(cache=True, nogil=True)
def _choose(lm, primary, cov, base, start, mrv, spec):
    """The item to branch on next, by the chosen rule; _DEAD_END if a region cannot be filled."""
    if spec.axes and not _regions_ok(spec.cells & ~cov[base], spec):
        return _DEAD_END
    if mrv:
        return _fewest_options(lm, primary, cov, base, start)
    return _first_open(primary, cov, base)


@numba.njit(cache=True, nogil=True)
def _search(
    lm, rows, start, primary, mrv, region, budget, store, state, cov, item, pos, chosen, out, out_len
):
    """Run Algorithm X until `budget` more solutions are found or the tree is exhausted.

    Item i's candidate rows are listed at k in start[i]..start[i+1]: row id rows[k], bitset lm[k].
    Resumable: `state` = (depth, phase), and the stacks `cov` (W words per depth), `item`, `pos`,
    `chosen` keep the search where it stopped. Returns the number of solutions found in this
    call; when `store` is set, solution j's rows are `out[j, :out_len[j]]`.
    """
    W = lm.shape[1]
    spec = RegionRule(
        region[0],
        region[1],
        region[2],
        region[3],
        region[4],
        region[5],
        region[6],
        region[7],
        region[8],
        region[9],
    )
    found = 0
    if state[1] == _DONE:
        return 0
    if state[1] == _FRESH:
        state[1] = _RUNNING
        first = _choose(lm, primary, cov, 0, start, mrv, spec)
        if first == _ALL_COVERED:  # nothing to cover: the empty set of rows is the one solution
            state[1] = _DONE
            if store:
                out_len[0] = 0
            return 1
        if first == _DEAD_END:
            state[1] = _DONE
            return 0
        state[0] = 0
        item[0] = first
        pos[0] = start[first]
    d = state[0]
    while d >= 0:
        base = d * W
        end = start[item[d] + 1]
        k = pos[d]
        while k < end and not _fits(lm, k, cov, base):
            k += 1
        if k == end:
            d -= 1
            continue
        pos[d] = k + 1
        chosen[d] = rows[k]
        for w in range(W):
            cov[base + W + w] = cov[base + w] | lm[k, w]
        if spec.axes and not _regions_ok(spec.cells & ~cov[base + W], spec):
            continue
        if mrv:
            nxt = _fewest_options(lm, primary, cov, base + W, start)
        else:
            nxt = _first_open(primary, cov, base + W)
        if nxt == _ALL_COVERED:
            if store:
                out[found, : d + 1] = chosen[: d + 1]
                out_len[found] = d + 1
            found += 1
            if found >= budget:
                state[0] = d
                return found
        elif nxt != _DEAD_END:
            d += 1
            item[d] = nxt
            pos[d] = start[nxt]
    state[1] = _DONE
    return found


def masks_from_rows(rows: Iterable[Iterable[int]], n_items: int) -> np.ndarray:
    """Rows as lists of item indices -> one bitset per row, after checking every item is valid."""
    lists = [list(r) for r in rows]
    for i, row in enumerate(lists):
        if len(set(row)) != len(row):
            raise InputError(f"exact cover: row {i} lists an item twice: {row}")
        for item in row:
            if not 0 <= item < n_items:
                raise InputError(f"exact cover: row {i} has item {item}, outside 0..{n_items - 1}")
    return bitsets(lists, n_items)


def bool_matrix(masks: np.ndarray) -> np.ndarray:
    """(R, W) uint64 bitsets -> (R, 64 W) bool matrix, item j in column j."""
    as_bytes = masks.astype("<u8").view(np.uint8).reshape(len(masks), 8 * masks.shape[1])
    return np.unpackbits(as_bytes, axis=1, bitorder="little").astype(bool)


def _csr(row_of: np.ndarray, item_of: np.ndarray, n_items: int) -> tuple[np.ndarray, np.ndarray]:
    """Row lists per item, in compressed form: item i's rows are rows[start[i]:start[i+1]]."""
    order = np.lexsort((row_of, item_of))
    start = np.zeros(n_items + 1, dtype=np.int64)
    np.cumsum(np.bincount(item_of, minlength=n_items), out=start[1:])
    return start, row_of[order].astype(np.int64)


def region_spec(regions: Regions | None) -> np.ndarray:
    """The pruning rule as the search takes it, in `RegionRule`'s order: axes, 3 strides, 3 plus masks,
    cells, min, gcd (an array: the kernel's argument, made a `RegionRule` inside it)."""
    if regions is None:
        return NO_REGIONS
    pad = 3 - len(regions.strides)
    return np.array(
        [
            len(regions.strides),
            *regions.strides,
            *[0] * pad,
            *regions.plus,
            *[0] * pad,
            regions.to_fill,
            regions.min_size,
            regions.divisor,
        ],
        dtype=np.uint64,
    )


class ExactCover:
    """An exact-cover problem and its solver (Algorithm X on bitsets, compiled with numba).

    Args:
        rows: each row as a list of item indices in 0..n_items-1.
        n_items: number of items.
        secondary: items that may be covered at most once (all others exactly once).
        rule: "first" (first uncovered item; number items in a good fill order) or "mrv".
        regions: optional pruning for grid cells (see `core.exact.Regions`).

    Solutions are lists of row indices, in the order the search chose them. As in Knuth's
    definition, a row with no primary item is never part of a solution.
    """

    def __init__(
        self,
        rows: Iterable[Iterable[int]],
        n_items: int,
        secondary: Iterable[int] = (),
        rule: str = "first",
        regions: Regions | None = None,
    ):
        secondary = set(secondary)
        if any(not 0 <= s < n_items for s in secondary):
            raise InputError(f"exact cover: secondary items must lie in 0..{n_items - 1}")
        primary = [i for i in range(n_items) if i not in secondary]
        self._setup(
            masks_from_rows(rows, n_items), n_items, masks_from_rows([primary], n_items)[0], rule, regions
        )

    @classmethod
    def from_masks(
        cls,
        masks: np.ndarray,
        n_items: int,
        primary: np.ndarray,
        rule: str = "first",
        regions: Regions | None = None,
    ) -> ExactCover:
        """A problem given as bitsets directly: (R, W) uint64 rows and a (W,) primary mask."""
        self = cls.__new__(cls)
        self._setup(
            np.ascontiguousarray(masks, dtype=np.uint64),
            n_items,
            np.ascontiguousarray(primary, dtype=np.uint64),
            rule,
            regions,
        )
        return self

    @classmethod
    def from_model(cls, model: CoverModel) -> ExactCover:
        """A problem from a puzzle's cover model."""
        return cls.from_masks(model.masks, model.n_items, model.primary, model.rule, model.regions)

    def _setup(
        self, masks: np.ndarray, n_items: int, primary: np.ndarray, rule: str, regions: Regions | None
    ):
        """Keep the bitsets and lay out the candidate rows each rule walks, item by item."""
        if rule not in RULES:
            raise InputError(f"exact cover: rule must be one of {RULES}, got {rule!r}")
        self.masks, self.n_items, self.primary, self.rule = masks, n_items, primary, rule
        bits = bool_matrix(masks)[:, :n_items]
        is_primary = bool_matrix(primary[None, :])[0, :n_items]
        if rule == "first":  # a row is listed under its first primary item only
            hit = bits & is_primary
            has = hit.any(axis=1)
            row_of = np.flatnonzero(has)
            item_of = hit[has].argmax(axis=1) if has.any() else np.zeros(0, dtype=np.int64)
        else:
            row_of, item_of = np.nonzero(bits)
        self.start, self.rows = _csr(row_of, item_of, n_items)
        self.listed = np.ascontiguousarray(masks[self.rows])
        self.region = region_spec(regions)
        self.depth = int(is_primary.sum()) + 1

    @overload
    def _run(self, budget: int, store: Literal[True], batch: int) -> Iterator[np.ndarray]: ...

    @overload
    def _run(self, budget: int, store: Literal[False], batch: int) -> Iterator[int]: ...

    def _run(self, budget: int, store: bool, batch: int) -> Iterator[np.ndarray | int]:
        """Drive the resumable compiled search; yields solution arrays, or counts if not store."""
        words = self.masks.shape[1]
        state = np.array([0, _FRESH], dtype=np.int64)
        cov = np.zeros((self.depth + 1) * words, dtype=np.uint64)
        item, pos, chosen = (np.zeros(self.depth + 1, dtype=np.int64) for _ in range(3))
        size = batch if store else 1
        out = np.zeros((size, self.depth), dtype=np.int64)
        out_len = np.zeros(size, dtype=np.int64)
        left = budget
        while left > 0 and state[1] != _DONE:
            n = _search(
                self.listed,
                self.rows,
                self.start,
                self.primary,
                self.rule == "mrv",
                self.region,
                min(left, size) if store else left,
                store,
                state,
                cov,
                item,
                pos,
                chosen,
                out,
                out_len,
            )
            left -= n
            if not store:
                yield n
                continue
            for k in range(n):
                yield out[k, : out_len[k]].copy()

    def solutions(self, limit: int | None = None, batch: int = BATCH) -> Iterator[list[int]]:
        """All solutions (or the first `limit`), lazily, as lists of row indices."""
        for rows in self._run(solution_limit(limit), True, batch):
            yield rows.tolist()

    def first(self) -> list[int] | None:
        """One solution, or None if there is none."""
        return next(self.solutions(limit=1, batch=1), None)

    def count(self, limit: int | None = None) -> int:
        """The number of solutions (stopping at `limit`), without storing any."""
        return int(sum(self._run(solution_limit(limit), False, 1)))


def solution_limit(limit: int | None) -> int:
    """A solution limit as a positive int; None means no limit."""
    if limit is None:
        return int(NO_LIMIT)
    if int(limit) < 1:
        raise InputError(f"solution limit must be at least 1, got {limit}")
    return int(limit)
