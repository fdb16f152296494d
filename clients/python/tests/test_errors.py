"""GuildError, the error constants and their generator (guild_client.errors)."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import shutil
import tempfile
import unittest
from types import ModuleType

import guild_client
from guild_client import GuildError
from guild_client import error_codes

CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPOSITORY_ROOT = os.path.dirname(os.path.dirname(CLIENT_ROOT))
CONTRACT = os.path.join(REPOSITORY_ROOT, "protocol", "errors.md")


def load_generator() -> ModuleType:
    """tools/generate_errors.py, imported from its file."""
    path = os.path.join(CLIENT_ROOT, "tools", "generate_errors.py")
    spec = importlib.util.spec_from_file_location("generate_errors", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generator = load_generator()

SAMPLE = """# Errors

## JSON-RPC 2.0 codes

| code | reason | when | extra `data` members |
|---|---|---|---|
| `-32700` | `PARSE_ERROR` | Not JSON. | |
| `-32600` | `EMPTY_BATCH` | `[]`. | |

## Transport limits (-32000 to -32099)

| code | reason | when | extra `data` members |
|---|---|---|---|
| `-32004` | `SERVER_BUSY` | Busy. | `scope`, `limit` |

Some prose | with a pipe.

## Storage codes

| code | reason | when |
|---|---|---|
| `50701` | `STORAGE_FULL` | The disk is full. |
| `-32700` | `PARSE_ERROR` | Listed again. |

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
    """guild_client/error_codes.py is exactly what the generator writes."""

    def setUp(self) -> None:
        if not os.path.exists(CONTRACT):
            self.skipTest("protocol/errors.md is not here (an installed copy of the client)")

    def test_committed_module_matches_the_contract(self) -> None:
        with open(error_codes.__file__, encoding="utf-8") as committed:
            text = committed.read()
        self.maxDiff = None
        self.assertEqual(
            text, generator.generate(REPOSITORY_ROOT, warn=False),
            "guild_client/error_codes.py is stale: "
            "run python3 clients/python/tools/generate_errors.py")

    def test_every_row_of_the_contract_is_covered(self) -> None:
        with open(CONTRACT, encoding="utf-8") as document:
            rows = generator.parse_errors_markdown(document.read())
        self.assertEqual([(row.code, row.reason) for row in rows], list(error_codes.ERRORS))
        for row in rows:
            self.assertEqual(getattr(error_codes, row.reason), row.code)


class GeneratorTests(unittest.TestCase):
    """tools/generate_errors.py on sample contracts."""

    def test_reads_every_code_reason_table(self) -> None:
        rows = generator.parse_errors_markdown(SAMPLE)
        self.assertEqual([(row.code, row.reason, row.section) for row in rows], [
            (-32700, "PARSE_ERROR", "JSON-RPC 2.0 codes"),
            (-32600, "EMPTY_BATCH", "JSON-RPC 2.0 codes"),
            (-32004, "SERVER_BUSY", "Transport limits (-32000 to -32099)"),
            (50701, "STORAGE_FULL", "Storage codes"),
        ])

    def test_rendered_module_defines_the_constants(self) -> None:
        text = generator.render(generator.parse_errors_markdown(SAMPLE))
        self.assertTrue(text.startswith("# Generated from protocol/errors.md"))
        self.assertIn("\n# Storage codes\nSTORAGE_FULL = 50701\n", text)
        namespace: dict = {}
        exec(compile(text, "error_codes.py", "exec"), namespace)
        self.assertEqual(namespace["SERVER_BUSY"], -32004)
        self.assertEqual(namespace["STORAGE_FULL"], 50701)
        self.assertEqual(namespace["ERRORS"], ((-32700, "PARSE_ERROR"), (-32600, "EMPTY_BATCH"),
                                               (-32004, "SERVER_BUSY"), (50701, "STORAGE_FULL")))

    def test_malformed_contracts_are_refused(self) -> None:
        table = "| code | reason | when |\n|---|---|---|\n"
        for bad in (table + "| `4x` | `OOPS` | |\n",
                    table + "| `1` | `lower_case` | |\n",
                    table + "| `1` | `ERRORS` | |\n",
                    table + "| `1` | `TWICE` | |\n| `2` | `TWICE` | |\n",
                    "no tables at all\n"):
            with self.assertRaises(generator.ContractError, msg=bad):
                generator.parse_errors_markdown(bad)

    def test_openrpc_errors(self) -> None:
        document = {"methods": [
            {"name": "a", "errors": [{"code": 1, "data": {"reason": "ONE"}},
                                     {"code": 2, "message": "no data"}]},
            {"name": "b", "errors": [{"code": 1, "data": {"reason": "ONE"}}]},
            {"name": "c"},
        ]}
        self.assertEqual(generator.openrpc_errors(document), [(1, "ONE")])

    def test_check_and_write(self) -> None:
        root = tempfile.mkdtemp(prefix="ge-", dir="/tmp")
        self.addCleanup(shutil.rmtree, root)
        os.mkdir(os.path.join(root, "protocol"))
        with open(os.path.join(root, "protocol", "errors.md"), "w", encoding="utf-8") as md:
            md.write(SAMPLE)
        with open(os.path.join(root, "protocol", "openrpc.json"), "w", encoding="utf-8") as doc:
            doc.write('{"methods": [{"name": "x", "errors": '
                      '[{"code": 7, "data": {"reason": "NOT_IN_TABLES"}}]}]}')
        output = os.path.join(root, "error_codes.py")
        argv = ["--root", root, "--output", output]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(generator.main(argv + ["--check"]), 1)
            self.assertFalse(os.path.exists(output))
            self.assertEqual(generator.main(argv), 0)
            self.assertEqual(generator.main(argv + ["--check"]), 0)
        self.assertIn("NOT_IN_TABLES", err.getvalue())
        self.assertIn("+STORAGE_FULL = 50701", err.getvalue())
        with open(output, encoding="utf-8") as written:
            self.assertIn("STORAGE_FULL = 50701", written.read())
