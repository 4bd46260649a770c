"""The perfect search's board tables (`Board`), built once per board: the scan order, candidate lists
keyed by every known side (ended by sentinels; as sets of pieces on boards of at most 64: laid out by
candidates.py), twins, the symmetry kept out and the look-ahead's books. What a search proved
(`Answer`) is answer.py's."""

from __future__ import annotations

import threading

import numpy as np

from core.errors import InputError
from puzzles.edge_matching.board import grey_patterns, neighbours
from puzzles.edge_matching.solvers.perfect_search import generated, probe

# Answer moved to answer.py; callers still import it here
from puzzles.edge_matching.solvers.perfect_search.answer import Answer as Answer
from puzzles.edge_matching.solvers.perfect_search.candidates import _classes, _piece_sets, _sentinel_lists
from puzzles.edge_matching.solvers.perfect_search.generated import Walks
from puzzles.edge_matching.solvers.perfect_search.orders import AUTO, ORDERS
from puzzles.edge_matching.solvers.perfect_search.walks import (
    NONE,
    _walk_books,
    _walk_plain,
    _walk_sets,
    _walk_tallied,
)

KEY_CELLS = 1 << 22  # the most keys a candidate list may have; more known sides are checked per candidate
INNER, CW, CCW, IN = 0, 1, 2, 3  # kinds of side a turning piece offers (see `_side_kind`)
GENERATE_ABOVE = 4e9  # `generated=None`: a walk generated for a tree estimated above this many nodes
_CHOOSING = threading.Lock()  # one board's walk chosen (and compiled) at a time


def _side_kind(pattern: int, s: int, turns: int) -> int:
    """What kind of side a piece in a cell of this pattern shows on side s, for the look-ahead's
    books: turning pieces offer inner sides, or along the rim clockwise / counter-clockwise sides and
    inward sides (the same sides of a piece in any cell it fits); unturned pieces, a side per
    pattern and direction. -1: a thin board's cell, where the books are not kept."""
    if turns == 1:
        return 4 + pattern * 4 + s
    grey = [g for g in range(4) if pattern >> g & 1]
    if not grey:
        return INNER
    if len(grey) == 1:
        g = grey[0]
        return {(g + 1) % 4: CW, (g + 3) % 4: CCW, (g + 2) % 4: IN}.get(s, -1)
    if len(grey) == 2 and (grey[1] - grey[0]) in (1, 3):
        a = grey[0] if (grey[0] + 1) % 4 == grey[1] else grey[1]  # greys on a and a + 1
        return {(a + 2) % 4: CW, (a + 3) % 4: CCW}.get(s, -1)
    return -1


