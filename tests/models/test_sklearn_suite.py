"""scikit-learn's own naive Bayes test suite, run against nbayes.

The file ships inside the scikit-learn wheel (``sklearn/tests/test_naive_bayes.py``).
We read it from the installed scikit-learn, point only its import of the five
classes at ``nbayes``, and execute it in this module so pytest collects its tests.

Excluded, each with its reason (see ``EXCLUDED``: none today). Its array API test
(``test_gnb_array_api_compliance``) runs for every namespace installed (NumPy,
array-api-strict and PyTorch CPU in the test extra; CuPy and CUDA where present) with
``SCIPY_ARRAY_API=1``, which ``tests/conftest.py`` sets.
"""

from __future__ import annotations

from pathlib import Path

import sklearn

SOURCE = Path(sklearn.__file__).parent / "tests" / "test_naive_bayes.py"
ORIGINAL_IMPORT = "from sklearn.naive_bayes import ("
NBAYES_IMPORT = "from nbayes import ("

EXCLUDED: dict[str, str] = {}


def _load_suite() -> dict:
    text = SOURCE.read_text()
    if text.count(ORIGINAL_IMPORT) != 1:
        raise RuntimeError(f"{SOURCE} no longer imports the classes as expected")
    namespace: dict = {"__name__": __name__, "__file__": str(SOURCE)}
    exec(
        compile(text.replace(ORIGINAL_IMPORT, NBAYES_IMPORT), str(SOURCE), "exec"),
        namespace,
    )
    for name in EXCLUDED:
        del namespace[name]
    return {name: value for name, value in namespace.items() if name.startswith("test_")}


globals().update(_load_suite())


def test_suite_runs_against_nbayes():
    """The executed suite really exercises nbayes, not scikit-learn."""
    import nbayes

    suite = _load_suite()
    assert "test_gnb" in suite
    assert suite["test_gnb"].__globals__["GaussianNB"] is nbayes.GaussianNB
