"""Text: the compiled tokenizer and vectorizers, Rennie et al.'s transforms, and the
recommended pipeline, on the BBC news corpus (nbayes[bbc])."""

from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

import nbayes
from nbayes.examples import bbc_news
from nbayes.text import CountVectorizer, RennieTransformer, Tokenizer, make_text_classifier

sentence = "Mail bob@example.com about https://example.com/x at 10:30!"
print("rich: ", Tokenizer(kind="rich", stop_words=None)(sentence))
print("words:", Tokenizer(kind="words", stop_words=None)(sentence))

texts, topics = bbc_news()
train, test, y_train, y_test = train_test_split(texts, topics, stratify=topics, random_state=0)

# Built by hand: counts -> log-TF, IDF, L2 (Rennie's steps 1-3) -> complement NB.
by_hand = make_pipeline(
    CountVectorizer(tokenizer=Tokenizer(kind="rich", stop_words="english"), ngram_range=(1, 2)),
    RennieTransformer(tf="log", idf=True, norm="l2"),
    nbayes.ComplementNB(alpha=0.3, norm=True),  # step 7: weight normalisation (TWCNB)
)
# The recommended pipeline for posts and mail (str or bytes in, labels out).
recommended = make_text_classifier()

for name, model in (("by hand", by_hand), ("make_text_classifier()", recommended)):
    model.fit(train, y_train)
    print(f"{name:<24} test accuracy {model.score(test, y_test):.3f}")
print("predicted:", recommended.predict(["Shares fell as the bank cut its forecast."])[0])
