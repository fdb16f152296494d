"""The socket and its line framing (guild_client.transport)."""

from __future__ import annotations

import json
import os
import queue
import socket
import tempfile
import threading
import unittest
from typing import Any, List
from unittest import mock

from guild_client import default_socket_path
from guild_client.transport import LineSplitter, LineTransport, encode

from .support import OfflineTestCase


class EncodeTests(unittest.TestCase):

    def test_one_compact_line(self) -> None:
        line = encode({"jsonrpc": "2.0", "id": 1, "method": "m", "params": {"a": [1, None]}})
        self.assertEqual(line, b'{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,null]}}\n')

    def test_control_characters_are_escaped_and_utf8_is_not(self) -> None:
        line = encode({"text": "a\nb\r\u2028 h\u00e9"})
        self.assertEqual(line.count(b"\n"), 1)
        self.assertTrue(line.endswith(b"\n"))
        self.assertIn("h\u00e9".encode("utf-8"), line)
        self.assertEqual(json.loads(line.decode("utf-8")), {"text": "a\nb\r\u2028 h\u00e9"})


class LineSplitterTests(unittest.TestCase):

    def test_lines_in_any_pieces(self) -> None:
        stream = b"".join(encode({"n": n, "s": "\u00e9" * n}) for n in range(50)) + b"\n\n"
        for size in (1, 2, 3, 7, 64, len(stream)):
            splitter = LineSplitter()
            lines: List[bytes] = []
            for start in range(0, len(stream), size):
                lines += splitter.feed(stream[start:start + size])
            self.assertEqual([json.loads(line)["n"] for line in lines], list(range(50)),
                             "pieces of {} bytes".format(size))
            self.assertEqual(splitter.pending, 0)

    def test_unfinished_line_is_held(self) -> None:
        splitter = LineSplitter()
        self.assertEqual(splitter.feed(b'{"a":'), [])
        self.assertEqual(splitter.pending, 5)
        self.assertEqual(splitter.feed(b'1}\n{"b"'), [b'{"a":1}'])
        self.assertEqual(splitter.pending, 4)
        self.assertEqual(splitter.feed(b"   \n"), [b'{"b"   '])