class Board:
    """A board's search tables, built once: scan order, candidate lists keyed by every known side, the
    look-ahead's books and the symmetry kept out (see the module docstring).

    Args:
        table: table[p, r, s], the colour side s of piece p shows in its r-th allowed turn (1 or 4 turns).
        n, m: rows and columns; cells are row-major.
        preplaced: rows (cell, piece, turn) that stay.
        order: a name in ORDERS, or "auto": the one of the smallest estimated tree (`estimate_orders`,
            kept in `estimates`; a tenth of a second on an 8 x 8). Where the best tree is long to walk
            but within reach (REFINE), it is estimated again with 10x the dives (about 1.5 s on an
            8 x 8): at 20,000 dives heavy tails mis-ranked 8 x 8 orders. Out of reach (a 6 x 12 clue
            puzzle: 1e28 nodes), more dives only reshuffle the noise.
        lookahead: keep the colour books (never on thin boards, where sides have no kind). Off by
            default: on the graded set it cuts nodes by about a tenth and costs 3x the time a node
            (`python -m benchmarks.bench_exact_edge tree`).
        symmetry: keep one turn of each solution (turning pieces, nothing pre-placed).
        generated: walk with a walk generated for this board and order (generated.py; boards of at
            most 64 pieces without look-ahead, else the general walk): True, False, or None (the
            default): where its tree is estimated above GENERATE_ABOVE nodes (order "auto"), where
            the walk takes minutes and its compile (seconds, then a load from the cache folder in
            later runs) pays; small boards keep the general walk, compiled once for every board.
    """

    def __init__(
        self,
        table,
        n: int,
        m: int,
        preplaced=None,
        order: str = "short",
        lookahead: bool = False,
        symmetry: bool = True,
        generated: bool | None = None,
    ):
        table = np.ascontiguousarray(table, dtype=np.int64)
        if table.ndim != 3 or table.shape[0] != n * m or table.shape[2] != 4 or table.shape[1] not in (1, 4):
            raise InputError(
                f"need an ({n * m}, 1 or 4, 4) turn table for a {n} x {m} board, got {table.shape}"
            )
        self.preplaced, self.lookahead_wanted, self.symmetry_wanted = preplaced, lookahead, symmetry
        self.generated_wanted = generated
        self._generated: Walks | bool | None = None  # its generated walks; False: none; None: not chosen
        self.estimates: dict[str, tuple[float, float]] = {}
        if order == AUTO:
            order, self.estimates = auto_order(table, n, m, preplaced, lookahead=lookahead, symmetry=symmetry)
        if order not in ORDERS:
            raise InputError(f"unknown scan order {order!r}; choose one of: {', '.join(ORDERS)}")
        self.table, self.n, self.m, self.turns = table, n, m, table.shape[1]
        self.nb = neighbours(n, m)
        given = np.asarray(preplaced if preplaced is not None else [], np.int64).reshape(-1, 3)
        self.piece = np.full(n * m, NONE, np.int64)
        self.turn = np.zeros(n * m, np.int64)
        self.piece[given[:, 0]], self.turn[given[:, 0]] = given[:, 1], given[:, 2]
        self.used = np.zeros(len(table), np.bool_)
        self.used[given[:, 1]] = True
        self.shown = np.full((n * m, 4), NONE, np.int16)  # colours, small: the walk's reads stay in cache
        self.shown[given[:, 0]] = table[given[:, 1], given[:, 2]]
        self.order_name = order
        self.order = np.array([x for x in ORDERS[order](n, m) if self.piece[x] == NONE], np.int64)
        self.twin = _classes(table, ~self.used)
        self.next_twin = np.full(len(table), NONE, np.int64)  # the twin after each piece
        self.next_twin[self.twin[self.twin >= 0]] = np.flatnonzero(self.twin >= 0)
        self.blocked = np.zeros(len(table) + 1, np.uint8)  # used, or a twin whose earlier twin is free;
        self.blocked[:-1] = self.used | (
            (self.twin >= 0) & ~self.used[np.maximum(self.twin, 0)]
        )  # + sentinel
        self.symmetry, self.banned = self._symmetry(symmetry and len(given) == 0)
        self.radix = int(table.max()) + 1
        orients, self.cell_pattern = grey_patterns(table, n, m)
        self.orient_pattern = orients.reshape(table.shape[:2])
        kinds = [[_side_kind(int(k), s, self.turns) for s in range(4)] for k in range(16)]
        thin = any(
            kinds[int(k)][s] < 0 for k in np.unique(self.cell_pattern) for s in range(4) if not k >> s & 1
        )
        self.lookahead = lookahead and not thin
        self.side_kinds = np.array(kinds, np.int64)  # [pattern, side]
        self.need = np.full((n * m, 4), 0, np.int64)  # the kind of side the neighbour across s must show
        for x in range(n * m):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0:
                    self.need[x, s] = max(self.side_kinds[self.cell_pattern[q], (s + 2) % 4], 0)
        self._lists(self.orient_pattern, self.banned)
        self._books()
        self.consistent = self._given_fit() and (thin or self._balanced())

    def _symmetry(self, wanted: bool) -> tuple[int, dict[int, list[int]]]:
        """(boards each found board stands for, {cell pattern: pieces kept out of its cells}): a corner
        piece c0 with no twin is kept where one turn of each solution has it (the top-left corner on a
        square board; a top-left and the next corner filled on a rectangle)."""
        table, n, m = self.table, self.n, self.m
        if not wanted or self.turns != 4 or n < 2 or m < 2:
            return 1, {}
        grey = table[:, 0] == 0
        corners = [p for p in range(len(table)) if grey[p].sum() == 2 and not (grey[p, 0] and grey[p, 2])]
        single = [p for p in corners if self.twin[p] < 0 and not (self.twin == p).any()]
        if not single:
            return 1, {}
        c0, tl, tr, br, bl = single[0], 0b0011, 0b0110, 0b1100, 0b1001  # corners' off-board sides
        if n == m:  # c0 in the top-left corner, which the scan fills first
            return 4, {tl: [p for p in corners if p != c0], tr: [c0], br: [c0], bl: [c0]}
        position = {
            int(x): k for k, x in enumerate(self.order)
        }  # c0 in the top-left or the next corner filled
        second = tr if position[m - 1] < position[(n - 1) * m] else bl
        return 2, {k: [c0] for k in (tr, br, bl) if k != second}

    def _given_fit(self) -> bool:
        """Do the pre-placed pieces allow a perfect board: grey exactly on their rim sides, matched
        joins between them?"""
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q, c = self.nb[x, s], self.shown[x, s]
                if (q < 0) != (c == 0):
                    return False
                if q >= 0 and self.piece[q] != NONE and self.shown[q, (s + 2) % 4] != c:
                    return False
        return True

    def _lists(self, orient_pattern: np.ndarray, banned: dict[int, list[int]]) -> None:
        """Candidate lists per depth, keyed by the colours of the cell's known sides (neighbours placed
        earlier in the order or pre-placed); sides beyond KEY_CELLS keys are checked per candidate."""
        table, f = self.table, len(self.order)
        position = np.full(self.n * self.m, -1, np.int64)
        position[self.order] = np.arange(f)
        self.key_at = np.zeros((f, 4), np.int64)  # the neighbours' sides whose colours key the list
        self.key_len = np.zeros(f, np.int64)
        self.key_weight = np.zeros((f, 4), np.int64)  # the key: the sum of those colours times these
        self.check_side = np.full((f, 4), -1, np.int64)
        self.check_len = np.zeros(f, np.int64)
        self.base = np.zeros(f, np.int64)
        groups: dict[tuple, int] = {}
        starts: list[np.ndarray] = []
        entries: list[np.ndarray] = []
        size = 0
        for d, x in enumerate(self.order):
            known = [
                s
                for s in range(4)
                if self.nb[x, s] >= 0 and (self.piece[self.nb[x, s]] != NONE or position[self.nb[x, s]] < d)
            ]
            keyed = [s for j, s in enumerate(known) if self.radix ** (j + 1) <= KEY_CELLS]
            checked = known[len(keyed) :]
            self.key_len[d] = len(keyed)
            self.key_at[d, : len(keyed)] = 4 * self.nb[x, keyed] + (np.array(keyed, np.int64) + 2) % 4
            self.key_weight[d, : len(keyed)] = self.radix ** np.arange(len(keyed) - 1, -1, -1)
            self.check_len[d], self.check_side[d, : len(checked)] = len(checked), checked
            group = (int(self.cell_pattern[x]), tuple(keyed))
            if group not in groups:
                groups[group] = size
                pattern = group[0]
                fits = (orient_pattern == pattern) & ~self.used[:, None]
                fits[banned.get(pattern, [])] = False
                p, r = np.nonzero(fits)
                p, r = self._distinct(p, r)
                key = np.zeros(len(p), np.int64)
                for s in keyed:
                    key = key * self.radix + table[p, r, s]
                keys = self.radix ** len(keyed)
                order = np.argsort(key, kind="stable")
                counts = np.bincount(key, minlength=keys)
                starts.append(counts)
                entries.append(np.stack([p[order], r[order]], axis=1))
                size += keys
            self.base[d] = groups[group]
        self.starts, pairs = _sentinel_lists(starts, entries, len(table))
        self.piece_of, self.turn_of = pairs[:, 0].copy(), pairs[:, 1].copy()
        fits_sets = len(table) <= 64 and not self.check_len.any()
        self.sets = _piece_sets(self.starts, self.piece_of) if fits_sets else None
        self.shows = table[self.piece_of % len(table), self.turn_of].astype(np.int16)
        self.shows[self.piece_of == len(table)] = 0  # a sentinel shows nothing
        kinds = self.side_kinds[orient_pattern[self.piece_of % len(table), self.turn_of]]
        self.entry_kind = np.maximum(kinds, 0)

    def _distinct(self, p: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (piece, turn) pairs given, without a turn that shows the same colours as an earlier one."""
        keep = [
            k
            for k in range(len(p))
            if not any((self.table[p[k], t] == self.table[p[k], r[k]]).all() for t in range(r[k]))
        ]
        return p[keep], r[keep]

    def _books(self) -> None:
        """The look-ahead's starting books: sides of the free pieces by kind and colour, and the joins
        the pre-placed pieces open."""
        kinds = 4 + 16 * 4
        self.supply = np.zeros(kinds * self.radix, np.int64)
        self.demand = np.zeros(kinds * self.radix, np.int64)
        first: dict[int, int] = {}
        for i, p in enumerate(self.piece_of):
            if p < len(self.table):  # not a sentinel
                first.setdefault(int(p), i)
        for i in first.values():
            for s in range(4):
                if self.shows[i, s]:
                    self.supply[self.entry_kind[i, s] * self.radix + self.shows[i, s]] += 1
        for x in np.flatnonzero(self.piece != NONE):
            for s in range(4):
                q = self.nb[x, s]
                if q >= 0 and self.piece[q] == NONE and self.shown[x, s] > 0:
                    self.demand[self.need[x, s] * self.radix + self.shown[x, s]] += 1

    def _balanced(self) -> bool:
        """Can the sides left pair up, colour by colour? Along the rim every join takes a clockwise and a
        counter-clockwise side; inside, an edge piece's inward side and an inner side, or two inner sides
        (on a board two cells thick there are no inner cells: the two frame lines meet, inward side to
        inward side); unturned pieces, a left and a right side or a top and a bottom one. (Pre-placed pieces' open joins
        are taken first.) A board that fails is proved to have no perfect board without a node."""
        rest = (self.supply - self.demand).reshape(-1, self.radix)[:, 1:]
        if (rest < 0).any():
            return False
        if self.turns == 4:
            inner, into = rest[INNER], rest[IN]
            if min(self.n, self.m) <= 2:  # two frame lines meet: inward sides pair with inward sides
                return bool((rest[CW] == rest[CCW]).all() and (inner == 0).all() and (into % 2 == 0).all())
            return bool(
                (rest[CW] == rest[CCW]).all() and (inner >= into).all() and ((inner - into) % 2 == 0).all()
            )
        by_side = rest[4:].reshape(16, 4, -1).sum(axis=0)  # [side, colour] over every pattern
        return bool((by_side[0] == by_side[2]).all() and (by_side[1] == by_side[3]).all())

    def geometry(self) -> tuple:
        return (
            self.order,
            self.nb,
            self.need,
            self.key_at,
            self.key_weight,
            self.check_side,
            self.check_len,
            self.base,
        )

    def lists(self) -> tuple:
        return (
            self.starts,
            self.piece_of,
            self.turn_of,
            self.shows,
            self.entry_kind,
            self.radix,
        )

    def fresh_state(self) -> tuple:
        """A job's own copy of everything the walk changes."""
        f = len(self.order)
        return (
            self.next_twin,
            self.blocked.copy(),
            self.shown.copy(),
            self.piece.copy(),
            np.zeros(max(f, 1), np.int64),
            self.supply.copy(),
            self.demand.copy(),
        )

    @staticmethod
    def new_cursor(depth: int) -> np.ndarray:
        """A walk's place, to resume it: [depth (-1: not started), fresh, boards found, then per depth a
        cursor (`_walk`) or three (`_walk_sets`)]."""
        cursor = np.zeros(4 * depth + 4, np.int64)
        cursor[0] = -1
        return cursor

    def sibling(self, order: str) -> Board:
        """The same board and settings, scanned in another order (for `search`'s hedge, `turns`)."""
        return Board(
            self.table,
            self.n,
            self.m,
            self.preplaced,
            order,
            self.lookahead_wanted,
            self.symmetry_wanted,
            False if self.generated_wanted is None else self.generated_wanted,  # turns' slices: no compile
        )

    def generated_walk(self):
        """The board's generated walks (`generated.Walks`), or None where it walks the general one,
        chosen at its first walk and kept: a walk's cursor is resumed by the same walk."""
        with _CHOOSING:
            if self._generated is None:
                self._generated = False
                if self.sets is not None and not self.lookahead and len(self.order) > 0:
                    wanted = self.generated_wanted
                    if wanted is None:
                        estimate = self.estimates.get(self.order_name, (0.0,))[0]
                        wanted = estimate > GENERATE_ABOVE
                    if wanted:
                        self.flip, self.again = generated.toggles(self.next_twin, self.piece_of)
                        self.near = generated.ahead(self)
                        self._generated = Walks(self)
        return self._generated or None

    @property
    def compile_seconds(self) -> float:
        """Seconds spent compiling (or loading) this board's generated walks so far."""
        return self._generated.compile_seconds if isinstance(self._generated, Walks) else 0.0

    def board_of(self, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The full board (piece, turn per cell) of a candidate per depth."""
        piece, turn = self.piece.copy(), self.turn.copy()
        piece[self.order], turn[self.order] = self.piece_of[chosen], self.turn_of[chosen]
        return piece, turn

    def walk(
        self,
        state,
        first: int,
        depth: int,
        limit: int,
        max_nodes: int,
        stop,
        progress,
        keep: int,
        tally=None,
        cursor=None,
    ):
        """`_walk` on this board; returns (status, boards reached, nodes, placements, record). `tally` (2 int64s, no
        look-ahead): the entries read and those blocked are added to it (a slower walk, to measure).
        `cursor` (`new_cursor`): where the walk stopped, so that the next call with it (and the same
        state) resumes there."""
        cursor = self.new_cursor(depth) if cursor is None else cursor
        record = np.zeros((keep, max(depth, 1)), np.int64)
        bounds = (first, depth, limit, max_nodes)
        io = (stop, progress, record, tally if tally is not None else np.zeros(2, np.int64), cursor)
        fused = self.generated_walk() if tally is None else None
        if fused is not None:
            status, found, nodes, placed = fused(state, bounds, io)
        elif self.sets is not None and not self.lookahead and tally is None:
            status, found, nodes, placed = _walk_sets(
                self.geometry(), self.lists(), self.sets, state, bounds, io
            )
        else:
            walk = _walk_books if self.lookahead else _walk_plain if tally is None else _walk_tallied
            status, found, nodes, placed = walk(self.geometry(), self.lists(), state, bounds, io)
        return status, found, nodes, placed, record[: min(found, keep)]


def estimate_orders(
    table,
    n: int,
    m: int,
    preplaced=None,
    names=None,
    dives: int | None = None,
    seed: int = probe.PROBE_SEED,
    **settings,
) -> dict[str, tuple[float, float]]:
    """{order: (estimated nodes of its whole tree, standard error)} for each order in `names` (all of
    ORDERS but `short`, which is rows or columns) by `dives` of `probe.tree_estimate` (None: PROBES, read at the
    call); `settings` go to Board (the look-ahead is left out of the dives). Why: on a given board
    orders differ by large factors, and a few thousand dives per order, a fraction of a second, tell
    them apart (`bench_exact_edge order`)."""
    names = [x for x in ORDERS if x != "short"] if names is None else names
    dives = probe.PROBES if dives is None else dives
    estimates: dict[str, tuple[float, float]] = {}
    seen: dict[bytes, str] = {}
    for name in names:
        board = Board(table, n, m, preplaced, order=name, **settings)
        cells = board.order.tobytes()
        if cells in seen:  # the same cells in the same order (a square's rows and a band, say)
            estimates[name] = estimates[seen[cells]]
            continue
        seen[cells] = name
        if not board.consistent or len(board.order) == 0:
            estimates[name] = (0.0, 0.0)
            continue
        mean, error = probe.tree_estimate(board.geometry(), board.lists(), board.fresh_state(), dives, seed)
        estimates[name] = (float(mean), float(error))
    return estimates


def auto_order(table, n: int, m: int, preplaced, **settings) -> tuple[str, dict[str, tuple[float, float]]]:
    """(the order of the smallest estimated tree, the estimates) for `Board(order="auto")`: where the
    best tree is long to walk but within reach (REFINE) it is estimated again with 10x the dives. A
    board whose default order's tree is TRIVIAL at a glance walks that order: on the small boards of
    colour sweeps and cross-checks (trees of tens of nodes) probing every order took 50x the walk."""
    glance = estimate_orders(table, n, m, preplaced, names=["short"], dives=probe.GLANCE, **settings)
    if glance["short"][0] < probe.TRIVIAL:  # walked sooner than the other orders' tables are built
        return "short", glance
    estimates = estimate_orders(table, n, m, preplaced, **settings)
    if probe.REFINE[0] < min(e[0] for e in estimates.values()) < probe.REFINE[1]:  # heavy tails mis-rank
        estimates = estimate_orders(table, n, m, preplaced, dives=10 * probe.PROBES, **settings)
    return min(estimates, key=lambda x: estimates[x][0]), estimates
