"""The command line: ``python3 -m guild_client`` (or ``guild-client``).

::

    python3 -m guild_client call system.status
    python3 -m guild_client --socket /tmp/guild.sock call system.ping
    python3 -m guild_client call user.registerPseudo '{"displayName": "Ada"}'
    python3 -m guild_client --token "$TOKEN" call session.whoami
    python3 -m guild_client --token "$TOKEN" watch --since 0 --kind groupCreated
    python3 -m guild_client errors 10007

``call`` prints the JSON result; the exit status is 1 for a daemon error and
2 when the daemon cannot be reached.  ``watch`` prints events, one JSON object
per line, until interrupted, surviving daemon restarts.  ``errors`` lists the
protocol's error codes and reasons, offline.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from typing import Any, Optional, Sequence

from .client import GuildClient
from .errors import ERRORS, GuildError
from .events import watch_events

__all__ = ["main"]

#: Exit status for an error answered by the daemon.
EXIT_DAEMON_ERROR = 1
#: Exit status when the daemon cannot be reached (also argparse's usage error).
EXIT_UNREACHABLE = 2


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``).

    Returns the exit status.  Usage errors raise ``SystemExit(2)``.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.error("a command is required: call, watch or errors")
    return args.run(parser, args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python3 -m guild_client",
        description="Talk to the Guild daemon (guildd) from the command line.",
    )
    _connection_options(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    call = commands.add_parser("call", help="call one method and print its JSON result")
    call.add_argument("method", metavar="METHOD", help="e.g. system.status")
    call.add_argument("params", metavar="JSON", nargs="?",
                      help="params as a JSON object or array; - reads them from stdin")
    call.add_argument("--notify", action="store_true",
                      help="send as a notification and print nothing")
    _connection_options(call, suppress=True)
    call.set_defaults(run=_call)

    watch = commands.add_parser(
        "watch", help="print events as they happen, one JSON object per line")
    watch.add_argument("--since", type=int, default=None,
                       help="first replay the events after this seq")
    watch.add_argument("--group", action="append", dest="groups", metavar="GROUP_ID",
                       help="only events of this group (repeatable)")
    watch.add_argument("--kind", action="append", dest="kinds", metavar="KIND",
                       help="only events of this kind (repeatable)")
    watch.add_argument("--all", action="store_true", help="watch every group (admins only)")
    _connection_options(watch, suppress=True)
    watch.set_defaults(run=_watch)

    errors = commands.add_parser("errors", help="list the protocol's error codes and reasons")
    errors.add_argument("lookup", metavar="CODE_OR_REASON", nargs="?",
                        help="only this code (e.g. 10007) or reason (e.g. CURSOR_EXPIRED)")
    errors.set_defaults(run=_errors)
    return parser


def _connection_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    """The options every command that connects takes, before or after it."""

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    parser.add_argument("--socket", default=default(None),
                        help="socket path (default: $GUILD_SOCKET, then the usual places)")
    parser.add_argument("--timeout", type=float, default=default(30.0),
                        help="seconds to wait for each reply (default: 30)")
    parser.add_argument("--token", default=default(None),
                        help="access token to authenticate the connection with first")


def _call(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    params = None
    if args.params is not None:
        text = sys.stdin.read() if args.params == "-" else args.params
        try:
            params = json.loads(text)
        except ValueError as exc:
            parser.error("JSON is not valid JSON: {}".format(exc))
    try:
        with GuildClient(args.socket, timeout=args.timeout) as client:
            if args.token:
                client.authenticate(args.token)
            if args.notify:
                client.notify(args.method, params)
                return 0
            result = client.call(args.method, params)
    except GuildError as exc:
        _report(exc)
        return EXIT_DAEMON_ERROR
    except OSError as exc:  # Includes ConnectionError and TimeoutError.
        print("error: {}".format(exc), file=sys.stderr)
        return EXIT_UNREACHABLE
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


def _watch(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    events = watch_events(
        args.socket, access_token=args.token, group_ids=args.groups, kinds=args.kinds,
        since=args.since, all=args.all, timeout=args.timeout,
    )
    try:
        for event in events:
            print(json.dumps(event, separators=(",", ":"), ensure_ascii=False), flush=True)
    except GuildError as exc:
        _report(exc)
        return EXIT_DAEMON_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. piped into head(1): stop quietly.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        events.close()
    return 0


def _errors(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    rows = list(ERRORS)
    if args.lookup is not None:
        wanted = args.lookup.strip()
        try:
            code = int(wanted)
        except ValueError:
            rows = [row for row in rows if row[1] == wanted.upper()]
        else:
            rows = [row for row in rows if row[0] == code]
        if not rows:
            print("error: {} is no code or reason of the protocol".format(wanted),
                  file=sys.stderr)
            return 1
    for code, reason in rows:
        print("{:>6}  {}".format(code, reason))
    return 0


def _report(error: GuildError) -> None:
    print("error: {}".format(error), file=sys.stderr)
    if error.data is not None:
        print(json.dumps(error.data, indent=2, ensure_ascii=False), file=sys.stderr)
