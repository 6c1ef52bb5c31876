"""Text to tokens and token counts, compiled with numba: what every text model stands on
(the text event model, the text pipeline, model files, ONNX export).

- :mod:`~nbayes.tokens.tokenize`: :class:`~nbayes.tokens.tokenize.Tokenizer` (Unicode
  words, numbers, URLs, e-mail addresses and host names, case folding, length bounds,
  English stop words, word n-grams);
- :mod:`~nbayes.tokens.vectorizers`: drop-in, compiled ``CountVectorizer`` and
  ``HashingVectorizer``;
- :mod:`~nbayes.tokens.patterns`: token patterns from strangers run in linear time;
- :mod:`~nbayes.tokens._ngram_range`: the bounded ``ngram_range`` setting.

Users import these from :mod:`nbayes.text`, which adds the pipelines built over them.
"""
