"""Event models: one small module each, with the same four parts in the same order.

1. ``Stats``: additive sufficient statistics (``zero``, ``+``, ``take_classes``);
2. ``summarize(X, W) -> Stats``: one batch's statistics under class weights ``W``
   (Gaussian, counts and categorical also give ``add_into(stats, X, W) -> Stats``,
   the same added into statistics the caller owns, in place; their ``summarize`` is
   ``add_into`` of zero statistics);
3. ``estimate(stats, ...) -> Params``: parameters, with smoothing;
4. ``log_likelihood(params, X) -> ndarray (n_samples, n_classes)``: ``log P(x | y)``,
   and ``log_likelihood_terms(params, X) -> ndarray (n_samples, n_classes, n_features)``,
   its per-feature terms ``log P(x_j | y)`` (for explanations; they sum to it).

The discrete models also give ``linear_terms(params) -> (coef, intercept)`` with
``log P(x | y) = X' @ coef.T + intercept`` (``X'`` the one-hot encoding for
categorical data). Modules whose names start with ``_`` are helpers
(``_gaussian_fit``: the Gaussian block kernel).
"""
