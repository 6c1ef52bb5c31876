"""The ``nbayes`` command line: a thin click layer over the public API."""

from __future__ import annotations

import click

from nbayes.cli.demo import demo
from nbayes.cli.spam import spam


@click.group()
@click.version_option(package_name="nbayes")
def main() -> None:
    """nbayes: naive Bayes classifiers, exact and fast."""


main.add_command(demo)
main.add_command(spam)
