"""argparse, with usage errors a person can act on: raised (so `main` can also print them as JSON when
`--format json` was asked for), shown with the usage line of the sub-command they belong to, and with a
did-you-mean for a misspelt flag, command or choice (`--inptus`: `did you mean --inputs?`), as input
and rule names have."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

# compiled on first use (`re`'s cache): only a usage error needs it
_CHOICE = r"invalid choice: '(?P<word>[^']*)' \(choose from (?P<choices>.*)\)$"


class ArgumentsError(Exception):
    """A usage error argparse found (it would print it and exit): raised instead, so `main` can also
    print it as JSON when `--format json` was asked for."""

    def __init__(self, parser: argparse.ArgumentParser, message: str) -> None:
        super().__init__(message)
        self.parser = parser
        self.message = message


class Parser(argparse.ArgumentParser):
    """argparse's parser (sub-commands' parsers are of the same class) raising `ArgumentsError`, with a
    hint added to an invalid choice."""

    def error(self, message: str) -> NoReturn:
        raise ArgumentsError(self, with_choice_hint(message))


def parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """`parser.parse_args(argv)`, except that words no parser knows are reported by the sub-command's
    parser (its usage line, not the top-level one) with the closest flags it has.

    argparse hands a sub-command's unknown words up to the top-level parser, which would print its
    own usage (`arazzo [-h] [--version] COMMAND ...`) and nothing to go on."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        owner = subcommand_parser(parser, getattr(args, "command", None)) or parser
        owner.error(unrecognized(unknown, owner))
    return args


def subcommand_parser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return None


def unrecognized(words: list[str], parser: argparse.ArgumentParser) -> str:
    """argparse's message for words it does not know, and for each that looks like a flag the closest
    ones `parser` has."""
    message = f"unrecognized arguments: {' '.join(words)}"
    flags = [w.partition("=")[0] for w in words if w.startswith("-") and len(w) > 1 and w != "--"]
    hints = []
    for flag in dict.fromkeys(flags):
        close = closest(flag, parser._option_string_actions)
        if close:
            hints.append(f"{flag}: did you mean {' or '.join(close)}?")
    return message + ("; " + "; ".join(hints) if hints else "")


def closest(word: str, choices: Iterable[str], limit: int = 2) -> list[str]:
    """The choices most like `word` (a transposition, a letter missing or extra), best first."""
    import difflib  # only for a usage error: every command line that parses has no use for it

    options = [c for c in choices if c.startswith("--") == word.startswith("--")]
    found = difflib.get_close_matches(word, options, n=limit, cutoff=0.75)
    if not found:  # a short word (`--fromat`) has few letters to compare: be a little more lenient
        found = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return found


def with_choice_hint(message: str) -> str:
    """`argument --format: invalid choice: 'jsno' (choose from 'text', 'json')` and the closest choice."""
    match = re.search(_CHOICE, message)
    if match is None:
        return message
    choices = re.findall(r"'([^']*)'", match.group("choices"))
    import difflib  # only for a usage error

    close = difflib.get_close_matches(match.group("word"), choices, n=1, cutoff=0.6)
    return f"{message}; did you mean '{close[0]}'?" if close else message


def help_formatter(prog: str) -> Any:
    """Descriptions and epilogs as written (their examples keep their lines); options wrapped."""
    return argparse.RawDescriptionHelpFormatter(prog, max_help_position=32)