class LineTransportTests(unittest.TestCase):
    """LineTransport against a bare listening socket."""

    def setUp(self) -> None:
        directory = tempfile.mkdtemp(prefix="gt-", dir="/tmp")
        self.addCleanup(os.rmdir, directory)
        self.path = os.path.join(directory, "t.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.addCleanup(os.unlink, self.path)
        self.listener.listen(1)
        self.addCleanup(self.listener.close)
        self.messages: "queue.Queue[Any]" = queue.Queue()
        self.closes: "queue.Queue[str]" = queue.Queue()
        self.transport = LineTransport(self.path, self.messages.put, self.closes.put, timeout=5)
        self.addCleanup(self.transport.close)
        self.peer, _ = self.listener.accept()
        self.addCleanup(self.peer.close)
        self.transport.start()

    def test_messages_arrive_in_order_and_bad_lines_are_skipped(self) -> None:
        with self.assertLogs("guild_client.transport", "WARNING") as logs:
            self.peer.sendall(b'{"a":1}\nnot json\n[1,2]\n\xff\n"text"\n{"b":')
            self.peer.sendall(b"2}\n")
            received = [self.messages.get(timeout=5) for _ in range(4)]
        self.assertEqual(len(logs.records), 2, "one warning per unparsable line")
        self.assertEqual(received, [{"a": 1}, [1, 2], "text", {"b": 2}])

    def test_send_writes_whole_lines_from_many_threads(self) -> None:
        def send(n: int) -> None:
            for k in range(20):
                self.transport.send({"n": n, "k": k, "pad": "x" * 5000})

        received = bytearray()

        def read() -> None:
            while True:
                chunk = self.peer.recv(65536)
                if not chunk:
                    return
                received.extend(chunk)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        threads = [threading.Thread(target=send, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
        self.transport.close()
        reader.join(timeout=10)
        data = bytes(received)
        lines = data.split(b"\n")
        self.assertEqual(lines[-1], b"")
        decoded = [json.loads(line) for line in lines[:-1]]
        self.assertEqual(len(decoded), 160)
        for n in range(8):
            self.assertEqual([m["k"] for m in decoded if m["n"] == n], list(range(20)))

    def test_on_close_runs_once_when_the_peer_closes(self) -> None:
        self.peer.sendall(b'{"last":true}\n')
        self.peer.close()
        self.assertEqual(self.messages.get(timeout=5), {"last": True})
        self.assertEqual(self.closes.get(timeout=5), "connection closed by daemon")
        self.transport.close()
        with self.assertRaises(queue.Empty):
            self.closes.get(timeout=0.1)
        with self.assertRaises(OSError):
            self.transport.send({"after": "close"})

    def test_handler_errors_do_not_stop_reading(self) -> None:
        seen: "queue.Queue[Any]" = queue.Queue()

        def fragile(message: Any) -> None:
            seen.put(message)
            raise RuntimeError("handler failed")

        self.transport._on_message = fragile
        with self.assertLogs("guild_client.transport", "ERROR"):
            self.peer.sendall(b"1\n2\n")
            self.assertEqual([seen.get(timeout=5) for _ in range(2)], [1, 2])

    def test_connect_failure_raises_oserror(self) -> None:
        with self.assertRaises(OSError):
            LineTransport(self.path + ".missing", self.messages.put, self.closes.put)


class OfflineWireFormatTests(OfflineTestCase):

    def test_newlines_in_params_are_escaped(self) -> None:
        params = {"text": "line one\nline two\r\n", "unicode": "h\u00e9llo \u2713",
                  "sep": "\u2028"}
        self.assertEqual(self.client.call("echo", params), params)
        self.client.notify("note", {"text": "a\nb"})
        self.assertEqual(self.client.batch([("echo", {"x": "\n"})]), [{"x": "\n"}])
        self.assertTrue(self.server.wait_for(lambda ms: len(ms) == 3))

        raw = bytes(self.server.raw)
        self.assertTrue(raw.endswith(b"\n"))
        lines = raw.split(b"\n")[:-1]
        self.assertEqual(len(lines), 3, "each message must be exactly one line")
        for line in lines:
            json.loads(line.decode("utf-8"))
        self.assertIn("h\u00e9llo".encode("utf-8"), raw, "UTF-8 is sent unescaped")

    def test_large_messages(self) -> None:
        text = "x" * 300000 + "\n" + "y" * 100000
        self.assertEqual(self.client.call("echo", {"text": text}), {"text": text})

    def test_notify_sends_no_id(self) -> None:
        self.assertIsNone(self.client.notify("note", {"x": 1}))
        self.assertIsNone(self.client.notify("bare"))
        self.assertTrue(self.server.wait_for(lambda ms: len(ms) == 2))
        first, second = self.server.messages
        self.assertEqual(first, {"jsonrpc": "2.0", "method": "note", "params": {"x": 1}})
        self.assertEqual(second, {"jsonrpc": "2.0", "method": "bare"})

    def test_parse_error_goes_to_orphan_errors(self) -> None:
        self.client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":\n')
        orphan = self.client.orphan_errors.get(timeout=5)
        self.assertIsNone(orphan["id"])
        self.assertEqual(orphan["error"]["code"], -32700)
        self.assertEqual(self.client.call("ping"), "pong")


class DefaultSocketPathTests(unittest.TestCase):

    def test_guild_socket_wins(self) -> None:
        env = {"GUILD_SOCKET": "/tmp/x.sock", "XDG_RUNTIME_DIR": "/run/user/5"}
        with mock.patch.dict(os.environ, env):
            self.assertEqual(default_socket_path(), "/tmp/x.sock")

    def test_xdg_runtime_dir(self) -> None:
        with mock.patch.dict(os.environ, {"XDG_RUNTIME_DIR": "/run/user/5"}):
            os.environ.pop("GUILD_SOCKET", None)
            self.assertEqual(default_socket_path(), "/run/user/5/guild/guild.sock")

    def test_root_and_regular_user(self) -> None:
        with mock.patch.dict(os.environ, {}):
            os.environ.pop("GUILD_SOCKET", None)
            os.environ.pop("XDG_RUNTIME_DIR", None)
            with mock.patch("os.getuid", return_value=0):
                self.assertEqual(default_socket_path(), "/run/guild/guild.sock")
            with mock.patch("os.getuid", return_value=1000):
                self.assertEqual(default_socket_path(), "/run/user/1000/guild/guild.sock")

