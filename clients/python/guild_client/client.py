"""JSON-RPC 2.0 over the transport: calls, batches, sessions, notifications.

:class:`GuildClient` gives each request an id, matches replies to their
callers (in any order, from any thread), turns error objects into
:class:`~guild_client.errors.GuildError`, and hands subscription events to
their :class:`~guild_client.events.Subscription`.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeoutError
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from .errors import INTERNAL_ERROR, METHOD_NOT_FOUND, GuildError
from .events import UNSUBSCRIBED, EventRouter, Subscription, subscribe_params
from .transport import LineTransport, default_socket_path, encode

__all__ = ["Call", "GuildClient", "Params", "request"]

log = logging.getLogger(__name__)

#: The params of a request: an object, an array, or none at all.
Params = Optional[Union[Dict[str, Any], List[Any]]]

# Reasons of a null-id error that refuses a whole batch.
_BATCH_REJECTION_REASONS = frozenset({"BATCH_TOO_LARGE", "EMPTY_BATCH"})
_CLOSED = object()  # Sentinel put on the notification queue at disconnect.


def request(method: str, params: Params = None, request_id: Optional[int] = None) -> Dict[str, Any]:
    """Build a request object; without ``request_id`` it is a notification.

    A request without params has no ``"params"`` member.
    """
    message: Dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message["method"] = method
    if params is not None:
        message["params"] = params
    return message


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
        self._pending: Dict[int, Future] = {}
        # Run by the reader thread on a reply before its call completes.
        self._reply_hooks: Dict[int, Callable[[Dict[str, Any]], None]] = {}
        # Where the notifications of subscriptions go.
        self._events = EventRouter()
        # Batches awaiting their reply, oldest first: key -> request ids.
        self._batches: "OrderedDict[int, Tuple[int, ...]]" = OrderedDict()
        self._closed = False
        self._close_reason = "connection closed"
        self._marker_put = False
        self._transport = LineTransport(
            self.path, self._handle_incoming, self._fail_all, timeout=timeout
        )
        self._transport.start()

    # ------------------------------------------------------------------
    # Calls

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

    def notify(self, method: str, params: Params = None) -> None:
        """Send a notification (a request without id; it gets no reply).

        Raises:
            ConnectionError: The connection is closed or was lost.
        """
        self._check_open()
        self._send_bytes(encode(request(method, params)))

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
        data = encode([request(e.method, e.params, i) for e, i in zip(entries, ids)])
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

    # ------------------------------------------------------------------
    # Sessions and subscriptions

    def authenticate(self, access_token: str, timeout: Optional[float] = None) -> Any:
        """Bind the connection to a session (``session.authenticate``).

        Wait for this before sending calls that need the session: the
        daemon runs a connection's requests concurrently.

        Raises:
            GuildError: E.g. ``INVALID_TOKEN`` (40103).
            TimeoutError, ConnectionError: As for :meth:`call`.
        """
        return self._call("session.authenticate", {"accessToken": access_token}, timeout)

    def subscribe(
        self,
        group_ids: Optional[Sequence[str]] = None,
        kinds: Optional[Sequence[str]] = None,
        since: Optional[int] = None,
        all: bool = False,  # noqa: A002 - mirrors the daemon's parameter
        timeout: Optional[float] = None,
        buckets: Optional[Sequence[Tuple[str, str]]] = None,
        thing_ids: Optional[Sequence[str]] = None,
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
            buckets: ``(scope, bucket)`` pairs to watch (object events reach
                only subscriptions that name their bucket).
            thing_ids: Only events of these things (a thing's connection
                subscribes with its own id to receive ``commandReceived``).

        Raises:
            GuildError: The daemon refused, e.g. ``CURSOR_EXPIRED`` (41001,
                ``data["oldestSeq"]``), ``UNAUTHORIZED`` or
                ``TOO_MANY_SUBSCRIPTIONS``.
            TimeoutError, ConnectionError: As for :meth:`call`.  After a
                timeout, events of a subscription the daemon created anyway
                go to the general notification queue.
            TypeError: ``group_ids`` or ``kinds`` is a single string.
        """
        params = subscribe_params(group_ids, kinds, since, all, buckets, thing_ids)
        subscription = Subscription(self, params)

        def install(reply: Dict[str, Any]) -> None:
            result = reply.get("result")
            if "error" in reply or not isinstance(result, dict):
                return
            if not isinstance(result.get("subscription"), str):
                return
            subscription._start(result)
            self._events.add(subscription)

        result = self._call("events.subscribe", params, timeout, install)
        if not subscription.id:
            raise GuildError(INTERNAL_ERROR,
                             "malformed events.subscribe result: {!r}".format(result))
        return subscription

    def _unsubscribe(self, subscription: Subscription, timeout: Optional[float]) -> None:
        def remove(reply: Dict[str, Any]) -> None:
            if "error" not in reply:
                self._events.end(subscription.id, ("ended", UNSUBSCRIBED, None))

        self._call("events.unsubscribe", {"subscription": subscription.id}, timeout, remove)

    # ------------------------------------------------------------------
    # Notifications and the connection

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
        self._transport.close()
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

    def _call(self, method: str, params: Params, timeout: Optional[float],
              on_reply: Optional[Callable[[Dict[str, Any]], None]] = None) -> Any:
        """Send one request and wait for its result.

        ``on_reply`` runs on the reader thread with the raw reply, before the
        call completes and before any later message is handled.
        """
        request_id = self._next_id()
        data = encode(request(method, params, request_id))
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
            self._transport.send_bytes(data)
        except OSError as exc:
            raise ConnectionError(
                "{}: {}".format(self._close_reason if self._closed else "send failed", exc)
            ) from exc

    # ------------------------------------------------------------------
    # Receiving (runs on the reader thread)

    def _handle_incoming(self, message: Any) -> None:
        if isinstance(message, list):
            self._handle_batch_reply(message)
        elif isinstance(message, dict):
            self._handle_message(message)
        else:
            log.warning("ignoring unexpected message from daemon: %r", message)

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
            elif not self._events.route(message["method"], message.get("params")):
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
            self._send_bytes(encode(reply))
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
            put_marker = not self._marker_put
            self._marker_put = True
        self._events.close(self._close_reason)
        for future in pending:
            if not future.done():
                future.set_exception(ConnectionError(self._close_reason))
        if put_marker:
            self.notification_queue.put(_CLOSED)
