"""The benchmark's registry: what a scenario is, and the table of scenarios by letter.

A scenario module defines a generator of :class:`Dataset` s and registers it with
:func:`register`; it imports this module only, never :mod:`bench.scenarios` (the
catalogue that imports every scenario module), so the package has no import circle.
A :class:`Dataset` holds :class:`Case` s: the same task done by nbayes, by its rival
(scikit-learn, bogofilter, ...) and by the floor, the cheapest computation of the same
shape. A scenario for a feature not built yet is registered with ``build=None`` and a
``missing`` reason.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from bench.harness import Measurement


@dataclass
class Case:
    """One task, three ways; targets are the largest acceptable time ratios."""

    task: str
    nbayes: Callable[[], object]
    sklearn: Callable[[], object] | None
    floor: Callable[[], object] | None = None
    floor_name: str = ""
    max_vs_sklearn: float | None = None
    max_vs_floor: float | None = None
    items: int = 0  # units of work per call (messages), for a throughput column
    compare_memory: bool = True  # False where the rival's peak is not measured alike
    same_result: bool = True  # nbayes and the rival return the same thing (tests check)
    max_s: float | None = None  # the most seconds nbayes may take (start-up rows)
    max_over_rival_s: float | None = None  # the most seconds nbayes may take over the rival
    max_memory_vs_floor: float | None = None  # largest acceptable peak-memory ratio


Measured = list[tuple[Case, dict[str, Measurement]]]


@dataclass
class Dataset:
    """Cases on one data set. ``rival`` names what nbayes is compared with (the
    "sklearn" column); ``notes`` are lines printed under the table (accuracy, the
    rival's settings); ``unit`` names ``Case.items`` (throughput columns). A dataset
    whose timings cannot be taken call by call gives ``measure(repeats)``, returning
    its cases with their measurements under "nbayes", "sklearn" and "floor"."""

    label: str
    read_pass: Callable[[], object] | None
    cases: list[Case] = field(default_factory=list)
    rival: str = "scikit-learn"
    notes: list[str] = field(default_factory=list)
    unit: str = ""
    measure: Callable[[int], Measured] | None = None


@dataclass
class Scenario:
    key: str
    title: str
    build: Callable[[bool], Iterator[Dataset]] | None
    missing: Callable[[], str | None] = lambda: None  # why it cannot run, or None


SCENARIOS: dict[str, Scenario] = {}


def register(key: str, title: str, missing: Callable[[], str | None] = lambda: None):
    def decorator(build):
        SCENARIOS[key] = Scenario(key, title, build, missing)
        return build

    return decorator
