"""Tests for guild_client.

Two groups:

* ``Offline*`` tests run against a fake JSON-RPC server defined below and
  need no daemon.
* ``LiveDaemonTests`` talk to a real ``guildd`` and run only when the
  ``GUILD_SOCKET`` environment variable names its socket.

Run with::

    python3 -m unittest -v test_guild_client
    GUILD_SOCKET=/path/to/guild.sock python3 -m unittest -v test_guild_client
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import queue
import shutil
import socket
import tempfile
import threading
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional
from unittest import mock

import guild_client
from guild_client import (
    Call,
    GuildClient,
    GuildError,
    Subscription,
    SubscriptionEnded,
    default_socket_path,
    watch_events,
)

BATCH_LIMIT = 5


class _Connection:
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


def _result(request_id: Any, result: Any) -> Dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str, data: Any = None) -> Dict[str, Any]:
    error: Dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _event(subscription: str, seq: int, kind: str = "memberInvited",
           group_id: str = "g1") -> Dict[str, Any]:
    """An ``events.event`` notification as guildd sends it."""
    event = {"seq": seq, "kind": kind, "groupID": group_id, "actor": "u1",
             "users": ["u2"], "time": 1795348702624}
    return {"jsonrpc": "2.0", "method": "events.event",
            "params": {"subscription": subscription, "seq": seq, "event": event}}


def _ended(subscription: str, last_seq: int, reason: str = "LAGGED") -> Dict[str, Any]:
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
        self._connections: List[_Connection] = []
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

    def _default_subscribe(self, connection: _Connection, request_id: Any,
                           params: Dict[str, Any], n: int) -> bool:
        subscription_id = "s{}".format(n)
        self.subscription_ids.add(subscription_id)
        connection.send(_result(request_id, {"subscription": subscription_id, "seq": 0}))
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
            connection = _Connection(sock)
            self._connections.append(connection)
            threading.Thread(target=self._serve, args=(connection,), daemon=True).start()

    def _serve(self, connection: _Connection) -> None:
        try:
            self._serve_lines(connection)
        finally:
            with self.condition:
                self.disconnects += 1
                self.condition.notify_all()

    def _serve_lines(self, connection: _Connection) -> None:
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

    def _handle_line(self, connection: _Connection, line: bytes) -> bool:
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            connection.send(_error(None, -32700, "parse error", {"reason": "PARSE_ERROR"}))
            return True
        with self.condition:
            self.messages.append(message)
            self.condition.notify_all()
        if isinstance(message, list):
            if len(message) > BATCH_LIMIT:
                connection.send(_error(None, -32600, "batch too large",
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

    def _answer(self, connection: _Connection, message: Dict[str, Any]) -> Optional[Dict]:
        if "method" not in message:  # A reply from the client.
            return None
        request_id = message.get("id")
        method = message["method"]
        params = message.get("params")
        if request_id is None:
            return None
        if method == "ping":
            return _result(request_id, "pong")
        if method == "echo":
            return _result(request_id, params)
        if method == "fail":
            return _error(request_id, params["code"], params["message"], params.get("data"))
        if method == "gather":
            with self.condition:
                self._held.append((request_id, params["value"]))
                if len(self._held) < params["n"]:
                    return None
                held, self._held = self._held, []
            for held_id, value in reversed(held):
                connection.send(_result(held_id, value))
            return None
        if method == "delay":
            timer = threading.Timer(params["seconds"], connection.send,
                                    args=(_result(request_id, params["value"]),))
            timer.daemon = True
            timer.start()
            return None
        if method == "push":
            connection.send({"jsonrpc": "2.0", "method": "events.event",
                             "params": params["params"]})
            return _result(request_id, True)
        if method == "ask":
            connection.send({"jsonrpc": "2.0", "id": "srv-1", "method": "client.hello"})
            return _result(request_id, True)
        if method == "hang":
            return None
        if method == "session.authenticate":
            return _result(request_id, True)
        if method == "events.unsubscribe":
            subscription_id = (params or {}).get("subscription")
            with self.condition:
                known = subscription_id in self.subscription_ids
                self.subscription_ids.discard(subscription_id)
            if known:
                return _result(request_id, True)
            return _error(request_id, 40404, "no such subscription",
                          {"reason": "SUBSCRIPTION_NOT_FOUND", "field": "subscription"})
        return _error(request_id, -32601, "method not found",
                      {"reason": "METHOD_NOT_FOUND"})


class OfflineTestCase(unittest.TestCase):
    """Base class: a fresh fake server and client for every test."""

    def setUp(self) -> None:
        self.server = FakeServer()
        self.addCleanup(self.server.stop)
        self.client = GuildClient(self.server.path, timeout=5.0)
        self.addCleanup(self.client.close)


class OfflineCallTests(OfflineTestCase):

    def test_ping_omits_params(self) -> None:
        self.assertEqual(self.client.call("ping"), "pong")
        message = self.server.messages[-1]
        self.assertEqual(message["jsonrpc"], "2.0")
        self.assertEqual(message["method"], "ping")
        self.assertIsInstance(message["id"], int)
        self.assertNotIn("params", message)

    def test_params_are_sent(self) -> None:
        params = {"a": 1, "b": [True, None], "c": {"d": "e"}}
        self.assertEqual(self.client.call("echo", params), params)
        self.assertEqual(self.client.call("echo", [1, 2]), [1, 2])

    def test_out_of_order_replies_reach_their_callers(self) -> None:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = [
                pool.submit(self.client.call, "gather", {"n": 3, "value": value})
                for value in ("first", "second", "third")
            ]
            results = [f.result(timeout=10) for f in futures]
        self.assertEqual(results, ["first", "second", "third"])

    def test_many_threads_share_one_client(self) -> None:
        def worker(worker_id: int) -> List[Any]:
            results = []
            for n in range(10):
                value = "{}-{}".format(worker_id, n)
                seconds = ((worker_id * 7 + n * 3) % 10) / 500.0
                results.append(self.client.call(
                    "delay", {"seconds": seconds, "value": value}))
            return results

        with ThreadPoolExecutor(max_workers=16) as pool:
            outcomes = list(pool.map(worker, range(16)))
        for worker_id, results in enumerate(outcomes):
            self.assertEqual(results, ["{}-{}".format(worker_id, n) for n in range(10)])
        ids = [m["id"] for m in self.server.messages]
        self.assertEqual(len(ids), len(set(ids)), "request ids must be unique")

    def test_error_maps_to_guild_error(self) -> None:
        data = {"reason": "INVALID_PARAMS", "field": "username"}
        with self.assertRaises(GuildError) as caught:
            self.client.call("fail", {"code": -32602, "message": "bad username", "data": data})
        error = caught.exception
        self.assertEqual(error.code, -32602)
        self.assertEqual(error.message, "bad username")
        self.assertEqual(error.data, data)
        self.assertEqual(error.reason, "INVALID_PARAMS")
        self.assertEqual(error.field, "username")
        self.assertIn("bad username", str(error))
        self.assertIn("-32602", str(error))
        self.assertIn("username", str(error))

    def test_error_without_data(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("fail", {"code": 40101, "message": "unauthorized"})
        self.assertEqual(caught.exception.code, 40101)
        self.assertIsNone(caught.exception.data)
        self.assertIsNone(caught.exception.reason)
        self.assertIsNone(caught.exception.field)

    def test_unknown_method(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("no.such.method")
        self.assertEqual(caught.exception.code, -32601)
        self.assertEqual(caught.exception.reason, "METHOD_NOT_FOUND")

    def test_timeout(self) -> None:
        started = time.monotonic()
        with self.assertRaises(TimeoutError):
            self.client.call("hang", timeout=0.2)
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertEqual(self.client.call("ping"), "pong")

    def test_request_from_daemon_is_refused(self) -> None:
        self.assertIs(self.client.call("ask"), True)
        self.assertTrue(self.server.wait_for(
            lambda ms: any(isinstance(m, dict) and m.get("id") == "srv-1" for m in ms)))
        reply = next(m for m in self.server.messages
                     if isinstance(m, dict) and m.get("id") == "srv-1")
        self.assertEqual(reply["error"]["code"], -32601)


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


class OfflineBatchTests(OfflineTestCase):

    def test_batch_results_keep_request_order(self) -> None:
        results = self.client.batch([
            ("echo", {"i": 0}),
            Call("fail", {"code": 40401, "message": "no such user",
                          "data": {"reason": "USER_NOT_FOUND"}}),
            Call("echo", {"i": 2}),
            Call("note", {"n": 1}, notification=True),
            ("ping", None),
        ])
        self.assertEqual(len(results), 5)
        self.assertEqual(results[0], {"i": 0})
        self.assertIsInstance(results[1], GuildError)
        self.assertEqual(results[1].code, 40401)
        self.assertEqual(results[1].reason, "USER_NOT_FOUND")
        self.assertEqual(results[2], {"i": 2})
        self.assertIsNone(results[3])
        self.assertEqual(results[4], "pong")

        sent = self.server.messages[-1]
        self.assertIsInstance(sent, list)
        self.assertNotIn("id", sent[3])
        self.assertNotIn("params", sent[4])

    def test_concurrent_batches(self) -> None:
        def run(n: int) -> List[Any]:
            return self.client.batch([("echo", {"n": n, "k": k}) for k in range(4)])

        with ThreadPoolExecutor(max_workers=8) as pool:
            outcomes = list(pool.map(run, range(32)))
        for n, results in enumerate(outcomes):
            self.assertEqual(results, [{"n": n, "k": k} for k in range(4)])

    def test_batch_of_notifications_returns_nones(self) -> None:
        results = self.client.batch([Call("a", notification=True),
                                     Call("b", {"x": 1}, notification=True)])
        self.assertEqual(results, [None, None])
        self.assertTrue(self.server.wait_for(lambda ms: len(ms) == 1))
        self.assertEqual(self.client.call("ping"), "pong")

    def test_batch_rejected_as_a_whole_raises(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.batch([("ping", None)] * (BATCH_LIMIT + 1))
        self.assertEqual(caught.exception.code, -32600)
        self.assertEqual(caught.exception.reason, "BATCH_TOO_LARGE")
        self.assertTrue(self.client.orphan_errors.empty())
        self.assertEqual(self.client.batch([("ping", None)]), ["pong"])

    def test_empty_batch_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.client.batch([])


class OfflineNotificationTests(OfflineTestCase):

    def test_pushed_notification_is_queued(self) -> None:
        self.assertIs(self.client.call("push", {"params": {"kind": "user.created"}}), True)
        notification = self.client.next_notification(timeout=5)
        self.assertEqual(notification,
                         {"method": "events.event", "params": {"kind": "user.created"}})
        with self.assertRaises(queue.Empty):
            self.client.next_notification(timeout=0.05)

    def test_notifications_generator_ends_on_disconnect(self) -> None:
        for n in range(3):
            self.client.call("push", {"params": {"n": n}})
        with self.assertRaises(ConnectionError):
            self.client.call("drop")
        received = list(self.client.notifications())
        self.assertEqual([item["params"]["n"] for item in received], [0, 1, 2])
        with self.assertRaises(ConnectionError):
            self.client.next_notification(timeout=1)


def _event_params(subscription: str, seq: int) -> Dict[str, Any]:
    """Params for the fake server's ``push`` method: one events.event."""
    return {"params": _event(subscription, seq)["params"]}


