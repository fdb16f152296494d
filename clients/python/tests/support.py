"""Test support: a fake guildd on a Unix socket, message builders, base cases.

Nothing here needs a daemon.  The live tests (``Live*`` classes in the test
modules) run only when ``GUILD_SOCKET`` names the socket of a running
``guildd``; :data:`LIVE_SOCKET` holds it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import socket
import tempfile
import threading
import unittest
from typing import Any, Dict, List, Optional

from guild_client import GuildClient, watch_events

#: The socket of a running guildd for the live tests, or None.
LIVE_SOCKET = os.environ.get("GUILD_SOCKET")
#: Skips a live test class unless GUILD_SOCKET is set.
live = unittest.skipUnless(LIVE_SOCKET, "set GUILD_SOCKET to run tests against a live guildd")

BATCH_LIMIT = 5


class Connection:
    """One client connection accepted by the fake server."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.write_lock = threading.Lock()

    def send(self, message: Any) -> None:
        self.send_all([message])

    def send_all(self, messages: List[Any]) -> None:
        """Write several messages with one ``sendall`` (one read, usually)."""
        data = b"".join(json.dumps(m, separators=(",", ":")).encode("utf-8") + b"\n"
                        for m in messages)
        with self.write_lock:
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def drop(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def result_message(request_id: Any, result: Any) -> Dict[str, Any]:
    """A success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_message(request_id: Any, code: int, message: str, data: Any = None) -> Dict[str, Any]:
    """An error response."""
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def event_message(subscription: str, seq: int, kind: str = "memberInvited",
                  group_id: str = "g1") -> Dict[str, Any]:
    """An ``events.event`` notification as guildd sends it."""
    event = {"seq": seq, "kind": kind, "groupID": group_id, "actor": "u1",
             "users": ["u2"], "time": 1795348702624}
    return {"jsonrpc": "2.0", "method": "events.event",
            "params": {"subscription": subscription, "seq": seq, "event": event}}


def ended_message(subscription: str, last_seq: int, reason: str = "LAGGED") -> Dict[str, Any]:
    """An ``events.ended`` notification as guildd sends it."""
    return {"jsonrpc": "2.0", "method": "events.ended",
            "params": {"subscription": subscription, "reason": reason, "lastSeq": last_seq}}


class FakeServer:
    """A small JSON-RPC server on a Unix socket that imitates guildd.

    Methods it serves:

    * ``ping`` -> ``"pong"``; ``echo`` -> its params.
    * ``fail`` -> an error built from params ``{code, message, data}``.
    * ``gather {n, value}`` -> held until ``n`` gathers arrived, then all
      are answered in reverse order of arrival.
    * ``delay {seconds, value}`` -> ``value``, answered after a delay.
    * ``push {params}`` -> pushes an ``events.event`` notification, then
      answers ``true``.
    * ``ask`` -> sends a request to the client, then answers ``true``.
    * ``hang`` -> never answered; ``drop`` -> closes the connection.
    * ``session.authenticate`` -> ``true``.
    * ``events.subscribe`` -> handled by :attr:`on_subscribe`
      ``(connection, request_id, params, n)`` (``n`` counts subscribes,
      from 1), which writes the reply and anything else; returning False
      drops the connection.  The default answers ``{"subscription":
      "s<n>", "seq": 0}``.  Requests are recorded in :attr:`subscribes`.
    * ``events.unsubscribe`` -> ``true`` for an id :attr:`on_subscribe`
      handed out by default, else a 40404 error.

    Batches larger than ``BATCH_LIMIT`` are rejected with a single error.
    Unparsable lines get a ``-32700`` error with a null id.
    """

    def __init__(self) -> None:
        self.directory = tempfile.mkdtemp(prefix="gc-", dir="/tmp")
        self.path = os.path.join(self.directory, "s.sock")
        self.raw = bytearray()
        self.messages: List[Any] = []
        self.condition = threading.Condition()
        self._held: List[tuple] = []
        self._connections: List[Connection] = []
        self.subscribes: List[Dict[str, Any]] = []
        self.subscription_ids: set = set()
        self.on_subscribe = self._default_subscribe
        self.disconnects = 0
        self._stopping = False
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.path)
        self._listener.listen(16)
        self._listener.settimeout(0.05)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping = True
        self._thread.join()
        self._listener.close()
        for connection in list(self._connections):
            connection.drop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def wait_for(self, predicate: Any, timeout: float = 5.0) -> bool:
        """Wait until ``predicate(messages)`` is true."""
        with self.condition:
            return self.condition.wait_for(lambda: predicate(self.messages), timeout)

    def _default_subscribe(self, connection: Connection, request_id: Any,
                           params: Dict[str, Any], n: int) -> bool:
        subscription_id = "s{}".format(n)
        self.subscription_ids.add(subscription_id)
        connection.send(result_message(request_id, {"subscription": subscription_id, "seq": 0}))
        return True

    def _accept_loop(self) -> None:
        while not self._stopping:
            try:
                sock, _ = self._listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            sock.settimeout(None)
            connection = Connection(sock)
            self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: Connection) -> None:
        try:
            self._serve_lines(connection)
        finally:
            with self.condition:
                self.disconnects += 1
                self.condition.notify_all()

    def _serve_lines(self, connection: Connection) -> None:
        buffer = b""
        while True:
            try:
                chunk = connection.sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            with self.condition:
                self.raw += chunk
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                if not self._handle_line(connection, line):
                    connection.drop()
                    return

    def _handle_line(self, connection: Connection, line: bytes) -> bool:
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            connection.send(error_message(None, -32700, "parse error", {"reason": "PARSE_ERROR"}))
            return True
        with self.condition:
            self.messages.append(message)
            self.condition.notify_all()
        if isinstance(message, list):
            if len(message) > BATCH_LIMIT:
                connection.send(error_message(None, -32600, "batch too large",
                                              {"reason": "BATCH_TOO_LARGE"}))
                return True
            replies = [self._answer(connection, entry) for entry in message]
            replies = [r for r in replies if r is not None]
            if replies:
                connection.send(list(reversed(replies)))
            return True
        if message.get("method") == "drop":
            return False
        if message.get("method") == "events.subscribe":
            with self.condition:
                self.subscribes.append(message)
                n = len(self.subscribes)
                self.condition.notify_all()
            keep = self.on_subscribe(connection, message.get("id"),
                                     message.get("params") or {}, n)
            return keep is not False
        reply = self._answer(connection, message)
        if reply is not None:
            connection.send(reply)
        return True

    def _answer(self, connection: Connection, message: Dict[str, Any]) -> Optional[Dict]:
        if "method" not in message:  # A reply from the client.
            return None
        request_id = message.get("id")
        method = message["method"]
        params = message.get("params")
        if request_id is None:
            return None
        if method == "ping":
            return result_message(request_id, "pong")
        if method == "echo":
            return result_message(request_id, params)
        if method == "fail":
            return error_message(request_id, params["code"], params["message"], params.get("data"))
        if method == "gather":
            with self.condition:
                self._held.append((request_id, params["value"]))
                if len(self._held) < params["n"]:
                    return None
                held, self._held = self._held, []
            for held_id, value in reversed(held):
                connection.send(result_message(held_id, value))
            return None
        if method == "delay":
            timer = threading.Timer(params["seconds"], connection.send,
                                    args=(result_message(request_id, params["value"]),))
            timer.daemon = True
            timer.start()
            return None
        if method == "push":
            connection.send({"jsonrpc": "2.0", "method": "events.event",
                             "params": params["params"]})
            return result_message(request_id, True)
        if method == "ask":
            connection.send({"jsonrpc": "2.0", "id": "srv-1", "method": "client.hello"})
            return result_message(request_id, True)
        if method == "hang":
            return None
        if method == "session.authenticate":
            return result_message(request_id, True)
        if method == "events.unsubscribe":
            subscription_id = (params or {}).get("subscription")
            with self.condition:
                known = subscription_id in self.subscription_ids
                self.subscription_ids.discard(subscription_id)
            if known:
                return result_message(request_id, True)
            return error_message(request_id, 40404, "no such subscription",
                                 {"reason": "SUBSCRIPTION_NOT_FOUND", "field": "subscription"})
        return error_message(request_id, -32601, "method not found",
                             {"reason": "METHOD_NOT_FOUND"})


class OfflineTestCase(unittest.TestCase):
    """Base class: a fresh fake server and client for every test."""

    def setUp(self) -> None:
        self.server = FakeServer()
        self.addCleanup(self.server.stop)
        self.client = GuildClient(self.server.path, timeout=5.0)
        self.addCleanup(self.client.close)


def event_params(subscription: str, seq: int) -> Dict[str, Any]:
    """Params for the fake server's ``push`` method: one events.event."""
    return {"params": event_message(subscription, seq)["params"]}


class WatchTestCase(OfflineTestCase):
    """Helpers to drive :func:`watch_events` against the fake server."""

    def script(self, *steps: Any) -> None:
        """Answer the n-th events.subscribe with ``steps[n - 1]``."""
        def handler(connection: Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            return steps[min(n, len(steps)) - 1](connection, request_id, params, n)

        self.server.on_subscribe = handler

    def watch(self, *args: Any, **kwargs: Any) -> Any:
        """Start watch_events(); it is closed when the test ends."""
        events = watch_events(*args, **kwargs)

        def close() -> None:
            with contextlib.suppress(ValueError):  # Still running: a failed test.
                events.close()

        self.addCleanup(close)
        return events

    def take(self, events: Any, count: int, timeout: float = 10.0) -> List[Any]:
        """The next ``count`` events; fails (rather than hangs) after ``timeout``."""
        outcome: "queue.Queue[Any]" = queue.Queue()

        def consume() -> None:
            try:
                outcome.put([next(events) for _ in range(count)])
            except BaseException as exc:  # Reported to the test thread.
                outcome.put(exc)

        threading.Thread(target=consume, daemon=True).start()
        try:
            result = outcome.get(timeout=timeout)
        except queue.Empty:
            self.fail("watch_events gave fewer than {} events in {} s".format(count, timeout))
        if isinstance(result, BaseException):
            raise result
        return result
