"""``nbayes spam stats`` and ``nbayes spam dump``."""

from __future__ import annotations

import click

from nbayes.cli.spam.options import db_option, open_store
from nbayes.spam.store import SCHEMA_VERSION


@click.command()
@db_option
def stats(db) -> None:
    """Messages and tokens in the token database."""
    with open_store(db) as store, store.snapshot():
        totals = store.totals()
    click.echo(f"database\t{db}")
    click.echo(f"schema\t{SCHEMA_VERSION}")
    click.echo(f"spam messages\t{totals.messages[1]}")
    click.echo(f"ham messages\t{totals.messages[0]}")
    click.echo(f"tokens\t{totals.vocabulary}")


@click.command()
@db_option
def dump(db) -> None:
    """Print token<TAB>ham<TAB>spam for every token, sorted, then the message counts."""
    with open_store(db) as store, store.snapshot():
        tokens, counts = store.all_counts()
        totals = store.totals()
    for token, (ham, spam) in zip(tokens, counts.tolist(), strict=True):
        click.echo(f"{token}\t{ham}\t{spam}")
    click.echo(f".MSG_COUNT\t{totals.messages[0]}\t{totals.messages[1]}")
