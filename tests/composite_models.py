"""Fitted composite models and their data, shared by the composite model-file tests
(``test_io_composite.py``, ``test_io_fresh_process.py``): small, deterministic,
seconds to fit."""

from __future__ import annotations

import numpy as np

TOPICS = {
    "space": "orbit moon launch rocket nasa shuttle planet satellite gravity lunar".split(),
    "autos": "engine car brake wheel dealer ford tires mileage sedan clutch".split(),
    "hockey": "goal puck ice season playoffs team skate coach score rink".split(),
}
COMMON = "the and is of to a in that it for on was with as this".split()


def posts(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """``n`` news posts (Subject header, body with a quoted line and a signature)
    about one of three topics each, and their topics (n,)."""
    rng = np.random.default_rng(seed)
    names = sorted(TOPICS)
    labels = rng.choice(names, size=n)
    out = []
    for label in labels:
        own = TOPICS[str(label)]
        subject = " ".join(rng.choice(own, size=2))
        words = rng.choice(own + COMMON + TOPICS[names[rng.integers(3)]], size=30)
        body = " ".join(words[:15]) + "\n> " + " ".join(words[15:20]) + "\n" + " ".join(words[20:])
        out.append(f"From: x{rng.integers(99)}@example.org\nSubject: {subject}\n\n{body}\n-- \nsig")
    return out, labels


def counts(n: int = 120, n_features: int = 12, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial count rows (n, n_features) from three class profiles, labels (n,)."""
    rng = np.random.default_rng(seed)
    theta = rng.dirichlet(np.ones(n_features), size=3)
    y = np.arange(n) % 3
    X = np.array([rng.multinomial(15, theta[c]) for c in y]).astype(float)
    return X, y


def reals(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian rows (n, 4) whose means depend on the class, labels (n,) in 3 classes."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = rng.normal(size=(n, 4)) * [1.0, 10.0, 0.1, 3.0] + y[:, None]
    return X, y


def mixed_table(n: int = 120, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """An object table (n, 4): two numeric columns, then two string columns."""
    rng = np.random.default_rng(seed)
    X, y = reals(n, seed)
    table = np.empty((n, 4), dtype=object)
    table[:, 0], table[:, 1] = X[:, 0], X[:, 1]
    table[:, 2] = np.array(["red", "green", "blue"])[(y + rng.integers(0, 2, n)) % 3]
    table[:, 3] = np.array(["s", "m", "l", "xl"])[rng.integers(0, 4, n)]
    return table, y


def hide_labels(y: np.ndarray) -> np.ndarray:
    """``y`` as an object array with every fourth label unlabelled (-1)."""
    hidden = y.astype(object)
    hidden[1::4] = -1
    return hidden
