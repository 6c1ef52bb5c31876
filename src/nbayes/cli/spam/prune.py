"""``nbayes spam prune``: drop old, rare or surplus tokens, then compact (as ``bogoutil``)."""

from __future__ import annotations

import click

from nbayes.cli.spam.options import db_option, lock_timeout_option, open_store

_COUNT = click.IntRange(min=0)


@click.command()
@db_option
@lock_timeout_option
@click.option("--older-than", type=_COUNT, metavar="DAYS", help="Tokens last learnt before this.")
@click.option(
    "--count-at-most", type=_COUNT, metavar="N", help="Tokens seen in at most N messages."
)
@click.option("--hapaxes", is_flag=True, help="Tokens seen in one message (--count-at-most 1).")
@click.option(
    "--max-tokens", type=_COUNT, metavar="N", help="Then keep at most N tokens (the most seen)."
)
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@click.option(
    "--compact/--no-compact",
    default=True,
    show_default=True,
    help="Rewrite the file without the freed space (VACUUM).",
)
def prune(
    db, lock_timeout, older_than, count_at_most, hapaxes, max_tokens, dry_run, compact
) -> None:
    """Remove tokens from the database, then compact it.

    --older-than and --count-at-most (or --hapaxes) together remove the tokens that
    meet both, as `bogoutil -a DAYS -c N`; --max-tokens then keeps the N most seen.
    With no option, only compacts. Message counts are kept: a removed token scores as
    one never seen. Classes other than ham and spam lose their counts by --older-than
    and --count-at-most too (each count judged alone); --max-tokens bounds ham and spam.
    """
    from nbayes.spam.prune import prune as prune_store

    if hapaxes:
        if count_at_most not in (None, 1):
            raise click.UsageError("--hapaxes is --count-at-most 1: give one of them")
        count_at_most = 1
    with open_store(db, lock_timeout) as store:
        report = prune_store(
            store, older_than=older_than, count_at_most=count_at_most, max_tokens=max_tokens,
            dry_run=dry_run, compact=compact,
        )  # fmt: skip
    verb = "would remove" if dry_run else "removed"
    click.echo(
        f"{verb} {report.removed} of {report.tokens} tokens; database"
        f" {_mb(report.bytes_before)} -> {_mb(report.bytes_after)}"
    )
    if report.class_rows:  # a store with classes other than ham and spam
        click.echo(
            f"{verb} {report.class_removed} of {report.class_rows} counts of other classes"
        )


def _mb(size: int) -> str:
    return f"{size / 2**20:.2f} MB"
