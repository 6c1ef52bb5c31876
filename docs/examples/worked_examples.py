"""The course notes' worked examples, from nbayes.examples."""

import numpy as np

import nbayes
from nbayes.examples import PERSON, PERSON_SAMPLE, PERSON_SEX, weather_data

# 14 days of weather and whether we played outside: P(play | Sunny), no smoothing.
codes, play, outlooks = weather_data()  # codes index outlooks: Overcast, Rainy, Sunny
weather = nbayes.CategoricalNB(alpha=0.0).fit(codes, play)
sunny = int(np.searchsorted(outlooks, "Sunny"))
proba = weather.predict_proba([[sunny]])[0]
answer = dict(zip(weather.classes_.tolist(), proba.round(4).tolist(), strict=True))
print("P(play | Sunny):", answer)

# Height, weight and foot size: Gaussian with Bessel-corrected variances (ddof=1),
# equal priors and no variance floor, as in the textbook computation.
person = nbayes.GaussianNB(priors=[0.5, 0.5], ddof=1, var_smoothing=0.0)
person.fit(PERSON, PERSON_SEX)
numerators = np.exp(person.predict_joint_log_proba(PERSON_SAMPLE)[0])
for sex, value in zip(person.classes_, numerators, strict=True):
    print(f"P({sex}) p(x | {sex}) = {value:.4e}")
print("prediction:", person.predict(PERSON_SAMPLE)[0])
