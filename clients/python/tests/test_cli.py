"""The command line, ``python3 -m guild_client`` (guild_client.cli)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
import unittest
from typing import Any, Dict, Sequence, Tuple

import guild_client

from .support import Connection, WatchTestCase, error_message, event_message, result_message

CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_main(argv: Sequence[str], stdin: str = "") -> Tuple[Any, str, str]:
    """``guild_client.main(argv)`` on another thread: (status, stdout, stderr).

    A usage error gives the ``SystemExit`` as the status.
    """
    out, err = io.StringIO(), io.StringIO()
    outcome: "queue.Queue[Any]" = queue.Queue()

    def target() -> None:
        try:
            outcome.put(guild_client.main(list(argv)))
        except SystemExit as exit_:
            outcome.put(exit_)

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
            _stdin(stdin):
        thread = threading.Thread(target=target, daemon=True)
        thread.start()
        status = outcome.get(timeout=10)
    return status, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _stdin(text: str) -> Any:
    saved = sys.stdin
    sys.stdin = io.StringIO(text)
    try:
        yield
    finally:
        sys.stdin = saved


class OfflineCliTests(WatchTestCase):

    def test_call_prints_result(self) -> None:
        status, out, _ = run_main(["--socket", self.server.path, "call", "echo", '{"a": 1}'])
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out), {"a": 1})

    def test_options_may_follow_the_command(self) -> None:
        status, out, _ = run_main(["call", "echo", "[1, 2]", "--socket", self.server.path])
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out), [1, 2])

    def test_call_reads_params_from_stdin(self) -> None:
        status, out, _ = run_main(["--socket", self.server.path, "call", "echo", "-"],
                                  stdin='{"from": "stdin"}')
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out), {"from": "stdin"})

    def test_call_authenticates_first(self) -> None:
        status, out, _ = run_main(["--socket", self.server.path, "--token", "tok",
                                   "call", "ping"])
        self.assertEqual((status, json.loads(out)), (0, "pong"))
        methods = [m["method"] for m in self.server.messages]
        self.assertEqual(methods, ["session.authenticate", "ping"])
        self.assertEqual(self.server.messages[0]["params"], {"accessToken": "tok"})

    def test_call_notify_prints_nothing(self) -> None:
        status, out, _ = run_main(["--socket", self.server.path, "call", "--notify",
                                   "note", '{"x": 1}'])
        self.assertEqual((status, out), (0, ""))
        self.assertTrue(self.server.wait_for(lambda ms: len(ms) == 1))
        self.assertEqual(self.server.messages[0],
                         {"jsonrpc": "2.0", "method": "note", "params": {"x": 1}})

    def test_call_reports_errors(self) -> None:
        status, _, err = run_main(["--socket", self.server.path, "call", "no.such.method"])
        self.assertEqual(status, 1)
        self.assertIn("-32601", err)
        self.assertIn("METHOD_NOT_FOUND", err)

    def test_call_unreachable_daemon(self) -> None:
        missing = os.path.join(self.server.directory, "missing.sock")
        status, _, err = run_main(["--socket", missing, "call", "ping"])
        self.assertEqual(status, 2)
        self.assertIn("error:", err)

    def test_usage_errors(self) -> None:
        for argv in ([], ["call"], ["call", "m", "{not json"], ["watch", "system.ping"],
                     ["call", "system.ping", "--since", "3"]):
            status, _, _ = run_main(argv)
            self.assertIsInstance(status, SystemExit, argv)
            self.assertEqual(status.code, 2, argv)

    def test_watch_prints_json_lines(self) -> None:
        def first(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 9}),
                                 event_message("s1", 4),
                                 event_message("s1", 5, kind="groupCreated")])
            time.sleep(0.1)
            return False

        def expired(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(error_message(request_id, 41001, "cursor expired",
                                          {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self.script(first, expired)
        argv = ["--socket", self.server.path, "--token", "tok", "watch", "--since", "3",
                "--kind", "groupCreated", "--kind", "memberInvited"]
        status, out, err = run_main(argv)
        self.assertEqual(status, 1)
        lines = out.splitlines()
        self.assertEqual([json.loads(line)["seq"] for line in lines], [4, 5])
        self.assertEqual(json.loads(lines[1])["kind"], "groupCreated")
        self.assertIn("41001", err)
        self.assertEqual([m["params"] for m in self.server.subscribes],
                         [{"kinds": ["groupCreated", "memberInvited"], "since": 3},
                          {"kinds": ["groupCreated", "memberInvited"], "since": 5}])
        methods = [m["method"] for m in self.server.messages]
        self.assertEqual(methods[:2], ["session.authenticate", "events.subscribe"])

    def test_watch_group_and_all(self) -> None:
        def expired(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(error_message(request_id, 40301, "admins only",
                                          {"reason": "PERMISSION_DENIED"}))
            return True

        self.script(expired)
        status, _, err = run_main(["watch", "--socket", self.server.path, "--group", "g1",
                                   "--group", "g2", "--all"])
        self.assertEqual(status, 1)
        self.assertIn("PERMISSION_DENIED", err)
        self.assertEqual(self.server.subscribes[0]["params"],
                         {"groupIDs": ["g1", "g2"], "all": True})


class ErrorsCommandTests(unittest.TestCase):
    """``errors`` needs no daemon."""

    def test_lists_every_error(self) -> None:
        status, out, _ = run_main(["errors"])
        self.assertEqual(status, 0)
        rows = [line.split() for line in out.splitlines()]
        self.assertEqual([(int(code), reason) for code, reason in rows],
                         list(guild_client.ERRORS))

    def test_looks_up_a_code_or_a_reason(self) -> None:
        status, out, _ = run_main(["errors", "10007"])
        self.assertEqual(status, 0)
        self.assertEqual([line.split()[1] for line in out.splitlines()],
                         ["NOT_ALLOWED", "UNSUPPORTED_FOR_TYPE", "NOT_A_MEMBER"])
        status, out, _ = run_main(["errors", "cursor_expired"])
        self.assertEqual((status, out.split()), (0, ["41001", "CURSOR_EXPIRED"]))
        status, out, err = run_main(["errors", "NO_SUCH_REASON"])
        self.assertEqual((status, out), (1, ""))
        self.assertIn("NO_SUCH_REASON", err)


class ModuleEntryPointTests(WatchTestCase):
    """``python3 -m guild_client`` in a child process."""

    def run_module(self, *argv: str) -> "subprocess.CompletedProcess[str]":
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(
            [CLIENT_ROOT] + [p for p in environment.get("PYTHONPATH", "").split(os.pathsep) if p])
        return subprocess.run([sys.executable, "-m", "guild_client"] + list(argv),
                              capture_output=True, text=True, timeout=30, env=environment)

    def test_call_through_the_module(self) -> None:
        process = self.run_module("--socket", self.server.path, "call", "echo", '{"b": [true]}')
        self.assertEqual(process.returncode, 0, process.stderr)
        self.assertEqual(json.loads(process.stdout), {"b": [True]})
        self.assertEqual(process.stderr, "")

    def test_help_names_the_commands(self) -> None:
        process = self.run_module("--help")
        self.assertEqual(process.returncode, 0)
        for command in ("call", "watch", "errors"):
            self.assertIn(command, process.stdout)
