"""Python client for the Guild daemon (``guildd``).

``guildd`` speaks JSON-RPC 2.0 over a Unix domain stream socket.  Every
message is one compact JSON value (an object or a batch array) encoded as
UTF-8 and terminated by a single ``\\n``.

This module has no dependencies outside the standard library and works on
Python 3.9 and later.  Copy it next to your code and use it like this::

    from guild_client import GuildClient

    with GuildClient() as client:
        print(client.call("system.ping"))          # -> "pong"

It can also be run as a small command line tool::

    python3 guild_client.py system.status
    python3 guild_client.py user.registerPseudo '{"displayName": "Bob"}'
    python3 guild_client.py --watch --token "$TOKEN" --since 0

Event subscriptions (``events.subscribe``) are read through a
:class:`Subscription`; :func:`watch_events` wraps one in a generator that
survives disconnects, daemon restarts and ``LAGGED`` ends::

    from guild_client import watch_events

    for event in watch_events(access_token=token, since=0):
        print(event["seq"], event["kind"], event["groupID"])
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import logging
import os
import queue
import socket
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import (
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
)

__all__ = [
    "Call",
    "GuildClient",
    "GuildError",
    "Subscription",
    "SubscriptionEnded",
    "default_socket_path",
    "main",
    "watch_events",
]

__version__ = "0.1.0"

log = logging.getLogger(__name__)

# Standard JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Guild transport-limit codes: the daemon did not run the request.
TOO_MANY_REQUESTS = -32001
TOO_MANY_CONNECTIONS = -32002
SHUTTING_DOWN = -32003

# Guild application error codes.
UNAUTHORIZED = 40101
INVALID_CREDENTIALS = 40102
INVALID_TOKEN = 40103
INVALID_REFRESH_TOKEN = 40104
PERMISSION_DENIED = 40301
USER_NOT_FOUND = 40401
SUBSCRIPTION_NOT_FOUND = 40404
USER_ALREADY_EXISTS = 40901
CURSOR_EXPIRED = 41001
TOO_MANY_SUBSCRIPTIONS = 42901
# The daemon's disk is full: the write was not stored; reads still work.
STORAGE_FULL = 50701

_RECV_SIZE = 65536
# Reasons of a null-id error that refuses a whole batch.
_BATCH_REJECTION_REASONS = frozenset({"BATCH_TOO_LARGE", "EMPTY_BATCH"})
_CLOSED = object()  # Sentinel put on the notification queue at disconnect.

EVENT_METHOD = "events.event"
ENDED_METHOD = "events.ended"
#: :attr:`SubscriptionEnded.reason` after :meth:`Subscription.unsubscribe`
#: (set by the client; the daemon sends no notification then).
UNSUBSCRIBED = "UNSUBSCRIBED"
# Errors after which watch_events() reconnects instead of giving up: the
# daemon did not run the request because it is stopping or overloaded.
_RETRYABLE_CODES = frozenset({TOO_MANY_REQUESTS, TOO_MANY_CONNECTIONS, SHUTTING_DOWN})

Params = Optional[Union[Dict[str, Any], List[Any]]]


def default_socket_path() -> str:
    """Return the socket path the daemon listens on by default.

    In order of preference: ``$GUILD_SOCKET``;
    ``$XDG_RUNTIME_DIR/guild/guild.sock``; ``/run/guild/guild.sock`` when
    running as root; otherwise ``/run/user/<uid>/guild/guild.sock``.
    """
    explicit = os.environ.get("GUILD_SOCKET")
    if explicit:
        return explicit
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
    if runtime_dir:
        return os.path.join(runtime_dir, "guild", "guild.sock")
    uid = os.getuid()
    if uid == 0:
        return "/run/guild/guild.sock"
    return "/run/user/{}/guild/guild.sock".format(uid)


class GuildError(Exception):
    """An error object returned by the daemon.

    Attributes:
        code: The JSON-RPC error code (e.g. ``-32602`` or ``40901``).
        message: The human readable error message.
        data: The ``data`` member of the error, or ``None``.
        reason: ``data["reason"]`` (e.g. ``"USER_ALREADY_EXISTS"``) or None.
        field: ``data["field"]`` (the offending parameter) or None.
    """

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        details = data if isinstance(data, dict) else {}
        self.reason: Optional[str] = details.get("reason")
        self.field: Optional[str] = details.get("field")

    @classmethod
    def from_error_object(cls, error: Any) -> "GuildError":
        """Build a GuildError from the ``error`` member of a response."""
        if not isinstance(error, dict):
            return cls(INTERNAL_ERROR, "malformed error object: {!r}".format(error))
        code = error.get("code")
        if not isinstance(code, int):
            code = INTERNAL_ERROR
        return cls(code, str(error.get("message", "")), error.get("data"))

    def __str__(self) -> str:
        text = "{} (code {}".format(self.message, self.code)
        if self.reason:
            text += ", reason {}".format(self.reason)
        if self.field:
            text += ", field {!r}".format(self.field)
        return text + ")"

    def __repr__(self) -> str:
        return "GuildError(code={!r}, message={!r}, data={!r})".format(
            self.code, self.message, self.data
        )


class Call(NamedTuple):
    """One entry of a :meth:`GuildClient.batch` request.

    A notification entry is sent without an id; the daemon does not answer
    it and its slot in the batch result is ``None``.
    """

    method: str
    params: Params = None
    notification: bool = False


class _BatchRejected(Exception):
    """Internal: the daemon answered a whole batch with one error object."""

    def __init__(self, error: GuildError) -> None:
        super().__init__(error)
        self.error = error


class SubscriptionEnded(Exception):
    """A subscription is over; no more events will arrive on it.

    Raised by :meth:`Subscription.next_event` once every event received
    before the end has been returned.

    Attributes:
        reason: ``"LAGGED"`` (the daemon ended it because the reader fell
            too far behind) or another reason sent in ``events.ended``; or
            :data:`UNSUBSCRIBED` after :meth:`Subscription.unsubscribe`.
        last_seq: The last sequence number sent on the subscription (the
            daemon's ``lastSeq``).  Subscribe again with ``since=last_seq``
            to lose nothing.
        subscription: The subscription id.
    """

    def __init__(self, reason: str, last_seq: Optional[int],
                 subscription: Optional[str] = None) -> None:
        super().__init__(reason, last_seq)
        self.reason = reason
        self.last_seq = last_seq
        self.subscription = subscription

    def __str__(self) -> str:
        return "subscription {} ended: {} (last seq {})".format(
            self.subscription, self.reason, self.last_seq)


class Subscription:
    """One ``events.subscribe`` on a :class:`GuildClient`.

    Created by :meth:`GuildClient.subscribe`.  The events of this
    subscription are queued here, not on the client's general notification
    queue, in the order the daemon sent them.

    Attributes:
        id: The subscription id given by the daemon (e.g. ``"s1"``).
        seq: The head of the event log when the subscription started.
        last_seq: The ``seq`` of the last event returned by
            :meth:`next_event`; before the first one, where the subscription
            started (``since`` when given, else :attr:`seq`).  Subscribing
            again with ``since=last_seq`` resumes without loss.
        params: The ``events.subscribe`` params that were sent.
    """

    def __init__(self, client: "GuildClient", params: Dict[str, Any]) -> None:
        self.client = client
        self.params = params
        self.id: str = ""
        self.seq: int = 0
        self.last_seq: Optional[int] = None
        self._queue: "queue.Queue[Tuple[Any, ...]]" = queue.Queue()
        self._lock = threading.Lock()
        self._finished = False

    @property
    def active(self) -> bool:
        """False once the subscription ended, was unsubscribed or lost."""
        return not self._finished

    def next_event(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Return the next event (the ``event`` member of ``events.event``).

        Args:
            timeout: Seconds to wait; ``None`` waits until one arrives.

        Raises:
            queue.Empty: No event arrived within ``timeout``.
            SubscriptionEnded: The daemon ended the subscription
                (``events.ended``) or it was unsubscribed, and every event
                received before that has been returned.
            ConnectionError: The connection was closed or lost, and every
                event received before that has been returned.
        """
        item = self._queue.get(timeout=timeout)
        if item[0] == "event":
            params = item[1]
            event = params.get("event")
            seq = params.get("seq")
            if not isinstance(seq, int) and isinstance(event, dict):
                seq = event.get("seq")
            if isinstance(seq, int):
                self.last_seq = seq
            return event
        # A final marker: leave it in place so that later calls fail too.
        self._queue.put(item)
        if item[0] == "closed":
            raise ConnectionError(item[1])
        _, reason, last_seq = item
        raise SubscriptionEnded(reason, self.last_seq if last_seq is None else last_seq,
                                self.id)

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        """Yield events as they arrive.

        Stops after :meth:`unsubscribe`; raises :class:`SubscriptionEnded`
        when the daemon ends the subscription and :class:`ConnectionError`
        when the connection is lost.
        """
        while True:
            try:
                yield self.next_event()
            except SubscriptionEnded as ended:
                if ended.reason == UNSUBSCRIBED:
                    return
                raise

    def unsubscribe(self, timeout: Optional[float] = None) -> None:
        """End the subscription (``events.unsubscribe``).

        Events already received can still be read; after them
        :meth:`next_event` raises :class:`SubscriptionEnded` with reason
        :data:`UNSUBSCRIBED`.  Does nothing if the subscription is already
        over (ended by the daemon, or its connection closed).

        Raises:
            GuildError: The daemon refused (e.g. ``SUBSCRIPTION_NOT_FOUND``).
            TimeoutError, ConnectionError: As for :meth:`GuildClient.call`.
        """
        if self._finished:
            return
        try:
            self.client._unsubscribe(self, timeout)
        except (GuildError, ConnectionError):
            # The daemon's events.ended (or the disconnect) is handled before
            # the reply, so a subscription that was already over is finished.
            if not self._finished:
                raise

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        with contextlib.suppress(OSError, GuildError):
            self.unsubscribe()

    def __repr__(self) -> str:
        state = "active" if self.active else "finished"
        return "<Subscription {} seq={} last_seq={} {}>".format(
            self.id or "?", self.seq, self.last_seq, state)

    # Called by the client (mostly on its reader thread).

    def _start(self, result: Dict[str, Any]) -> None:
        self.id = result["subscription"]
        seq = result.get("seq")
        self.seq = seq if isinstance(seq, int) else 0
        since = self.params.get("since")
        self.last_seq = since if since is not None else self.seq

    def _deliver(self, params: Dict[str, Any]) -> None:
        self._queue.put(("event", params))

    def _finish(self, item: Tuple[Any, ...]) -> None:
        """Queue the final marker (only the first one counts)."""
        with self._lock:
            if self._finished:
                return
            self._finished = True
        self._queue.put(item)


class GuildClient:
    """A thread-safe connection to ``guildd``.

    A background reader thread receives every message from the daemon.
    Responses are matched to their request by id, so any number of threads
    may use one client at the same time and replies may arrive in any order.
    Notifications pushed by the daemon are queued and can be read with
    :meth:`next_notification` or :meth:`notifications`, except the events
    of a :meth:`subscribe` subscription, which go to that
    :class:`Subscription`.  Responses that
    carry a null id and belong to no batch (for instance the answer to an
    unparsable message written with :meth:`send_raw`) are put, as raw
    response dicts, on :attr:`orphan_errors`.

    When the connection is lost, every pending call fails with
    :class:`ConnectionError`, as do later calls.
    """

    def __init__(self, path: Optional[str] = None, timeout: Optional[float] = 30.0) -> None:
        """Connect to the daemon.

        Args:
            path: Socket path; defaults to :func:`default_socket_path`.
            timeout: Default number of seconds to wait for a reply (and for
                the connection itself); ``None`` waits forever.  Each call
                may pass its own timeout.

        Raises:
            OSError: The socket could not be connected.
        """
        self.path = path or default_socket_path()
        self.timeout = timeout
        #: Notifications pushed by the daemon, as ``{"method", "params"}``.
        self.notification_queue: "queue.Queue[Any]" = queue.Queue()
        #: Responses with a null id that could not be matched to a request.
        self.orphan_errors: "queue.Queue[Dict[str, Any]]" = queue.Queue()

        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._pending: Dict[int, Future] = {}
        # Run by the reader thread on a reply before its call completes.
        self._reply_hooks: Dict[int, Callable[[Dict[str, Any]], None]] = {}
        # Live subscriptions by id: where their notifications go.
        self._subscriptions: Dict[str, Subscription] = {}
        # Ids of subscriptions that are over: stray late events are dropped.
        self._finished_subscriptions: Set[str] = set()
        # Batches awaiting their reply, oldest first: key -> request ids.
        self._batches: "OrderedDict[int, Tuple[int, ...]]" = OrderedDict()
        self._closed = False
        self._close_reason = "connection closed"
        self._marker_put = False

        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(timeout)
            sock.connect(self.path)
            sock.settimeout(None)
        except BaseException:
            sock.close()
            raise
        self._sock = sock
        self._reader = threading.Thread(
            target=self._read_loop, name="guild-client-reader", daemon=True
        )
        self._reader.start()

    # ------------------------------------------------------------------
    # Public API

    @property
    def closed(self) -> bool:
        """True once the connection has been closed or lost."""
        return self._closed

    def call(self, method: str, params: Params = None,
             timeout: Optional[float] = None) -> Any:
        """Call ``method`` and return its result.

        Args:
            method: The method name, e.g. ``"system.ping"``.
            params: A dict (or list) of parameters; omitted when ``None``.
            timeout: Seconds to wait for the reply; ``None`` uses the
                client's timeout.

        Raises:
            GuildError: The daemon answered with an error.
            TimeoutError: No reply arrived in time.
            ConnectionError: The connection is closed or was lost.
        """
        return self._call(method, params, timeout)

    def subscribe(
        self,
        group_ids: Optional[Sequence[str]] = None,
        kinds: Optional[Sequence[str]] = None,
        since: Optional[int] = None,
        all: bool = False,  # noqa: A002 - mirrors the daemon's parameter
        timeout: Optional[float] = None,
    ) -> Subscription:
        """Subscribe to group events (``events.subscribe``).

        The connection needs a session first (``session.authenticate``,
        ``user.login``, ...).  Events then arrive on the returned
        :class:`Subscription`.  The route for them is installed by the
        reader thread as it reads the reply, before it reads anything that
        follows, so no event of the subscription can be missed or land on
        the general notification queue.

        Args:
            group_ids: Only events of these groups.
            kinds: Only these event kinds (e.g. ``["groupCreated"]``).
            since: Replay the events after this sequence number first.
            all: Watch every group (admins only).
            timeout: Seconds to wait for the reply, as in :meth:`call`.

        Raises:
            GuildError: The daemon refused, e.g. ``CURSOR_EXPIRED`` (41001,
                ``data["oldestSeq"]``), ``UNAUTHORIZED`` or
                ``TOO_MANY_SUBSCRIPTIONS``.
            TimeoutError, ConnectionError: As for :meth:`call`.  After a
                timeout, events of a subscription the daemon created anyway
                go to the general notification queue.
        """
        params: Dict[str, Any] = {}
        if group_ids is not None:
            params["groupIDs"] = _string_list(group_ids, "group_ids")
        if kinds is not None:
            params["kinds"] = _string_list(kinds, "kinds")
        if since is not None:
            params["since"] = since
        if all:
            params["all"] = True
        subscription = Subscription(self, params)

        def install(reply: Dict[str, Any]) -> None:
            result = reply.get("result")
            if "error" in reply or not isinstance(result, dict):
                return
            if not isinstance(result.get("subscription"), str):
                return
            subscription._start(result)
            with self._lock:
                closed = self._closed
                if not closed:
                    self._subscriptions[subscription.id] = subscription
            if closed:
                subscription._finish(("closed", self._close_reason))

        result = self._call("events.subscribe", params, timeout, install)
        if not subscription.id:
            raise GuildError(INTERNAL_ERROR,
                             "malformed events.subscribe result: {!r}".format(result))
        return subscription

    def notify(self, method: str, params: Params = None) -> None:
        """Send a notification (a request without id; it gets no reply).

        Raises:
            ConnectionError: The connection is closed or was lost.
        """
        self._check_open()
        self._send_bytes(self._encode(_request(method, params)))

    def batch(
        self,
        calls: Sequence[Union[Call, Tuple[Any, ...]]],
        timeout: Optional[float] = None,
    ) -> List[Any]:
        """Send several calls as one JSON-RPC batch.

        Args:
            calls: ``(method, params)`` tuples or :class:`Call` objects.
            timeout: Seconds to wait for the whole reply, as in :meth:`call`.

        Returns:
            A list in the same order as ``calls``.  Each element is the
            result, or a :class:`GuildError` instance (not raised) when that
            call failed, or ``None`` for a notification.

        Raises:
            GuildError: The daemon rejected the batch as a whole (reason
                ``BATCH_TOO_LARGE``).  Such an error carries a null id; it
                is matched to the oldest batch still waiting for its reply.
            TimeoutError: The reply did not arrive in time.
            ConnectionError: The connection is closed or was lost.
            ValueError: ``calls`` is empty.
        """
        entries = [c if isinstance(c, Call) else Call(*c) for c in calls]
        if not entries:
            raise ValueError("a batch needs at least one call")
        ids: List[Optional[int]] = [
            None if entry.notification else self._next_id() for entry in entries
        ]
        data = self._encode(
            [_request(e.method, e.params, i) for e, i in zip(entries, ids)]
        )
        request_ids = [i for i in ids if i is not None]
        if not request_ids:
            self._check_open()
            self._send_bytes(data)
            return [None] * len(entries)

        futures = dict(zip(request_ids, self._register(request_ids, batch=True)))
        deadline = None
        wait = self._timeout(timeout)
        if wait is not None:
            deadline = time.monotonic() + wait
        try:
            self._send_bytes(data)
            results: List[Any] = []
            for request_id in ids:
                if request_id is None:
                    results.append(None)
                    continue
                remaining = None
                if deadline is not None:
                    remaining = max(0.0, deadline - time.monotonic())
                try:
                    results.append(futures[request_id].result(remaining))
                except GuildError as error:
                    results.append(error)
            return results
        except _BatchRejected as rejected:
            raise rejected.error from None
        except FutureTimeoutError:
            raise TimeoutError("no reply to batch within {} s".format(wait)) from None
        finally:
            with self._lock:
                self._batches.pop(request_ids[0], None)
                for request_id in request_ids:
                    self._pending.pop(request_id, None)

    def next_notification(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Return the next notification pushed by the daemon.

        The result is a dict ``{"method": ..., "params": ...}``.

        Args:
            timeout: Seconds to wait; ``None`` waits until one arrives.

        Raises:
            queue.Empty: Nothing arrived within ``timeout``.
            ConnectionError: The connection is closed and every queued
                notification has been read.
        """
        item = self.notification_queue.get(timeout=timeout)
        if item is _CLOSED:
            # Leave the marker in place so that later calls fail as well.
            self.notification_queue.put(_CLOSED)
            raise ConnectionError(self._close_reason)
        return item

    def notifications(self) -> Iterator[Dict[str, Any]]:
        """Yield notifications as they arrive, until the connection closes."""
        while True:
            try:
                yield self.next_notification()
            except ConnectionError:
                return

    def send_raw(self, data: bytes) -> None:
        """Write ``data`` to the socket exactly as given (for tests).

        Nothing is added, not even the terminating newline.  Any response
        with a null id that this provokes lands on :attr:`orphan_errors`.
        """
        self._check_open()
        self._send_bytes(bytes(data))

    def close(self) -> None:
        """Close the connection; pending calls fail with ConnectionError."""
        with self._lock:
            if not self._closed:
                self._close_reason = "connection closed by client"
                self._closed = True
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        if self._reader is not threading.current_thread():
            self._reader.join(timeout=5.0)
        self._sock.close()
        self._fail_all()

    def __enter__(self) -> "GuildClient":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return "<GuildClient {} {}>".format(self.path, state)

    # ------------------------------------------------------------------
    # Sending

    def _timeout(self, timeout: Optional[float]) -> Optional[float]:
        return self.timeout if timeout is None else timeout

    def _next_id(self) -> int:
        with self._lock:
            return next(self._ids)

    def _check_open(self) -> None:
        if self._closed:
            raise ConnectionError(self._close_reason)

    @staticmethod
    def _encode(message: Any) -> bytes:
        # Compact separators and no indentation: json.dumps escapes control
        # characters inside strings, so the line never holds a raw newline.
        text = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8") + b"\n"

    def _call(self, method: str, params: Params, timeout: Optional[float],
              on_reply: Optional[Callable[[Dict[str, Any]], None]] = None) -> Any:
        """Send one request and wait for its result.

        ``on_reply`` runs on the reader thread with the raw reply, before the
        call completes and before any later message is handled.
        """
        request_id = self._next_id()
        data = self._encode(_request(method, params, request_id))
        future = self._register([request_id], on_reply=on_reply)[0]
        try:
            self._send_bytes(data)
            return future.result(self._timeout(timeout))
        except FutureTimeoutError:
            raise TimeoutError(
                "no reply to {!r} within {} s".format(method, self._timeout(timeout))
            ) from None
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
                self._reply_hooks.pop(request_id, None)

    def _unsubscribe(self, subscription: Subscription, timeout: Optional[float]) -> None:
        def remove(reply: Dict[str, Any]) -> None:
            if "error" not in reply:
                self._end_subscription(subscription.id, ("ended", UNSUBSCRIBED, None))

        self._call("events.unsubscribe", {"subscription": subscription.id}, timeout, remove)

    def _register(self, ids: Sequence[int], batch: bool = False,
                  on_reply: Optional[Callable[[Dict[str, Any]], None]] = None) -> List[Future]:
        """Create the futures for ``ids`` before their request is sent."""
        futures = [Future() for _ in ids]
        with self._lock:
            if self._closed:
                raise ConnectionError(self._close_reason)
            self._pending.update(zip(ids, futures))
            if batch:
                self._batches[ids[0]] = tuple(ids)
            if on_reply is not None:
                self._reply_hooks[ids[0]] = on_reply
        return futures

    def _send_bytes(self, data: bytes) -> None:
        try:
            with self._send_lock:
                self._sock.sendall(data)
        except OSError as exc:
            raise ConnectionError(
                "{}: {}".format(self._close_reason if self._closed else "send failed", exc)
            ) from exc

    # ------------------------------------------------------------------
    # Receiving (runs on the reader thread)

    def _read_loop(self) -> None:
        buffer = bytearray()
        reason = "connection closed by daemon"
        try:
            while True:
                chunk = self._sock.recv(_RECV_SIZE)
                if not chunk:
                    break
                buffer += chunk
                if b"\n" not in chunk:
                    continue
                *lines, rest = buffer.split(b"\n")
                buffer = bytearray(rest)
                for line in lines:
                    if line.strip():
                        self._handle_line(bytes(line))
        except OSError as exc:
            reason = "connection lost: {}".format(exc)
        finally:
            self._fail_all(reason)

    def _handle_line(self, line: bytes) -> None:
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError:
            log.warning("ignoring unparsable message from daemon: %r", line[:200])
            return
        try:
            if isinstance(message, list):
                self._handle_batch_reply(message)
            elif isinstance(message, dict):
                self._handle_message(message)
            else:
                log.warning("ignoring unexpected message from daemon: %r", message)
        except Exception:  # Never let one bad message kill the reader.
            log.exception("error while handling message from daemon")

    def _handle_batch_reply(self, replies: List[Any]) -> None:
        ids = {r.get("id") for r in replies if isinstance(r, dict)}
        with self._lock:
            for key, batch_ids in list(self._batches.items()):
                if ids.intersection(batch_ids):
                    del self._batches[key]
        for reply in replies:
            if isinstance(reply, dict):
                self._handle_message(reply)

    def _handle_message(self, message: Dict[str, Any]) -> None:
        if "method" in message:
            if "id" in message:
                self._reject_server_request(message)
            elif not self._route(message["method"], message.get("params")):
                self.notification_queue.put(
                    {"method": message["method"], "params": message.get("params")}
                )
            return

        request_id = message.get("id")
        if request_id is None:
            self._handle_orphan(message)
            return
        with self._lock:
            future = self._pending.pop(request_id, None)
            hook = self._reply_hooks.pop(request_id, None)
        if future is None:
            log.debug("dropping reply to unknown or expired id %r", request_id)
            return
        if hook is not None:
            try:
                hook(message)
            except Exception:
                log.exception("error while handling the reply to id %r", request_id)
        if "error" in message:
            future.set_exception(GuildError.from_error_object(message["error"]))
        else:
            future.set_result(message.get("result"))

    def _route(self, method: Any, params: Any) -> bool:
        """Hand a subscription's notification to it; False if it has none."""
        if method not in (EVENT_METHOD, ENDED_METHOD) or not isinstance(params, dict):
            return False
        subscription_id = params.get("subscription")
        if not isinstance(subscription_id, str):
            return False
        if method == ENDED_METHOD:
            last_seq = params.get("lastSeq")
            item = ("ended", str(params.get("reason", "")),
                    last_seq if isinstance(last_seq, int) else None)
            return self._end_subscription(subscription_id, item)
        with self._lock:
            subscription = self._subscriptions.get(subscription_id)
            finished = subscription_id in self._finished_subscriptions
        if subscription is None:
            if finished:
                log.debug("dropping late event of finished subscription %s", subscription_id)
            return finished
        subscription._deliver(params)
        return True

    def _end_subscription(self, subscription_id: str, item: Tuple[Any, ...]) -> bool:
        with self._lock:
            subscription = self._subscriptions.pop(subscription_id, None)
            finished = subscription_id in self._finished_subscriptions
            if subscription is not None:
                self._finished_subscriptions.add(subscription_id)
        if subscription is None:
            return finished
        subscription._finish(item)
        return True

    def _handle_orphan(self, message: Dict[str, Any]) -> None:
        """Route a response with a null id.

        An error whose reason says a whole batch was refused
        (``BATCH_TOO_LARGE``, ``EMPTY_BATCH``) rejects the oldest batch still
        waiting for its reply; anything else is queued on
        :attr:`orphan_errors`.
        """
        error = message.get("error")
        data = error.get("data") if isinstance(error, dict) else None
        reason = data.get("reason") if isinstance(data, dict) else None
        futures: List[Future] = []
        if reason in _BATCH_REJECTION_REASONS:
            with self._lock:
                if self._batches:
                    _, ids = self._batches.popitem(last=False)
                    for request_id in ids:
                        future = self._pending.pop(request_id, None)
                        if future is not None:
                            futures.append(future)
        if not futures:
            self.orphan_errors.put(message)
            return
        rejected = _BatchRejected(GuildError.from_error_object(error))
        for future in futures:
            future.set_exception(rejected)

    def _reject_server_request(self, message: Dict[str, Any]) -> None:
        """Answer a request from the daemon: the client serves no methods."""
        reply = {
            "jsonrpc": "2.0",
            "id": message.get("id"),
            "error": {"code": METHOD_NOT_FOUND, "message": "client serves no methods"},
        }
        try:
            self._send_bytes(self._encode(reply))
        except ConnectionError:
            pass

    def _fail_all(self, reason: str = "connection closed") -> None:
        """Mark the client closed and fail everything still waiting."""
        with self._lock:
            if not self._closed:
                self._close_reason = reason
                self._closed = True
            pending = list(self._pending.values())
            self._pending.clear()
            self._reply_hooks.clear()
            self._batches.clear()
            subscriptions = list(self._subscriptions.values())
            self._subscriptions.clear()
            put_marker = not self._marker_put
            self._marker_put = True
        for subscription in subscriptions:
            subscription._finish(("closed", self._close_reason))
        for future in pending:
            if not future.done():
                future.set_exception(ConnectionError(self._close_reason))
        if put_marker:
            self.notification_queue.put(_CLOSED)


def _request(method: str, params: Params, request_id: Optional[int] = None) -> Dict[str, Any]:
    """Build a request object; without ``request_id`` it is a notification."""
    message: Dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message


def watch_events(
    path: Optional[str] = None,
    access_token: Optional[str] = None,
    group_ids: Optional[Sequence[str]] = None,
    kinds: Optional[Sequence[str]] = None,
    since: Optional[int] = None,
    all: bool = False,  # noqa: A002 - mirrors the daemon's parameter
    max_backoff: float = 2.0,
    timeout: Optional[float] = 30.0,
) -> Iterator[Dict[str, Any]]:
    """Yield events forever, surviving disconnects and ``LAGGED`` ends.

    Connects to the daemon, authenticates with ``access_token`` (when
    given) and subscribes.  Whenever the connection is lost (the daemon
    restarted, the socket vanished, ...) it reconnects with exponential
    backoff, authenticates again and subscribes with ``since`` set to the
    ``seq`` of the last event it yielded, so nothing is lost.  When the
    daemon ends the subscription (``events.ended``, e.g. ``LAGGED``) it
    subscribes again the same way.  It never yields an event whose ``seq``
    is not greater than the last one yielded.

    Without ``since``, events start at the log's head when the first
    subscription is made; resumption then continues from there.

    Args:
        path: Socket path; defaults to :func:`default_socket_path`.
        access_token: Token for ``session.authenticate`` on each connection.
        group_ids, kinds, since, all: As for :meth:`GuildClient.subscribe`.
        max_backoff: Longest pause, in seconds, between reconnections.
        timeout: Seconds to wait for each reply (and to connect).

    Raises:
        GuildError: The daemon refused a request, e.g. ``CURSOR_EXPIRED``,
            ``INVALID_TOKEN`` or ``UNAUTHORIZED``.  The transport errors
            ``SHUTTING_DOWN``, ``TOO_MANY_CONNECTIONS`` and
            ``TOO_MANY_REQUESTS`` are retried instead.

    The generator stops, closing its connection, when the caller stops
    iterating (``break``, ``close()``, garbage collection).
    """
    cursor = since
    backoff = _Backoff(max_backoff)
    while True:
        client: Optional[GuildClient] = None
        connected_at: Optional[float] = None
        try:
            client = GuildClient(path, timeout=timeout)
            if access_token is not None:
                client.call("session.authenticate", {"accessToken": access_token})
            while True:
                subscription = client.subscribe(group_ids, kinds, since=cursor, all=all)
                if cursor is None:
                    cursor = subscription.seq
                started = time.monotonic()
                if connected_at is None:
                    connected_at = started
                progressed = False
                try:
                    while True:
                        event = subscription.next_event()
                        seq = event.get("seq") if isinstance(event, dict) else None
                        if not isinstance(seq, int):
                            log.warning("ignoring event without seq: %r", event)
                            continue
                        if seq <= cursor:
                            log.debug("skipping event %d, already at %d", seq, cursor)
                            continue
                        cursor = seq
                        progressed = True
                        backoff.reset()
                        yield event
                except SubscriptionEnded as ended:
                    log.info("%s; subscribing again from seq %s", ended, cursor)
                    if not progressed and time.monotonic() - started < max_backoff:
                        backoff.wait()  # Ended again at once: do not spin.
        except GuildError as error:
            if error.code not in _RETRYABLE_CODES:
                raise
            log.info("guildd refused (%s); reconnecting", error)
        except OSError as exc:  # Includes ConnectionError and TimeoutError.
            log.info("connection to guildd lost (%s); reconnecting", exc)
        finally:
            if client is not None:
                client.close()
        if connected_at is not None and time.monotonic() - connected_at >= max_backoff:
            backoff.reset()  # The connection was fine for a while.
        backoff.wait()


class _Backoff:
    """Exponential backoff: 0.05 s, doubling up to ``maximum``."""

    INITIAL = 0.05

    def __init__(self, maximum: float) -> None:
        self.maximum = max(0.0, maximum)
        self.delay = min(self.INITIAL, self.maximum)

    def reset(self) -> None:
        self.delay = min(self.INITIAL, self.maximum)

    def wait(self) -> None:
        time.sleep(self.delay)
        self.delay = min(self.delay * 2, self.maximum)


def _string_list(values: Sequence[str], name: str) -> List[str]:
    if isinstance(values, (str, bytes)):
        raise TypeError("{} must be a list of strings, not a string".format(name))
    return list(values)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point: call one method and print its result.

    With ``--watch``, print events instead, one JSON object per line, until
    interrupted (see :func:`watch_events`).
    """
    parser = argparse.ArgumentParser(
        description="Call a method of the Guild daemon and print the JSON result, "
                    "or (--watch) print its events, one JSON object per line."
    )
    parser.add_argument("method", metavar="METHOD", nargs="?", help="e.g. system.status")
    parser.add_argument(
        "params", metavar="JSON_PARAMS", nargs="?", help="parameters as a JSON object"
    )
    parser.add_argument("--socket", help="socket path (default: %(default)s)",
                        default=None)
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for the reply (default: 30)")
    parser.add_argument("--token", help="access token to authenticate with first")
    parser.add_argument("--notify", action="store_true",
                        help="send as a notification and print nothing")
    watch = parser.add_argument_group("watching events")
    watch.add_argument("--watch", action="store_true",
                       help="print events as they happen, reconnecting as needed")
    watch.add_argument("--since", type=int, default=None,
                       help="first replay the events after this seq")
    watch.add_argument("--group", action="append", dest="groups", metavar="GROUP_ID",
                       help="only events of this group (repeatable)")
    watch.add_argument("--kind", action="append", dest="kinds", metavar="KIND",
                       help="only events of this kind (repeatable)")
    watch.add_argument("--all", action="store_true",
                       help="watch every group (admins only)")
    args = parser.parse_args(argv)

    if args.watch:
        if args.method is not None or args.params is not None or args.notify:
            parser.error("--watch takes no METHOD, JSON_PARAMS or --notify")
        return _watch(args)
    if args.method is None:
        parser.error("METHOD is required (or use --watch)")
    if args.since is not None or args.groups or args.kinds or args.all:
        parser.error("--since, --group, --kind and --all need --watch")

    params = None
    if args.params is not None:
        try:
            params = json.loads(args.params)
        except ValueError as exc:
            parser.error("JSON_PARAMS is not valid JSON: {}".format(exc))

    try:
        with GuildClient(args.socket, timeout=args.timeout) as client:
            if args.token:
                client.call("session.authenticate", {"accessToken": args.token})
            if args.notify:
                client.notify(args.method, params)
                return 0
            result = client.call(args.method, params)
    except GuildError as exc:
        print("error: {}".format(exc), file=sys.stderr)
        if exc.data is not None:
            print(json.dumps(exc.data, indent=2, ensure_ascii=False), file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as exc:
        print("error: {}".format(exc), file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _watch(args: argparse.Namespace) -> int:
    """``--watch``: print events as JSON lines until interrupted."""
    events = watch_events(
        args.socket, access_token=args.token, group_ids=args.groups, kinds=args.kinds,
        since=args.since, all=args.all, timeout=args.timeout,
    )
    try:
        for event in events:
            print(json.dumps(event, separators=(",", ":"), ensure_ascii=False), flush=True)
    except GuildError as exc:
        print("error: {}".format(exc), file=sys.stderr)
        if exc.data is not None:
            print(json.dumps(exc.data, indent=2, ensure_ascii=False), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head(1): stop quietly.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        events.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
