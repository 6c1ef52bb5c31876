"""``nbayes demo``: the main job on built-in data only.

Fits every model on the classic worked examples and on scikit-learn's bundled data
sets, and prints nbayes's test accuracy next to scikit-learn's on the same split.
"""

from __future__ import annotations

import click
import numpy as np
import sklearn.naive_bayes as sk
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.model_selection import train_test_split

import nbayes
from nbayes.examples import person_example, weather_example

MODELS = ["GaussianNB", "MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB"]


def _bundled_sets():
    yield "iris", load_iris(return_X_y=True)
    yield "wine", load_wine(return_X_y=True)
    yield "digits", load_digits(return_X_y=True)
    yield "breast_cancer", load_breast_cancer(return_X_y=True)


def _quintile_codes(X_train, X_test):
    """Each feature coded 0..4 by the training quintiles."""
    edges = np.quantile(X_train, np.linspace(0, 1, 6)[1:-1], axis=0).T
    return tuple(
        np.stack([np.searchsorted(e, col) for e, col in zip(edges, X.T, strict=True)], axis=1)
        for X in (X_train, X_test)
    )


def _accuracy_table() -> list[tuple[str, str, float, float, float]]:
    rows = []
    for data_name, (X, y) in _bundled_sets():
        X_train, X_test, y_train, y_test = train_test_split(
            X, y, test_size=0.3, random_state=0, stratify=y
        )
        codes_train, codes_test = X_train, X_test
        if data_name != "digits":  # discrete models get quintile codes
            codes_train, codes_test = _quintile_codes(X_train, X_test)
        for name in MODELS:
            train, test = (X_train, X_test) if name == "GaussianNB" else (codes_train, codes_test)
            ours = getattr(nbayes, name)()
            theirs = getattr(sk, name)()
            if name == "CategoricalNB":
                ours.set_params(min_categories=int(max(train.max(), test.max())) + 1)
                theirs.set_params(min_categories=ours.min_categories)
            ours.fit(train, y_train)
            theirs.fit(train, y_train)
            gap = np.abs(ours.predict_proba(test) - theirs.predict_proba(test)).max()
            rows.append(
                (
                    data_name,
                    name,
                    ours.score(test, y_test),
                    theirs.score(test, y_test),
                    gap,
                )
            )
    return rows


@click.command()
def demo() -> None:
    """Fit every model on built-in data; compare with scikit-learn."""
    click.secho("Worked examples from the course notes", bold=True)
    weather = weather_example()
    click.echo(
        f"  weather (14 days, no smoothing): P(Yes | Sunny) = {weather['Yes']:.4f}, "
        f"P(No | Sunny) = {weather['No']:.4f}"
    )
    person = person_example()
    click.echo(
        "  person (equal priors, ddof=1): posterior numerators "
        f"male {person['male']:.4e}, female {person['female']:.4e} -> "
        f"{max(person, key=person.get)}"
    )
    click.secho("\nTest accuracy, 30% stratified hold-out (seed 0)", bold=True)
    click.echo(f"  {'data':<14}{'model':<15}{'nbayes':>8}{'sklearn':>9}{'max |dP|':>11}")
    for data_name, name, ours, theirs, gap in _accuracy_table():
        click.echo(f"  {data_name:<14}{name:<15}{ours:>8.4f}{theirs:>9.4f}{gap:>11.1e}")
