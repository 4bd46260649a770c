"""Dataclass schemas for the config groups: a typo or a wrong type fails when the config is composed.

Each group's YAML file extends its schema (`defaults: [/schema/<group>/<name>@_here_, _self_]`), so
the schema holds the types and the YAML holds the values users read.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from hydra.core.config_store import ConfigStore


@dataclass
class BudgetConf:
    evaluations: Optional[int] = 20000
    seconds: Optional[float] = None
    target: Optional[float] = None  # stop once best <= target; null: the puzzle's known optimum
    stop_at_optimum: bool = True


@dataclass
class PentominoConf:
    _target_: str = "puzzles.pentomino.PentominoStrip"
    width: int = 6
    orientations: str = "fixed"
    pieces: str = "pentominoes"


@dataclass
class TwoOptConf:
    _target_: str = "heuristics.two_opt.TwoOpt"
    strategy: str = "first"
    move: str = "reversal"
    start: str = "random"


@dataclass
class GAConf:
    _target_: str = "heuristics.ga.GA"
    pop_size: int = 50
    cxpb: float = 0.8
    mutpb: float = 0.5
    indpb: float = 0.2
    orient_indpb: float = 0.1
    tournsize: int = 3
    elite: int = 2
    crossover: str = "ordered"


@dataclass
class SAConf:
    _target_: str = "heuristics.sa.SimulatedAnnealing"
    t0: float = 5.0
    alpha: float = 0.999
    t_min: float = 0.05
    moves: dict[str, float] = field(default_factory=lambda: {"swap": 1.0, "insert": 1.0, "reversal": 1.0})
    orientation_rate: float = 0.3


@dataclass
class VcoptOpt2Conf:
    _target_: str = "heuristics.vcopt_baselines.VcoptOpt2"
    start: str = "identity"


@dataclass
class VcoptTspGAConf:
    _target_: str = "heuristics.vcopt_baselines.VcoptTspGA"
    pool_num: int = 20
    max_gen: Optional[int] = None


@dataclass
class RandomSearchConf:
    _target_: str = "heuristics.random_search.RandomSearch"


@dataclass
class EdgeMatchingConf:
    _target_: str = "puzzles.edge_matching.EdgeMatching"
    n: int = 13
    colours: int = 20
    generator: str = "seed"
    instance_seed: int = 0
    rotations: bool = False
    fix_centre: bool = True
    hints: list[list[int]] = field(default_factory=list)
    pieces_file: Optional[str] = None
    order: Optional[str] = None


@dataclass
class GreedyConf:
    _target_: str = "experiments.greedy_solver.GreedySolver"
    seed_faithful: bool = False


SCHEMAS: dict[str, dict[str, Any]] = {
    "budget": {"budget": BudgetConf},
    "puzzle": {"pentomino": PentominoConf, "edge_matching": EdgeMatchingConf},
    "optimizer": {
        "two_opt": TwoOptConf,
        "ga": GAConf,
        "sa": SAConf,
        "vcopt_opt2": VcoptOpt2Conf,
        "vcopt_tspga": VcoptTspGAConf,
        "random_search": RandomSearchConf,
        "greedy": GreedyConf,
    },
}


def register(schemas: dict[str, dict[str, Any]] = SCHEMAS) -> None:
    """Put every schema in Hydra's ConfigStore under schema/<group>, apart from the user's choices."""
    cs = ConfigStore.instance()
    for group, nodes in schemas.items():
        for name, node in nodes.items():
            cs.store(group=f"schema/{group}", name=name, node=node)
