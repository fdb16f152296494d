#!/usr/bin/env python3
"""Write guild_client/error_codes.py from the contract's error tables.

Reads every table of ``protocol/errors.md`` whose first two columns are
``code`` and ``reason`` and writes one constant per reason, whose value is
its code, plus ``ERRORS``, every ``(code, reason)`` pair in the document's
order.  Reasons ``protocol/openrpc.json`` names that the tables lack are
reported (the contract disagrees with itself) but not written.

    python3 clients/python/tools/generate_errors.py           # rewrite the module
    python3 clients/python/tools/generate_errors.py --check   # exit 1 if it is stale

The module's shape is the whole interface the package relies on (see
guild_client/errors.py): a header comment, then per table a ``# title``
comment and ``REASON = code`` lines, then the ``ERRORS`` tuple.  Any other
generator (issue 10 plans a Swift command that writes it from the method
declarations) only has to print the same text.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import sys
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY_ROOT = os.path.dirname(os.path.dirname(CLIENT_ROOT))
ERRORS_DOCUMENT = "protocol/errors.md"
OPENRPC_DOCUMENT = "protocol/openrpc.json"
MODULE = os.path.join(CLIENT_ROOT, "guild_client", "error_codes.py")

_REASON = re.compile(r"^[A-Z][A-Z0-9_]*$")
_HEADING = re.compile(r"^#{2,6}\s+(.*?)\s*$")


class ContractError(Exception):
    """The contract cannot be turned into constants (a malformed table)."""


class ErrorEntry(NamedTuple):
    """One row of an error table: its code, reason and table title."""

    code: int
    reason: str
    section: str


def _cells(line: str) -> List[str]:
    """The cells of a Markdown table row, stripped (no escaped ``|`` support)."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _unquote(cell: str) -> str:
    return cell.strip().strip("`").strip()


def parse_errors_markdown(text: str, source: str = ERRORS_DOCUMENT) -> List[ErrorEntry]:
    """Every ``(code, reason)`` row of the ``| code | reason | ...`` tables.

    Raises:
        ContractError: A row's code is not an integer or its reason not
            UPPER_SNAKE, a reason appears with two codes, or there is no
            such table at all.
    """
    entries: List[ErrorEntry] = []
    section = ""
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            section = heading.group(1)
            in_table = False
            continue
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if not in_table:
            in_table = [c.lower() for c in cells[:2]] == ["code", "reason"]
            continue
        if all(set(cell) <= set("-: ") for cell in cells):
            continue  # The |---|---| line under the header.
        code_text = _unquote(cells[0])
        reason = _unquote(cells[1]) if len(cells) > 1 else ""
        try:
            code = int(code_text)
        except ValueError:
            raise ContractError("{}:{}: code {!r} is not an integer".format(
                source, number, code_text)) from None
        if not _REASON.match(reason) or reason == "ERRORS":
            raise ContractError("{}:{}: reason {!r} is not UPPER_SNAKE (or is ERRORS)".format(
                source, number, reason))
        entries.append(ErrorEntry(code, reason, section))
    if not entries:
        raise ContractError("{}: no | code | reason | table found".format(source))
    return _deduplicated(entries, source)


def _deduplicated(entries: Iterable[ErrorEntry], source: str) -> List[ErrorEntry]:
    codes: Dict[str, int] = {}
    unique: List[ErrorEntry] = []
    for entry in entries:
        known = codes.get(entry.reason)
        if known is None:
            codes[entry.reason] = entry.code
            unique.append(entry)
        elif known != entry.code:
            raise ContractError("{}: reason {} has two codes, {} and {}".format(
                source, entry.reason, known, entry.code))
    return unique


def openrpc_errors(document: Dict) -> List[Tuple[int, str]]:
    """The ``(code, data.reason)`` pairs the methods of an OpenRPC document list."""
    pairs: List[Tuple[int, str]] = []
    for method in document.get("methods", []):
        for error in method.get("errors", []) or []:
            data = error.get("data") if isinstance(error, dict) else None
            reason = data.get("reason") if isinstance(data, dict) else None
            if isinstance(error.get("code"), int) and isinstance(reason, str):
                if (error["code"], reason) not in pairs:
                    pairs.append((error["code"], reason))
    return pairs


def render(entries: Sequence[ErrorEntry]) -> str:
    """The text of guild_client/error_codes.py for ``entries``."""
    lines = [
        "# Generated from {} by clients/python/tools/generate_errors.py.".format(ERRORS_DOCUMENT),
        "# Do not edit: change the contract, then run that script again.",
        '"""Every error code and reason of the Guild protocol (generated).',
        "",
        "Each ``data.reason`` is a constant whose value is its JSON-RPC ``code``,",
        "e.g. ``CURSOR_EXPIRED == 41001``; reasons that share a code each have",
        "their own constant.  ``ERRORS`` holds every ``(code, reason)`` pair in",
        "the order of ``{}``.".format(ERRORS_DOCUMENT),
        '"""',
    ]
    section: Optional[str] = None
    for entry in entries:
        if entry.section != section:
            section = entry.section
            lines += ["", "# " + section if section else "#"]
        lines.append("{} = {}".format(entry.reason, entry.code))
    lines += ["", "ERRORS = ("]
    lines += ['    ({}, "{}"),'.format(entry.code, entry.reason) for entry in entries]
    lines += [")", ""]
    return "\n".join(lines)


def generate(root: str = REPOSITORY_ROOT, warn: bool = True) -> str:
    """Read the contract under ``root`` and return the module's text."""
    with open(os.path.join(root, ERRORS_DOCUMENT), encoding="utf-8") as document:
        entries = parse_errors_markdown(document.read())
    openrpc = os.path.join(root, OPENRPC_DOCUMENT)
    if warn and os.path.exists(openrpc):
        with open(openrpc, encoding="utf-8") as document:
            listed = {(entry.code, entry.reason) for entry in entries}
            for code, reason in openrpc_errors(json.load(document)):
                if (code, reason) not in listed:
                    print("warning: {} names {} {}, which {} lacks".format(
                        OPENRPC_DOCUMENT, code, reason, ERRORS_DOCUMENT), file=sys.stderr)
    return render(entries)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Write (or, with ``--check``, compare) the generated module."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=REPOSITORY_ROOT,
                        help="repository holding protocol/ (default: %(default)s)")
    parser.add_argument("--output", default=MODULE, help="default: %(default)s")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 with a diff if the module is stale")
    args = parser.parse_args(argv)
    try:
        text = generate(args.root)
    except (ContractError, OSError) as exc:
        print("error: {}".format(exc), file=sys.stderr)
        return 2
    try:
        with open(args.output, encoding="utf-8") as existing:
            current = existing.read()
    except FileNotFoundError:
        current = ""
    if args.check:
        if current == text:
            return 0
        sys.stderr.writelines(difflib.unified_diff(
            current.splitlines(True), text.splitlines(True), args.output, "generated"))
        print("{} is stale: run {}".format(args.output, sys.argv[0]), file=sys.stderr)
        return 1
    if current != text:
        with open(args.output, "w", encoding="utf-8") as output:
            output.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
