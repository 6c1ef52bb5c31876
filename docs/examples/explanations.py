"""Explanations: the worked computation of one prediction, the most informative
features, and a nomogram (as numbers and as a figure)."""

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display needed
import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits

import nbayes
import nbayes.plot
from nbayes.examples import weather_data
from nbayes.inspection.explain import most_informative_features
from nbayes.inspection.nomogram import nomogram_data

# 1. The worked computation, as the course notes lay it out.
codes, play, outlooks = weather_data()
weather = nbayes.CategoricalNB(alpha=0.0).fit(codes, play)
sunny = int(np.searchsorted(outlooks, "Sunny"))
print(weather.explain([sunny], feature_names=["Weather"], display_values=["Sunny"]).to_text())

# 2. Which (feature, value) pairs tell the classes apart most (digits' pixels, on/off)?
digits = load_digits()
ink = (digits.data > 7).astype(int)  # 1 where the pixel is inked
pixels = nbayes.BernoulliNB().fit(ink, digits.target)
for f in most_informative_features(pixels, 3, feature_names=digits.feature_names):
    print(f"{f.feature} = {f.value}: {f.ratio:6.1f} times likelier for {f.top} than {f.bottom}")

# 3. A nomogram: each feature value's log-odds points for one class.
cancer = load_breast_cancer()
model = nbayes.GaussianNB().fit(cancer.data, cancer.target)  # classes 0 malignant, 1 benign
names = list(cancer.feature_names)
data = nomogram_data(model, target=1, feature_names=names)
print(f"prior log-odds of benign: {data.prior_log_odds:+.3f}")
for row in data.rows[:3]:
    print(f"{row.feature:<22} spans {row.span:6.1f} log-odds points")

figure = nbayes.plot.nomogram(model, 1, feature_names=names, max_features=8)
with tempfile.TemporaryDirectory() as folder:
    png = Path(folder) / "nomogram.png"
    figure.savefig(png)
    print(f"nomogram figure written: {png.stat().st_size:,} bytes of PNG")
