"""The retarget's flags, made from core/retarget/options.py's one list of options, for
`rigedit retarget` and `rigedit batch retarget` alike: an option added there is a flag of
both commands, and each command hands every one on to `retarget_file`.

A str option is `--NAME {choices}`; a bool option that defaults to on is `--no-NAME`
(store_false), one that defaults to off `--NAME`. NAME is the field's, with '-' for '_',
unless SPELLING says otherwise (a flag the command had before the list).
Also FILE_FLAGS: what `retarget_file` takes per file beside the options (the animation to
read, only_result), shared the same way.
"""
from __future__ import annotations

import argparse
from dataclasses import fields

from rigedit.core.retarget.options import RetargetOptions

SPELLING = {"lock_feet": "foot-lock"}


def add_option_flags(p: argparse.ArgumentParser, kind: type = RetargetOptions) -> None:
    """A flag for every field of `kind` (RetargetOptions; KeyError naming the field when it has no help)."""
    for f in fields(kind):
        name = SPELLING.get(f.name, f.name.replace("_", "-"))
        text = f.metadata["help"]
        if isinstance(f.default, bool):
            flag = f"--no-{name}" if f.default else f"--{name}"
            p.add_argument(flag, dest=f.name, action="store_false" if f.default else "store_true", help=text)
        else:
            p.add_argument(f"--{name}", dest=f.name, choices=f.metadata.get("choices"), default=f.default, help=text)


def add_file_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--animation", metavar="NAME", help="glTF source: the animation to retarget, by name or index (default: the first)")
    p.add_argument("--only-result", action="store_true", help="onto a glTF character: drop its own animations from OUT")


def option_values(args: argparse.Namespace, kind: type = RetargetOptions) -> dict:
    """Every option's value as parsed, by field name: retarget_file's keywords."""
    return {f.name: getattr(args, f.name) for f in fields(kind)}


def file_values(args: argparse.Namespace) -> dict:
    return {"animation": args.animation, "only_result": args.only_result}
