"""A click group whose subcommands are imported only when used (click's documented
"lazily loading subcommands" pattern): ``nbayes spam classify``, run by a mail server
once per message, then imports the spam filter alone, not pandas, matplotlib and
scikit-learn for the other commands."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

import click


class LazyGroup(click.Group):
    """``lazy_commands`` maps a subcommand's name to ``"module:attribute"``, its click
    command, imported the first time the subcommand is run, listed or asked for help."""

    def __init__(self, *args, lazy_commands: Mapping[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands and cmd_name not in self.commands:
            module, attribute = self.lazy_commands[cmd_name].split(":")
            command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)
