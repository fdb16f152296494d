"""Event subscriptions: ``events.subscribe``, its notifications, resuming.

:meth:`GuildClient.subscribe <guild_client.client.GuildClient.subscribe>`
returns a :class:`Subscription`; the client's :class:`EventRouter` hands it
the ``events.event`` notifications that name it and ends it on
``events.ended``.  :func:`watch_events` wraps subscriptions in a generator
that resumes with ``since`` after disconnects, restarts and ``LAGGED`` ends.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, Dict, Iterator, Optional, Sequence, Set, Tuple

from .errors import SERVER_BUSY, SHUTTING_DOWN, TOO_MANY_CONNECTIONS, TOO_MANY_REQUESTS, GuildError

if TYPE_CHECKING:  # pragma: no cover - imported for annotations only
    from .client import GuildClient

__all__ = [
    "ENDED_METHOD",
    "EVENT_METHOD",
    "LAGGED",
    "UNSUBSCRIBED",
    "EventRouter",
    "Subscription",
    "SubscriptionEnded",
    "watch_events",
]

log = logging.getLogger(__name__)

#: The notification that carries one event of a subscription.
EVENT_METHOD = "events.event"
#: The notification that ends a subscription (``protocol/errors.md``).
ENDED_METHOD = "events.ended"
#: The ``events.ended`` reason of a subscription that fell too far behind.
LAGGED = "LAGGED"
#: :attr:`SubscriptionEnded.reason` after :meth:`Subscription.unsubscribe`
#: (set by the client; the daemon sends no notification then).
UNSUBSCRIBED = "UNSUBSCRIBED"
# Errors after which watch_events() reconnects instead of giving up: the
# daemon did not run the request because it is stopping or overloaded.
RETRYABLE_CODES = frozenset({TOO_MANY_REQUESTS, TOO_MANY_CONNECTIONS, SHUTTING_DOWN, SERVER_BUSY})


class SubscriptionEnded(Exception):
    """A subscription is over; no more events will arrive on it.

    Raised by :meth:`Subscription.next_event` once every event received
    before the end has been returned.

    Attributes:
        reason: :data:`LAGGED` (the daemon ended it because the reader fell
            too far behind), ``"THING_DISABLED"`` (the subscriber is a thing
            that was disabled: its connection is unbound) or another reason
            sent in ``events.ended``; or :data:`UNSUBSCRIBED` after
            :meth:`Subscription.unsubscribe`.
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

    # Called by the client and its router (mostly on the reader thread).

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


class EventRouter:
    """Where a connection's subscription notifications go.

    Holds the live subscriptions by id and the ids of those that are over
    (whose stray late events are dropped).  Thread-safe; the client calls
    :meth:`route` on its reader thread for every notification.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: Dict[str, Subscription] = {}
        self._finished: Set[str] = set()
        self._closed_reason: Optional[str] = None

    def add(self, subscription: Subscription) -> None:
        """Route the events of the started ``subscription`` to it.

        After :meth:`close` the subscription is finished at once instead.
        """
        with self._lock:
            reason = self._closed_reason
            if reason is None:
                self._live[subscription.id] = subscription
        if reason is not None:
            subscription._finish(("closed", reason))

    def route(self, method: Any, params: Any) -> bool:
        """Hand a subscription notification to its subscription.

        Returns False when the notification belongs to no subscription this
        connection holds or held (it is then a general notification).
        """
        if method not in (EVENT_METHOD, ENDED_METHOD) or not isinstance(params, dict):
            return False
        subscription_id = params.get("subscription")
        if not isinstance(subscription_id, str):
            return False
        if method == ENDED_METHOD:
            last_seq = params.get("lastSeq")
            item = ("ended", str(params.get("reason", "")),
                    last_seq if isinstance(last_seq, int) else None)
            return self.end(subscription_id, item)
        with self._lock:
            subscription = self._live.get(subscription_id)
            finished = subscription_id in self._finished
        if subscription is None:
            if finished:
                log.debug("dropping late event of finished subscription %s", subscription_id)
            return finished
        subscription._deliver(params)
        return True

    def end(self, subscription_id: str, item: Tuple[Any, ...]) -> bool:
        """Finish a live subscription with the marker ``item``.

        Returns False if the id names no subscription this connection held.
        """
        with self._lock:
            subscription = self._live.pop(subscription_id, None)
            finished = subscription_id in self._finished
            if subscription is not None:
                self._finished.add(subscription_id)
        if subscription is None:
            return finished
        subscription._finish(item)
        return True

    def close(self, reason: str) -> None:
        """The connection is gone: finish every subscription with ``reason``."""
        with self._lock:
            if self._closed_reason is None:
                self._closed_reason = reason
            live = list(self._live.values())
            self._live.clear()
        for subscription in live:
            subscription._finish(("closed", reason))


def subscribe_params(
    group_ids: Optional[Sequence[str]] = None,
    kinds: Optional[Sequence[str]] = None,
    since: Optional[int] = None,
    all: bool = False,  # noqa: A002 - mirrors the daemon's parameter
    buckets: Optional[Sequence[Tuple[str, str]]] = None,
    thing_ids: Optional[Sequence[str]] = None,
) -> Dict[str, Any]:
    """The ``events.subscribe`` params; only the members given are sent.

    ``buckets`` are ``(scope, bucket)`` pairs: object events reach only
    subscriptions that name their bucket.  ``thing_ids`` narrow thing
    events (``commandReceived``, ``thingStateChanged``, ...) to those things.

    Raises:
        TypeError: ``group_ids``, ``thing_ids`` or ``kinds`` is a single string.
    """
    params: Dict[str, Any] = {}
    if group_ids is not None:
        params["groupIDs"] = _string_list(group_ids, "group_ids")
    if buckets is not None:
        params["buckets"] = [{"scope": scope, "bucket": bucket} for scope, bucket in buckets]
    if thing_ids is not None:
        params["thingIDs"] = _string_list(thing_ids, "thing_ids")
    if kinds is not None:
        params["kinds"] = _string_list(kinds, "kinds")
    if since is not None:
        params["since"] = since
    if all:
        params["all"] = True
    return params


def _string_list(values: Sequence[str], name: str) -> list:
    if isinstance(values, (str, bytes)):
        raise TypeError("{} must be a list of strings, not a string".format(name))
    return list(values)


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
            ``INVALID_TOKEN`` or ``UNAUTHORIZED``.  The errors that say the
            daemon did not run the request (``SHUTTING_DOWN``,
            ``TOO_MANY_CONNECTIONS``, ``TOO_MANY_REQUESTS``,
            ``SERVER_BUSY``) are retried instead.

    The generator stops, closing its connection, when the caller stops
    iterating (``break``, ``close()``, garbage collection).
    """
    from .client import GuildClient  # The client imports this module.

    cursor = since
    backoff = _Backoff(max_backoff)
    while True:
        client: Optional[GuildClient] = None
        connected_at: Optional[float] = None
        try:
            client = GuildClient(path, timeout=timeout)
            if access_token is not None:
                client.authenticate(access_token)
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
            if error.code not in RETRYABLE_CODES:
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
