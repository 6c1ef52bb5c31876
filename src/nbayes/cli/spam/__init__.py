"""``nbayes spam``: a Bayesian spam filter over a SQLite token store.

A thin layer over :mod:`nbayes.spam`; the commands follow bogofilter's conventions
where they fit (``classify`` exits 0 for spam, 1 for ham, 2 for unsure, 3 for an error).
"""

from __future__ import annotations

import click

from nbayes.cli.spam.evaluate import evaluate
from nbayes.cli.spam.info import dump, stats
from nbayes.cli.spam.score import classify, score
from nbayes.cli.spam.train import train, unlearn


@click.group()
def spam() -> None:
    """Bayesian spam filter: train, score, classify, evaluate."""


for command in (train, unlearn, score, classify, stats, dump, evaluate):
    spam.add_command(command)
