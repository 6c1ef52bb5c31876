"""``nbayes spam stats`` and ``nbayes spam dump``: reading the database, never writing it."""

from __future__ import annotations

import click

from nbayes.cli.spam.options import db_option, lock_timeout_option, open_store, tsv_field


@click.command()
@db_option
@lock_timeout_option
def stats(db, lock_timeout) -> None:
    """Messages and tokens in the token database."""
    with open_store(db, lock_timeout, readonly=True) as store:
        totals = store.totals()
    click.echo(f"database\t{store.name}")
    click.echo(f"schema\t{store.version}")
    click.echo(f"spam messages\t{totals.messages[1]}")
    click.echo(f"ham messages\t{totals.messages[0]}")
    click.echo(f"tokens\t{totals.vocabulary}")


@click.command()
@db_option
@lock_timeout_option
def dump(db, lock_timeout) -> None:
    """Print token<TAB>ham<TAB>spam for every token, sorted, then the message counts.

    Backslashes, tabs and line breaks in a token are written \\\\, \\t, \\n, \\r.
    """
    with open_store(db, lock_timeout, readonly=True) as store:
        tokens, counts, totals = store.read_all()
    lines = [
        b"%s\t%d\t%d\n" % (tsv_field(token), ham, spam)
        for token, (ham, spam) in zip(tokens, counts.tolist(), strict=True)
    ]
    click.echo(b"".join(lines), nl=False)
    click.echo(f".MSG_COUNT\t{totals.messages[0]}\t{totals.messages[1]}")
