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
@click.option(
    "--classes",
    "multiclass",
    is_flag=True,
    help="Every class's counts (train --class): a first line .CLASSES<TAB>ham<TAB>spam"
    "<TAB>NAME..., a column per class, tokens of every class, and .TOKEN_COUNT.",
)
def dump(db, lock_timeout, multiclass) -> None:
    """Print token<TAB>ham<TAB>spam for every token, sorted, then the message counts
    (.MSG_COUNT<TAB>ham<TAB>spam). With --classes, a column for every class the database
    learnt (those with messages: ham and spam first, then the others by name), named by
    a first line .CLASSES<TAB>CLASS..., a row for every token of any class, and after
    .MSG_COUNT a line .TOKEN_COUNT of each class's token-set size sum (what
    classify --classes reads).

    Backslashes, tabs and line breaks in a token are written \\\\, \\t, \\n, \\r.
    """
    if multiclass:
        with open_store(db, lock_timeout, readonly=True) as store:
            tokens, found = store.read_all_classes()
        click.echo(_row(b".CLASSES", [c.encode() for c in found.classes]), nl=False)
        lines = [
            _row(tsv_field(token), [b"%d" % n for n in row])
            for token, row in zip(tokens, found.counts.tolist(), strict=True)
        ]
        click.echo(b"".join(lines), nl=False)
        click.echo(_row(b".MSG_COUNT", [b"%d" % n for n in found.messages]), nl=False)
        click.echo(_row(b".TOKEN_COUNT", [b"%d" % n for n in found.tokens]), nl=False)
        return
    with open_store(db, lock_timeout, readonly=True) as store:
        tokens, counts, totals = store.read_all()
    lines = [
        b"%s\t%d\t%d\n" % (tsv_field(token), ham, spam)
        for token, (ham, spam) in zip(tokens, counts.tolist(), strict=True)
    ]
    click.echo(b"".join(lines), nl=False)
    click.echo(f".MSG_COUNT\t{totals.messages[0]}\t{totals.messages[1]}")


def _row(first: bytes, fields: list[bytes]) -> bytes:
    """One tab-separated line."""
    return b"\t".join([first, *fields]) + b"\n"