class OfflineSubscriptionTests(OfflineTestCase):

    def test_route_is_installed_before_events_in_the_same_write(self) -> None:
        # The reply and the first events arrive in one sendall, so the reader
        # handles them back to back; none may be missed or misrouted.
        def reply_and_events(connection: _Connection, request_id: Any,
                             params: Dict[str, Any], n: int) -> bool:
            sub = "s{}".format(n)
            connection.send_all([
                _result(request_id, {"subscription": sub, "seq": 100 * n}),
                _event(sub, 100 * n + 1),
                _event(sub, 100 * n + 2),
                _event("unknown", 7),
            ])
            return True

        self.server.on_subscribe = reply_and_events
        for n in range(1, 31):
            sub = self.client.subscribe(group_ids=["g1"], kinds=["memberInvited"], since=0)
            self.assertIsInstance(sub, Subscription)
            self.assertEqual(sub.id, "s{}".format(n))
            self.assertEqual(sub.seq, 100 * n)
            self.assertEqual(sub.last_seq, 0)
            first = sub.next_event(timeout=5)
            self.assertEqual(first, _event(sub.id, 100 * n + 1)["params"]["event"])
            self.assertEqual(sub.next_event(timeout=5)["seq"], 100 * n + 2)
            self.assertEqual(sub.last_seq, 100 * n + 2)
            with self.assertRaises(queue.Empty):
                sub.next_event(timeout=0.01)
            # The event of a subscription the client does not know is general.
            stray = self.client.next_notification(timeout=5)
            self.assertEqual(stray["method"], "events.event")
            self.assertEqual(stray["params"]["subscription"], "unknown")
        self.assertTrue(self.client.notification_queue.empty())
        self.assertEqual(self.server.subscribes[0]["params"],
                         {"groupIDs": ["g1"], "kinds": ["memberInvited"], "since": 0})

    def test_subscribe_params(self) -> None:
        self.client.subscribe()
        self.client.subscribe(all=True, since=5)
        self.assertEqual(self.server.subscribes[0]["params"], {})
        self.assertEqual(self.server.subscribes[1]["params"], {"since": 5, "all": True})
        with self.assertRaises(TypeError):
            self.client.subscribe(group_ids="g1")

    def test_last_seq_starts_at_head_without_since(self) -> None:
        def reply(connection: _Connection, request_id: Any,
                  params: Dict[str, Any], n: int) -> bool:
            connection.send(_result(request_id, {"subscription": "s1", "seq": 42}))
            return True

        self.server.on_subscribe = reply
        sub = self.client.subscribe()
        self.assertEqual((sub.seq, sub.last_seq), (42, 42))

    def test_events_of_two_subscriptions_are_kept_apart(self) -> None:
        first = self.client.subscribe()
        second = self.client.subscribe()
        for seq, sub in ((1, first), (2, second), (3, first)):
            self.client.call("push", _event_params(sub.id, seq))
        self.assertEqual([first.next_event(timeout=5)["seq"] for _ in range(2)], [1, 3])
        self.assertEqual(second.next_event(timeout=5)["seq"], 2)
        self.assertTrue(self.client.notification_queue.empty())

    def test_subscribe_error_raises_guild_error(self) -> None:
        def expired(connection: _Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            connection.send(_error(request_id, 41001, "cursor expired",
                                   {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self.server.on_subscribe = expired
        with self.assertRaises(GuildError) as caught:
            self.client.subscribe(since=3)
        self.assertEqual(caught.exception.code, guild_client.CURSOR_EXPIRED)
        self.assertEqual(caught.exception.data["oldestSeq"], 50)

    def test_ended_raises_subscription_ended(self) -> None:
        def lagging(connection: _Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 5}),
                                 _event("s1", 6), _event("s1", 7), _ended("s1", 7),
                                 _event("s1", 8)])  # A stray late event.
            return True

        self.server.on_subscribe = lagging
        sub = self.client.subscribe()
        self.assertEqual([sub.next_event(timeout=5)["seq"] for _ in range(2)], [6, 7])
        for _ in range(2):  # It keeps raising.
            with self.assertRaises(SubscriptionEnded) as caught:
                sub.next_event(timeout=5)
            self.assertEqual(caught.exception.reason, "LAGGED")
            self.assertEqual(caught.exception.last_seq, 7)
            self.assertEqual(caught.exception.subscription, "s1")
        self.assertFalse(sub.active)
        with self.assertRaises(SubscriptionEnded):
            list(sub)
        sub.unsubscribe()  # Already over: no request.
        self.assertEqual(self.client.call("ping"), "pong")
        self.assertFalse(any(isinstance(m, dict) and m.get("method") == "events.unsubscribe"
                             for m in self.server.messages))
        # The late event of the ended subscription was dropped.
        self.assertTrue(self.client.notification_queue.empty())

    def test_connection_drop_raises_connection_error(self) -> None:
        sub = self.client.subscribe()
        self.client.call("push", _event_params(sub.id, 1))
        waiting: "queue.Queue[BaseException]" = queue.Queue()
        second = self.client.subscribe()

        def wait() -> None:
            try:
                second.next_event(timeout=30)
            except BaseException as exc:  # Reported to the test thread.
                waiting.put(exc)

        threading.Thread(target=wait, daemon=True).start()
        with self.assertRaises(ConnectionError):
            self.client.call("drop")
        self.assertIsInstance(waiting.get(timeout=5), ConnectionError)
        self.assertEqual(sub.next_event(timeout=5)["seq"], 1)
        for _ in range(2):
            with self.assertRaises(ConnectionError):
                sub.next_event(timeout=5)
        self.assertFalse(sub.active)
        sub.unsubscribe()  # Nothing to do on a closed connection.
        with self.assertRaises(ConnectionError):
            self.client.subscribe()

    def test_close_ends_subscriptions(self) -> None:
        sub = self.client.subscribe()
        self.client.close()
        with self.assertRaises(ConnectionError):
            sub.next_event(timeout=5)

    def test_unsubscribe(self) -> None:
        sub = self.client.subscribe()
        self.client.call("push", _event_params(sub.id, 1))
        self.client.call("push", _event_params(sub.id, 2))
        sub.unsubscribe()
        self.assertEqual(self.server.messages[-1]["method"], "events.unsubscribe")
        self.assertEqual(self.server.messages[-1]["params"], {"subscription": "s1"})
        self.assertFalse(sub.active)
        # Events received before the reply are still there; then it stops.
        self.assertEqual([event["seq"] for event in sub], [1, 2])
        with self.assertRaises(SubscriptionEnded) as caught:
            sub.next_event(timeout=5)
        self.assertEqual(caught.exception.reason, guild_client.UNSUBSCRIBED)
        self.assertEqual(caught.exception.last_seq, 2)
        sub.unsubscribe()  # Twice is harmless.

    def test_unsubscribe_unknown_raises(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("events.unsubscribe", {"subscription": "nope"})
        self.assertEqual(caught.exception.code, guild_client.SUBSCRIPTION_NOT_FOUND)

    def test_context_manager_unsubscribes(self) -> None:
        with self.client.subscribe() as sub:
            self.assertTrue(sub.active)
        self.assertFalse(sub.active)
        self.assertEqual(self.server.messages[-1]["method"], "events.unsubscribe")

    def test_iteration(self) -> None:
        sub = self.client.subscribe()
        for seq in (1, 2, 3):
            self.client.call("push", _event_params(sub.id, seq))
        seen = []
        for event in sub:
            seen.append(event["seq"])
            if len(seen) == 3:
                break
        self.assertEqual(seen, [1, 2, 3])


class OfflineWatchEventsTests(OfflineTestCase):

    def _script(self, *steps: Any) -> None:
        """Answer the n-th events.subscribe with ``steps[n - 1]``."""
        def handler(connection: _Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            return steps[min(n, len(steps)) - 1](connection, request_id, params, n)

        self.server.on_subscribe = handler

    def _watch(self, *args: Any, **kwargs: Any) -> Any:
        """Start watch_events(); it is closed when the test ends."""
        events = watch_events(*args, **kwargs)

        def close() -> None:
            with contextlib.suppress(ValueError):  # Still running: a failed test.
                events.close()

        self.addCleanup(close)
        return events

    def _take(self, events: Any, count: int, timeout: float = 10.0) -> List[Any]:
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

    def test_resumes_after_drop_and_lagged_without_duplicates(self) -> None:
        def first(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 10}),
                                 _event("s1", 11), _event("s1", 12)])
            time.sleep(0.1)  # Let the client read them, then drop it.
            return False

        def second(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            # A replay that (wrongly) repeats 11 and 12 must be filtered.
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 14}),
                                 _event("s1", 11), _event("s1", 12), _event("s1", 13),
                                 _event("s1", 14), _ended("s1", 14)])
            return True

        def third(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s2", "seq": 15}),
                                 _event("s2", 14), _event("s2", 15)])
            return True

        self._script(first, second, third)
        events = self._watch(self.server.path, access_token="tok", kinds=["memberInvited"],
                             max_backoff=0.2, timeout=5)
        seqs = [event["seq"] for event in self._take(events, 5)]
        events.close()
        self.assertEqual(seqs, [11, 12, 13, 14, 15])
        params = [m["params"] for m in self.server.subscribes]
        self.assertEqual(params, [{"kinds": ["memberInvited"]},
                                  {"kinds": ["memberInvited"], "since": 12},
                                  {"kinds": ["memberInvited"], "since": 14}])
        # Authenticated on both connections, before subscribing.
        methods = [m.get("method") for m in self.server.messages if isinstance(m, dict)]
        self.assertEqual(methods, ["session.authenticate", "events.subscribe",
                                   "session.authenticate", "events.subscribe",
                                   "events.subscribe"])
        self.assertEqual(self.server.messages[0]["params"], {"accessToken": "tok"})
        # Closing the generator closed its connection.
        self.assertTrue(self.server.wait_for(lambda _: self.server.disconnects == 2))

    def test_resumes_from_head_when_nothing_was_yielded(self) -> None:
        def first(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(_result(request_id, {"subscription": "s1", "seq": 30}))
            return False

        def later(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 31}),
                                 _event("s1", 31)])
            return True

        self._script(first, later)
        events = self._watch(self.server.path, max_backoff=0.1, timeout=5)
        self.assertEqual(self._take(events, 1)[0]["seq"], 31)
        self.assertEqual([m["params"] for m in self.server.subscribes], [{}, {"since": 30}])

    def test_since_is_respected(self) -> None:
        def replay(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 9}),
                                 _event("s1", 4), _event("s1", 5), _event("s1", 6)])
            return True

        self._script(replay)
        events = self._watch(self.server.path, since=4, timeout=5)
        self.assertEqual([event["seq"] for event in self._take(events, 2)], [5, 6])
        self.assertEqual(self.server.subscribes[0]["params"], {"since": 4})

    def test_guild_error_stops_it(self) -> None:
        def expired(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(_error(request_id, 41001, "cursor expired",
                                   {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self._script(expired)
        with self.assertRaises(GuildError) as caught:
            self._take(self._watch(self.server.path, since=1, timeout=5), 1)
        self.assertEqual(caught.exception.reason, "CURSOR_EXPIRED")

    def test_shutting_down_is_retried(self) -> None:
        def stopping(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(_error(request_id, -32003, "shutting down",
                                   {"reason": "SHUTTING_DOWN"}))
            return True

        def ready(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 0}),
                                 _event("s1", 1)])
            return True

        self._script(stopping, ready)
        events = self._watch(self.server.path, max_backoff=0.1, timeout=5)
        self.assertEqual(self._take(events, 1)[0]["seq"], 1)

    def test_waits_for_the_daemon_to_appear(self) -> None:
        path = os.path.join(self.server.directory, "later.sock")

        def reply(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 0}),
                                 _event("s1", 1)])
            return True

        self.server.on_subscribe = reply
        # The socket appears only after several failed connection attempts.
        timer = threading.Timer(0.3, os.symlink, args=(self.server.path, path))
        timer.start()
        self.addCleanup(timer.cancel)
        started = time.monotonic()
        events = self._watch(path, max_backoff=0.05, timeout=5)
        self.assertEqual(self._take(events, 1)[0]["seq"], 1)
        self.assertGreaterEqual(time.monotonic() - started, 0.25)

    def test_cli_watch_prints_json_lines(self) -> None:
        def first(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([_result(request_id, {"subscription": "s1", "seq": 9}),
                                 _event("s1", 4), _event("s1", 5, kind="groupCreated")])
            time.sleep(0.1)
            return False

        def expired(connection: _Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(_error(request_id, 41001, "cursor expired",
                                   {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self._script(first, expired)
        out, err = io.StringIO(), io.StringIO()
        argv = ["--socket", self.server.path, "--watch", "--since", "3", "--token", "tok",
                "--kind", "groupCreated", "--kind", "memberInvited"]
        outcome: "queue.Queue[Any]" = queue.Queue()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            threading.Thread(target=lambda: outcome.put(guild_client.main(argv)),
                             daemon=True).start()
            status = outcome.get(timeout=10)
        self.assertEqual(status, 1)
        lines = out.getvalue().splitlines()
        self.assertEqual([json.loads(line)["seq"] for line in lines], [4, 5])
        self.assertEqual(json.loads(lines[1])["kind"], "groupCreated")
        self.assertIn("41001", err.getvalue())
        self.assertEqual([m["params"] for m in self.server.subscribes],
                         [{"kinds": ["groupCreated", "memberInvited"], "since": 3},
                          {"kinds": ["groupCreated", "memberInvited"], "since": 5}])

    def test_cli_watch_rejects_a_method(self) -> None:
        with contextlib.redirect_stderr(io.StringIO()):
            with self.assertRaises(SystemExit):
                guild_client.main(["--watch", "system.ping"])
            with self.assertRaises(SystemExit):
                guild_client.main(["--since", "3", "system.ping"])


class OfflineConnectionTests(OfflineTestCase):

    def _start_hanging_call(self) -> "queue.Queue[BaseException]":
        outcome: "queue.Queue[BaseException]" = queue.Queue()

        def hang() -> None:
            try:
                self.client.call("hang", timeout=30)
            except BaseException as exc:  # Reported to the test thread.
                outcome.put(exc)

        threading.Thread(target=hang, daemon=True).start()
        self.assertTrue(self.server.wait_for(
            lambda ms: any(isinstance(m, dict) and m.get("method") == "hang" for m in ms)))
        return outcome

    def test_connection_drop_fails_pending_calls(self) -> None:
        outcome = self._start_hanging_call()
        started = time.monotonic()
        with self.assertRaises(ConnectionError):
            self.client.call("drop")
        self.assertIsInstance(outcome.get(timeout=5), ConnectionError)
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertTrue(self.client.closed)
        with self.assertRaises(ConnectionError):
            self.client.call("ping")
        with self.assertRaises(ConnectionError):
            self.client.batch([("ping", None)])
        with self.assertRaises(ConnectionError):
            self.client.notify("note")

    def test_close_fails_pending_calls(self) -> None:
        outcome = self._start_hanging_call()
        self.client.close()
        self.assertIsInstance(outcome.get(timeout=5), ConnectionError)
        with self.assertRaises(ConnectionError):
            self.client.call("ping")
        self.client.close()  # Closing twice is harmless.

    def test_context_manager_closes(self) -> None:
        with GuildClient(self.server.path) as client:
            self.assertEqual(client.call("ping"), "pong")
        self.assertTrue(client.closed)
        with self.assertRaises(ConnectionError):
            client.call("ping")

    def test_connect_failure_raises_oserror(self) -> None:
        with self.assertRaises(OSError):
            GuildClient(os.path.join(self.server.directory, "missing.sock"))


class OfflineCliTests(OfflineTestCase):

    def test_cli_prints_result(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = guild_client.main(["--socket", self.server.path, "echo", '{"a": 1}'])
        self.assertEqual(status, 0)
        self.assertEqual(json.loads(out.getvalue()), {"a": 1})

    def test_cli_reports_errors(self) -> None:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = guild_client.main(["--socket", self.server.path, "no.such.method"])
        self.assertEqual(status, 1)
        self.assertIn("-32601", err.getvalue())


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


LIVE_SOCKET = os.environ.get("GUILD_SOCKET")


@unittest.skipUnless(LIVE_SOCKET, "set GUILD_SOCKET to run tests against a live guildd")
class LiveDaemonTests(unittest.TestCase):
    """Tests against a running guildd (``GUILD_SOCKET`` names its socket)."""

    PASSWORD = "correct horse battery staple"

    def connect(self) -> GuildClient:
        client = GuildClient(LIVE_SOCKET, timeout=10.0)
        self.addCleanup(client.close)
        return client

    def delete_user_later(self, access_token: str) -> None:
        """Delete the user owning ``access_token`` when the test ends."""
        def delete() -> None:
            with contextlib.suppress(GuildError, OSError, TimeoutError):
                with GuildClient(LIVE_SOCKET, timeout=10.0) as client:
                    client.call("session.authenticate", {"accessToken": access_token})
                    client.call("user.delete")
        self.addCleanup(delete)

    def setUp(self) -> None:
        self.client = self.connect()

    def test_ping(self) -> None:
        self.assertEqual(self.client.call("system.ping"), "pong")

    def test_discover_lists_methods(self) -> None:
        document = self.client.call("rpc.discover")
        self.assertIsInstance(document["methods"], list)
        names = [m.get("name") for m in document["methods"]]
        self.assertIn("system.ping", names)

    def test_unknown_method(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("no.such.method")
        self.assertEqual(caught.exception.code, -32601)

    def test_invalid_username(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("user.register", {"username": "ab", "password": self.PASSWORD})
        self.assertEqual(caught.exception.code, -32602)
        self.assertEqual(caught.exception.field, "username")

    def test_register_login_whoami_and_duplicate(self) -> None:
        username = "py-" + uuid.uuid4().hex[:12]
        params = {"username": username, "password": self.PASSWORD}
        registered = self.client.call("user.register", params)
        self.delete_user_later(registered["accessToken"])
        user_id = registered["user"]["userID"]
        self.assertEqual(registered["user"]["username"], username)
        self.assertIs(registered["user"]["isPseudo"], False)
        self.assertTrue(registered["refreshToken"])

        other = self.connect()
        login = other.call("user.login", params)
        self.assertEqual(login["user"]["userID"], user_id)
        other.call("session.authenticate", {"accessToken": login["accessToken"]})
        whoami = other.call("session.whoami")
        self.assertEqual(whoami["user"]["userID"], user_id)

        with self.assertRaises(GuildError) as caught:
            self.connect().call("user.register", params)
        self.assertEqual(caught.exception.code, 40901)
        self.assertEqual(caught.exception.reason, "USER_ALREADY_EXISTS")

    def test_register_pseudo(self) -> None:
        registered = self.client.call("user.registerPseudo", {"displayName": "Py Test"})
        self.delete_user_later(registered["accessToken"])
        self.assertIs(registered["user"]["isPseudo"], True)
        self.client.call("session.authenticate", {"accessToken": registered["accessToken"]})
        whoami = self.client.call("session.whoami")
        self.assertIs(whoami["user"]["isPseudo"], True)
        self.assertEqual(whoami["user"]["userID"], registered["user"]["userID"])

    def test_batch(self) -> None:
        results = self.client.batch([
            ("system.ping", None), ("no.such.method", None), ("system.ping", None)])
        self.assertEqual(results[0], "pong")
        self.assertIsInstance(results[1], GuildError)
        self.assertEqual(results[1].code, -32601)
        self.assertEqual(results[2], "pong")

    def test_parse_error_keeps_connection(self) -> None:
        self.client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":\n')
        orphan = self.client.orphan_errors.get(timeout=5)
        self.assertIn("id", orphan)
        self.assertIsNone(orphan["id"])
        self.assertEqual(orphan["error"]["code"], -32700)
        self.assertEqual(self.client.call("system.ping"), "pong")


@unittest.skipUnless(LIVE_SOCKET, "set GUILD_SOCKET to run tests against a live guildd")
class LiveEventTests(unittest.TestCase):
    """Event subscriptions against a running guildd."""

    def connect(self) -> GuildClient:
        client = GuildClient(LIVE_SOCKET, timeout=10.0)
        self.addCleanup(client.close)
        return client

    def pseudo_user(self, name: str) -> "tuple[GuildClient, str, str]":
        """A connection bound to a new pseudo user: (client, userID, token)."""
        client = self.connect()
        registered = client.call("user.registerPseudo", {"displayName": name})
        token = registered["accessToken"]

        def delete() -> None:
            with contextlib.suppress(GuildError, OSError, TimeoutError):
                with GuildClient(LIVE_SOCKET, timeout=10.0) as other:
                    other.call("session.authenticate", {"accessToken": token})
                    other.call("user.delete")
        self.addCleanup(delete)
        return client, registered["user"]["userID"], token

    def wait_for_event(self, sub: Subscription, kind: str, group_id: str,
                       timeout: float = 10.0) -> Dict[str, Any]:
        """The first event of ``kind`` for ``group_id`` (others are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.fail("no {} event for group {}".format(kind, group_id))
            try:
                event = sub.next_event(timeout=remaining)
            except queue.Empty:
                continue
            if event["kind"] == kind and event["groupID"] == group_id:
                return event

    def create_group(self, owner: GuildClient, members: List[str]) -> str:
        created = owner.call("group.create", {"name": "py-" + uuid.uuid4().hex[:8],
                                               "members": members})
        self.assertEqual(created["notFoundUsers"], [])
        group_id = created["group"]["groupID"]

        def delete() -> None:
            with contextlib.suppress(GuildError, OSError, TimeoutError):
                owner.call("group.delete", {"groupID": group_id})
        self.addCleanup(delete)
        return group_id

    def test_members_see_events_and_others_do_not(self) -> None:
        alice, alice_id, _ = self.pseudo_user("Alice")
        bob, bob_id, _ = self.pseudo_user("Bob")
        carol, _, _ = self.pseudo_user("Carol")

        sub_a = alice.subscribe()
        self.assertIsInstance(sub_a.seq, int)
        sub_c = carol.subscribe()
        group_id = self.create_group(alice, [bob_id])

        created = self.wait_for_event(sub_a, "groupCreated", group_id)
        self.assertGreater(created["seq"], sub_a.seq)
        self.assertEqual(created["actor"], alice_id)
        self.assertIsInstance(created["time"], int)

        # Bob was a member when the group was created: a replay shows it.
        sub_b = bob.subscribe(since=0)
        self.assertEqual(self.wait_for_event(sub_b, "groupCreated", group_id), created)

        new_name = "renamed-" + uuid.uuid4().hex[:8]
        alice.call("group.rename", {"groupID": group_id, "name": new_name})
        changed = self.wait_for_event(sub_b, "groupInfoChanged", group_id)
        self.assertGreater(changed["seq"], created["seq"])
        self.assertEqual(changed["changes"]["name"], new_name)
        self.assertEqual(self.wait_for_event(sub_a, "groupInfoChanged", group_id), changed)

        # Carol is no member: nothing of this group reached her.
        time.sleep(0.3)
        while True:
            try:
                event = sub_c.next_event(timeout=0.2)
            except queue.Empty:
                break
            self.assertNotEqual(event["groupID"], group_id)

        # Subscription events never go to the general notification queue.
        for client in (alice, bob, carol):
            self.assertTrue(client.notification_queue.empty())

    def test_resubscribe_replays_and_filters(self) -> None:
        alice, _, _ = self.pseudo_user("Alice")
        _, bob_id, _ = self.pseudo_user("Bob")
        sub = alice.subscribe()
        group_id = self.create_group(alice, [bob_id])
        created = self.wait_for_event(sub, "groupCreated", group_id)

        replay = alice.subscribe(since=created["seq"] - 1)
        self.assertNotEqual(replay.id, sub.id)
        self.assertEqual(replay.next_event(timeout=10), created)
        self.assertEqual(replay.last_seq, created["seq"])

        only = alice.subscribe(group_ids=[group_id], kinds=["groupInfoChanged"],
                               since=created["seq"] - 1)
        alice.call("group.rename", {"groupID": group_id, "name": "other name"})
        changed = only.next_event(timeout=10)
        self.assertEqual((changed["kind"], changed["groupID"]), ("groupInfoChanged", group_id))

    def test_unsubscribe(self) -> None:
        alice, _, _ = self.pseudo_user("Alice")
        sub = alice.subscribe()
        sub.unsubscribe()
        self.assertFalse(sub.active)
        with self.assertRaises(SubscriptionEnded):
            sub.next_event(timeout=1)
        for subscription_id in (sub.id, "no-such-subscription"):
            with self.assertRaises(GuildError) as caught:
                alice.call("events.unsubscribe", {"subscription": subscription_id})
            self.assertEqual(caught.exception.code, 40404)
            self.assertEqual(caught.exception.reason, "SUBSCRIPTION_NOT_FOUND")

    def test_subscribe_needs_a_session(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.connect().subscribe()
        self.assertEqual(caught.exception.code, 40101)

    def test_unknown_kind_and_future_since_are_refused(self) -> None:
        alice, _, _ = self.pseudo_user("Alice")
        with self.assertRaises(GuildError) as caught:
            alice.subscribe(kinds=["noSuchKind"])
        self.assertEqual(caught.exception.code, -32602)
        head = alice.subscribe().seq
        with self.assertRaises(GuildError) as caught:
            alice.subscribe(since=head + 1000000)
        self.assertEqual(caught.exception.code, -32602)

    def test_watch_events(self) -> None:
        alice, _, token = self.pseudo_user("Alice")
        _, bob_id, _ = self.pseudo_user("Bob")
        sub = alice.subscribe()
        group_id = self.create_group(alice, [bob_id])
        created = self.wait_for_event(sub, "groupCreated", group_id)
        alice.call("group.rename", {"groupID": group_id, "name": "watched"})
        changed = self.wait_for_event(sub, "groupInfoChanged", group_id)

        events = watch_events(LIVE_SOCKET, access_token=token, group_ids=[group_id],
                              since=created["seq"] - 1, timeout=10.0)
        try:
            self.assertEqual(next(events), created)
            self.assertEqual(next(events), changed)
        finally:
            events.close()

        with self.assertRaises(GuildError) as caught:
            next(watch_events(LIVE_SOCKET, access_token="not-a-token", timeout=10.0))
        self.assertEqual(caught.exception.code, 40103)


if __name__ == "__main__":
    unittest.main()
