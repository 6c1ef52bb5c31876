"""Loaders for the UCI tables in ``../shared/data`` as pandas DataFrames.

Missing values (``?``) become NaN (numeric columns) or None (string columns) unless
``missing_as_category``, which keeps ``?`` as an ordinary value.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "class",
]  # fmt: skip
CAR_COLUMNS = ["buying", "maint", "doors", "persons", "lug_boot", "safety", "class"]
NURSERY_COLUMNS = [
    "parents", "has_nurs", "form", "children", "housing", "finance", "social", "health",
    "class",
]  # fmt: skip


def _read(path: Path, names: list[str], missing_as_category: bool, **options) -> pd.DataFrame:
    return pd.read_csv(
        path,
        header=None,
        names=names,
        na_values=[] if missing_as_category else ["?"],
        keep_default_na=False,
        skipinitialspace=True,
        dtype={name: str for name in names if name not in _NUMERIC},
        **options,
    )


_NUMERIC = {"age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"}


def split_xy(frame: pd.DataFrame, target: str = "class") -> tuple[pd.DataFrame, pd.Series]:
    return frame.drop(columns=target), frame[target]


def adult(part: str = "data", missing_as_category: bool = False) -> pd.DataFrame:
    """UCI adult, ``part`` "data" (train) or "test"; labels without the test's period."""
    options = {"skiprows": 1} if part == "test" else {}
    frame = _read(DATA / "uci_adult" / f"adult.{part}", ADULT_COLUMNS, missing_as_category,
                  **options)  # fmt: skip
    frame = frame.dropna(subset=["class"]).reset_index(drop=True)
    frame["class"] = frame["class"].str.rstrip(".")
    return frame


def mushroom(missing_as_category: bool = False) -> pd.DataFrame:
    """UCI mushroom: the class first, then 22 one-letter attributes."""
    names = ["class", *(f"a{i}" for i in range(1, 23))]
    return _read(DATA / "uci_mushroom" / "agaricus-lepiota.data", names, missing_as_category)


def car(missing_as_category: bool = False) -> pd.DataFrame:
    return _read(DATA / "uci_car" / "car.data", CAR_COLUMNS, missing_as_category)


def nursery(missing_as_category: bool = False) -> pd.DataFrame:
    frame = _read(DATA / "uci_nursery" / "nursery.data", NURSERY_COLUMNS, missing_as_category)
    return frame.dropna(subset=["class"]).reset_index(drop=True)
