"""GuildError and the generated error constants (guild_client.errors)."""

from __future__ import annotations

import os
import unittest

import guild_client
from guild_client import GuildError
from guild_client import error_codes

CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY_ROOT = os.path.dirname(os.path.dirname(CLIENT_ROOT))
CONTRACT = os.path.join(REPOSITORY_ROOT, "protocol", "errors.md")


def parse_errors_markdown(text: str):
    """Every ``(code, reason, section)`` row of the ``| code | reason | ...`` tables of ``text``."""
    rows = []
    section = ""
    in_table = False
    for line in text.splitlines():
        if line.startswith("## "):
            section, in_table = line[3:].strip(), False
            continue
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        cells = [cell.strip().strip("`").strip() for cell in line.strip().strip("|").split("|")]
        if not in_table:
            in_table = [cell.lower() for cell in cells[:2]] == ["code", "reason"]
            continue
        if all(set(cell) <= set("-: ") for cell in cells):
            continue  # The |---|---| line under the header.
        rows.append((int(cells[0]), cells[1], section))
    return rows


SAMPLE = """# Errors

## JSON-RPC 2.0 codes

| code | reason | when | extra `data` members |
|---|---|---|---|
| `-32700` | `PARSE_ERROR` | Not JSON. | |

Some prose | with a pipe.

## Other limits

| limit | default | past it |
|---|---|---|
| `--max-batch` | 1,000 | `BATCH_TOO_LARGE` |
"""


class GuildErrorTests(unittest.TestCase):

    def test_str_and_attributes(self) -> None:
        error = GuildError(40901, "user exists",
                           {"reason": "USER_ALREADY_EXISTS", "field": "username"})
        self.assertEqual(str(error),
                         "user exists (code 40901, reason USER_ALREADY_EXISTS, "
                         "field 'username')")
        self.assertIn("40901", repr(error))

    def test_from_malformed_error_object(self) -> None:
        error = GuildError.from_error_object("oops")
        self.assertEqual(error.code, -32603)
        error = GuildError.from_error_object({"code": "x", "message": "m", "data": [1]})
        self.assertEqual((error.code, error.message, error.data), (-32603, "m", [1]))
        self.assertIsNone(error.reason)


class ErrorConstantTests(unittest.TestCase):

    def test_the_constants_of_the_single_file_client_keep_their_values(self) -> None:
        before = {
            "PARSE_ERROR": -32700, "INVALID_REQUEST": -32600, "METHOD_NOT_FOUND": -32601,
            "INVALID_PARAMS": -32602, "INTERNAL_ERROR": -32603, "TOO_MANY_REQUESTS": -32001,
            "TOO_MANY_CONNECTIONS": -32002, "SHUTTING_DOWN": -32003, "UNAUTHORIZED": 40101,
            "INVALID_CREDENTIALS": 40102, "INVALID_TOKEN": 40103,
            "INVALID_REFRESH_TOKEN": 40104, "PERMISSION_DENIED": 40301,
            "USER_NOT_FOUND": 40401, "SUBSCRIPTION_NOT_FOUND": 40404,
            "USER_ALREADY_EXISTS": 40901, "CURSOR_EXPIRED": 41001,
            "TOO_MANY_SUBSCRIPTIONS": 42901,
        }
        for name, code in before.items():
            self.assertEqual(getattr(guild_client, name), code, name)
            self.assertIn(name, guild_client.__all__)

    def test_every_pair_is_a_constant_of_the_package(self) -> None:
        self.assertGreater(len(guild_client.ERRORS), 30)
        for code, reason in guild_client.ERRORS:
            self.assertEqual(getattr(guild_client, reason), code, reason)
            self.assertEqual(getattr(guild_client.errors, reason), code, reason)
            self.assertIn(reason, guild_client.__all__)
            self.assertIn(reason, guild_client.REASONS)
            self.assertEqual(guild_client.CODES[reason], code)

    def test_reasons_for(self) -> None:
        self.assertEqual(guild_client.reasons_for(10007),
                         ("NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "NOT_A_MEMBER"))
        self.assertEqual(guild_client.reasons_for(41001), ("CURSOR_EXPIRED",))
        self.assertEqual(guild_client.reasons_for(12345), ())


class GeneratedModuleTests(unittest.TestCase):
    """guild_client/error_codes.py and protocol/errors.md are generated from the same catalog
    (scripts/gen-contract; scripts/test checks both are current): every row of the document's
    tables is a constant, in the same order and under the same section."""

    def setUp(self) -> None:
        if not os.path.exists(CONTRACT):
            self.skipTest("protocol/errors.md is not here (an installed copy of the client)")

    def test_every_row_of_the_contract_is_covered(self) -> None:
        with open(CONTRACT, encoding="utf-8") as document:
            rows = parse_errors_markdown(document.read())
        self.assertEqual([(code, reason) for code, reason, _ in rows], list(error_codes.ERRORS))
        for code, reason, _ in rows:
            self.assertEqual(getattr(error_codes, reason), code)

    def test_constants_are_grouped_by_the_sections_of_the_contract(self) -> None:
        with open(CONTRACT, encoding="utf-8") as document:
            rows = parse_errors_markdown(document.read())
        with open(error_codes.__file__, encoding="utf-8") as module:
            text = module.read()
        self.assertIn("Do not edit", text)
        section = None
        expected = []
        for code, reason, title in rows:
            if title != section:
                section = title
                expected.append("# " + title)
            expected.append("{} = {}".format(reason, code))
        body = text.split('"""', 2)[2].split("ERRORS = (")[0]
        constants = [line for line in body.splitlines() if line.strip()]
        self.assertEqual(constants, expected)

    def test_reasons_are_unique(self) -> None:
        reasons = [reason for _, reason in error_codes.ERRORS]
        self.assertEqual(len(reasons), len(set(reasons)))


class ParserTests(unittest.TestCase):
    """The test's reader of protocol/errors.md's tables."""

    def test_reads_only_code_reason_tables(self) -> None:
        self.assertEqual(parse_errors_markdown(SAMPLE), [(-32700, "PARSE_ERROR", "JSON-RPC 2.0 codes")])
