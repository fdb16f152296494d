"""Python client for the Guild daemon (``guildd``).

``guildd`` speaks JSON-RPC 2.0 over a Unix domain stream socket, one compact
JSON message per line.  This package needs only the standard library and
works on Python 3.9 and later::

    from guild_client import GuildClient, GuildError

    with GuildClient() as client:
        print(client.call("system.ping"))          # -> "pong"

Event subscriptions (``events.subscribe``) are read through a
:class:`Subscription`; :func:`watch_events` wraps one in a generator that
survives disconnects, daemon restarts and ``LAGGED`` ends::

    from guild_client import watch_events

    for event in watch_events(access_token=token, since=0):
        print(event["seq"], event["kind"], event["groupID"])

Modules: :mod:`~guild_client.transport` (the socket and its line framing),
:mod:`~guild_client.client` (calls, batches, sessions),
:mod:`~guild_client.events` (subscriptions, resuming),
:mod:`~guild_client.errors` (:class:`GuildError` and every code, from the
generated :mod:`~guild_client.error_codes`) and :mod:`~guild_client.cli`
(``python3 -m guild_client``).  Everything public is importable from here.
"""

from .cli import main
from .client import Call, GuildClient, Params
from .errors import *  # noqa: F401,F403 - every error code constant
from .errors import CODES, ERRORS, REASONS, GuildError, reasons_for
from .errors import __all__ as _error_names
from .events import (
    ENDED_METHOD,
    EVENT_METHOD,
    LAGGED,
    UNSUBSCRIBED,
    Subscription,
    SubscriptionEnded,
    watch_events,
)
from .transport import default_socket_path

__version__ = "0.2.0"

__all__ = sorted(set(_error_names) | {
    "CODES",
    "Call",
    "ENDED_METHOD",
    "ERRORS",
    "EVENT_METHOD",
    "GuildClient",
    "GuildError",
    "LAGGED",
    "Params",
    "REASONS",
    "Subscription",
    "SubscriptionEnded",
    "UNSUBSCRIBED",
    "default_socket_path",
    "main",
    "reasons_for",
    "watch_events",
})
