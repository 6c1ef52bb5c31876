"""A click group whose subcommands are imported only when used (click's documented
"lazily loading subcommands" pattern): ``nbayes spam classify``, run by a mail server
once per message, then imports the spam filter alone, not pandas, matplotlib and
scikit-learn for the other commands; and ``nbayes --help`` imports none of them: it
lists each subcommand with the help text read from its source file."""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import sys
import threading
import types
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import click


class LazyGroup(click.Group):
    """``lazy_commands`` maps a subcommand's name to ``"module:attribute"``, its click
    command, imported the first time the subcommand is run or asked for help."""

    def __init__(self, *args, lazy_commands: Mapping[str, str] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    #: Whether a subcommand's import runs without the garbage collector, whose
    #: survivors are then moved out of its reach (``gc.freeze``): set by
    #: :func:`nbayes.cli.run`, where the process is the command's own.
    freeze_imports = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.lazy_commands and cmd_name not in self.commands:
            module, attribute = self.lazy_commands[cmd_name].split(":")
            with _collector_paused(self.freeze_imports):
                command = getattr(importlib.import_module(module), attribute)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's listing of the subcommands and their short help, with the ones not
        imported yet described by :func:`_described` instead of imported."""
        commands = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is None and name in self.lazy_commands:
                command = _described(name, self.lazy_commands[name])
            if command is None:
                command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                commands.append((name, command))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _ in commands)
            rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@contextmanager
def _collector_paused(paused: bool) -> Iterator[None]:
    """Run the block without the cyclic garbage collector, then freeze what survived.

    Importing scikit-learn and pandas creates some 100,000 objects that live as long as
    the process; as their number grows, Python runs full collections over all of them
    again and again (0.1-0.3 s of a command's CPU). Modules, classes and functions are
    not garbage, so they are frozen (``gc.freeze``: never scanned again) and the
    collector goes on as usual for everything the command itself creates."""
    if not paused or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def _described(name: str, target: str) -> click.Command | None:
    """A stand-in for the command ``target`` (``"module:function"``) that carries only
    its help: the ``help``/``short_help``/``hidden`` given to its decorator, else its
    docstring, read from the module's source without running it. None where the
    source cannot be read that way (the caller then imports the command)."""
    module, function = target.split(":")
    try:
        spec = importlib.util.find_spec(module)
        with open(spec.origin, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (ImportError, AttributeError, TypeError, OSError, SyntaxError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            settings = {"help": ast.get_docstring(node)}
            for decorator in node.decorator_list:  # @click.command(...), not the options
                called = getattr(decorator, "func", decorator)
                if getattr(called, "attr", getattr(called, "id", "")) not in ("command", "group"):
                    continue
                for keyword in getattr(decorator, "keywords", []):
                    if keyword.arg in ("help", "short_help", "hidden"):
                        if not isinstance(keyword.value, ast.Constant):
                            return None
                        settings[keyword.arg] = keyword.value.value
            return click.Command(name, **settings)
    return None


#: The subcommands that import scikit-learn, which imports ``scipy.stats`` at start-up
#: (``sklearn.utils.fixes``) and never uses it on their paths: see :func:`defer_import`.
DEFERS_SCIPY_STATS = frozenset(
    {"train", "predict", "evaluate", "explain", "inspect", "demo", "score"}
)


def defer_import(name: str) -> None:
    """Make ``import name`` cheap until an attribute of the module is first read.

    A stand-in module takes the module's place in ``sys.modules`` (with its real
    ``__spec__``, so the import system takes it as loaded); the first attribute read
    from it imports the real module, puts it back in ``sys.modules``, and copies its
    namespace into the stand-in, so a name bound to either sees the same objects.
    Nothing happens if the module is imported already or cannot be found.

    For ``scipy.stats``: scikit-learn imports it whenever it is imported (0.3-0.7 s
    of a command's start-up, much of it SciPy parsing docstrings), but ``nbayes train``
    and ``nbayes predict`` never read from it (bench/NOTES.md, scenario J).
    """
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return
    if spec is None:
        return
    stand_in = types.ModuleType(name)
    stand_in.__spec__ = spec
    stand_in.__loader__ = spec.loader
    stand_in.__file__ = spec.origin
    if spec.submodule_search_locations is not None:
        stand_in.__path__ = spec.submodule_search_locations
    lock = threading.Lock()

    def load(attribute: str):
        with lock:
            if sys.modules.get(name) is stand_in:
                del sys.modules[name]
                real = importlib.import_module(name)
                stand_in.__dict__.update(
                    {k: v for k, v in real.__dict__.items() if k != "__getattr__"}
                )
                if "__getattr__" in real.__dict__:
                    stand_in.__getattr__ = real.__dict__["__getattr__"]
                else:
                    del stand_in.__getattr__
        return getattr(sys.modules[name], attribute)

    stand_in.__getattr__ = load  # PEP 562: read only for names not in its namespace
    sys.modules[name] = stand_in
