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
"""

from __future__ import annotations

import argparse
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
    Dict,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

__all__ = [
    "Call",
    "GuildClient",
    "GuildError",
    "default_socket_path",
    "main",
]

__version__ = "0.1.0"

log = logging.getLogger(__name__)

# Standard JSON-RPC 2.0 error codes.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Guild application error codes.
UNAUTHORIZED = 40101
INVALID_CREDENTIALS = 40102
INVALID_TOKEN = 40103
INVALID_REFRESH_TOKEN = 40104
PERMISSION_DENIED = 40301
USER_NOT_FOUND = 40401
USER_ALREADY_EXISTS = 40901

_RECV_SIZE = 65536
# Reasons of a null-id error that refuses a whole batch.
_BATCH_REJECTION_REASONS = frozenset({"BATCH_TOO_LARGE", "EMPTY_BATCH"})
_CLOSED = object()  # Sentinel put on the notification queue at disconnect.

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


class GuildClient:
    """A thread-safe connection to ``guildd``.

    A background reader thread receives every message from the daemon.
    Responses are matched to their request by id, so any number of threads
    may use one client at the same time and replies may arrive in any order.
    Notifications pushed by the daemon are queued and can be read with
    :meth:`next_notification` or :meth:`notifications`.  Responses that
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
        request_id = self._next_id()
        data = self._encode(_request(method, params, request_id))
        future = self._register([request_id])[0]
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

    def _register(self, ids: Sequence[int], batch: bool = False) -> List[Future]:
        """Create the futures for ``ids`` before their request is sent."""
        futures = [Future() for _ in ids]
        with self._lock:
            if self._closed:
                raise ConnectionError(self._close_reason)
            self._pending.update(zip(ids, futures))
            if batch:
                self._batches[ids[0]] = tuple(ids)
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
            else:
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
        if future is None:
            log.debug("dropping reply to unknown or expired id %r", request_id)
            return
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
            self._batches.clear()
            put_marker = not self._marker_put
            self._marker_put = True
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


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command line entry point: call one method and print its result."""
    parser = argparse.ArgumentParser(
        description="Call a method of the Guild daemon and print the JSON result."
    )
    parser.add_argument("method", metavar="METHOD", help="e.g. system.status")
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
    args = parser.parse_args(argv)

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


if __name__ == "__main__":
    sys.exit(main())
