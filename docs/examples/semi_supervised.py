"""Semi-supervised EM (Nigam et al., 2000): a few labelled news articles plus many
unlabelled ones (label -1). The BBC news corpus comes with nbayes[bbc]."""

import numpy as np
from sklearn.model_selection import train_test_split

import nbayes
from nbayes.examples import bbc_news
from nbayes.text import CountVectorizer

texts, topics = bbc_news()  # 2,225 articles, 5 topics
train, test, y_train, y_test = train_test_split(
    texts, topics, test_size=0.5, stratify=topics, random_state=0
)
vectorizer = CountVectorizer(stop_words="english", min_df=2)
X_train, X_test = vectorizer.fit_transform(train), vectorizer.transform(test)

# Keep about 2 % of the training labels; mark the rest unlabelled with -1.
hidden = np.random.default_rng(0).random(len(y_train)) > 0.02
y_partial = y_train.astype(object)  # string labels and the integer -1 side by side
y_partial[hidden] = -1
print(f"labelled articles: {(~hidden).sum()}, unlabelled: {hidden.sum()}")

labelled_only = nbayes.MultinomialNB().fit(X_train[~hidden], y_train[~hidden])
print(f"labelled articles only: accuracy {labelled_only.score(X_test, y_test):.3f}")

em = nbayes.SemiSupervisedNB(nbayes.MultinomialNB(), unlabeled_weight=1.0)
em.fit(X_train, y_partial)
print(f"EM on all articles:     accuracy {em.score(X_test, y_test):.3f}")
never_down = bool((np.diff(em.log_posterior_) >= -1e-9).all())
print(f"{em.n_iter_} EM iterations, log posterior never decreased: {never_down}")
