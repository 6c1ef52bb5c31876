"""``nbayes spam stats`` and ``nbayes spam dump``: reading the database, never writing it."""

from __future__ import annotations

import click

from nbayes.cli.spam.options import db_option, lock_timeout_option, open_store, tsv_field


@click.command()
@db_option
@lock_timeout_option
def stats(db, lock_timeout) -> None:
    """Messages and tokens in the token database (tokens: those of ham and spam; a line
    of messages for each other class it learnt)."""
    with open_store(db, lock_timeout, readonly=True) as store:
        totals = store.totals()
        others = store.class_totals()
    click.echo(f"database\t{store.name}")
    click.echo(f"schema\t{store.version}")
    click.echo(f"spam messages\t{totals.messages[1]}")
    click.echo(f"ham messages\t{totals.messages[0]}")
    for label, (messages, _) in others.items():  # classes other than ham and spam, by name
        click.echo(f"{label} messages\t{messages}")
    click.echo(f"tokens\t{totals.vocabulary}")


@click.command()
@db_option
@lock_timeout_option
def dump(db, lock_timeout) -> None:
    """Print token<TAB>ham<TAB>spam for every token, sorted, then the message counts
    (of ham and spam: other classes' counts are not dumped).

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
