"""Plain-text layout of an :class:`nbayes.inspection.explanation.Explanation`: kept for
its import path; the layout lives beside the record it lays out, in
:mod:`nbayes.inspection.explanation`."""

from nbayes.inspection.explanation import format_explanation

__all__ = ["format_explanation"]
