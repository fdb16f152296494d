"""Echo bot: answers every group message that mentions it.

Authenticates with the bot user's access token, subscribes to the
groups' events and, for each ``newMessage`` that names the bot in
``atUserList`` (or mentions all members), sends back the text with the
sender mentioned.  Its own messages are never answered.

    python3 examples/echo_bot.py --token TOKEN [--group ID ...]
        [--since SEQ] [--count N] [--socket PATH]

``--since`` replays the events after that sequence number first (0: all
that are kept), so mentions sent while the bot was away get answered
too; ``--count`` exits after that many answers.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Dict, Optional, Sequence

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from guild_client import GuildClient, GuildError, default_socket_path  # noqa: E402

MENTION_ALL = "__kImSDK_MesssageAtALL__"


def reply_for(event: Dict[str, Any], me: str) -> Optional[Dict[str, Any]]:
    """The ``group.sendMessage`` params answering ``event``, or None."""
    if event.get("kind") != "newMessage" or event.get("actor") in (None, me):
        return None
    changes = event.get("changes") or {}
    mentions = changes.get("atUserList") or []
    if me not in mentions and MENTION_ALL not in mentions:
        return None
    text = changes.get("text")
    body = text if isinstance(text, str) else "(custom message)"
    return {"groupID": event["groupID"], "text": "echo: " + body, "atUserList": [event["actor"]]}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the bot; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=None,
                        help="daemon socket (default: {})".format(default_socket_path()))
    parser.add_argument("--token", required=True, help="the bot user's access token")
    parser.add_argument("--group", action="append", default=None, help="only this group (repeatable)")
    parser.add_argument("--since", type=int, default=None, help="replay events after this seq first")
    parser.add_argument("--count", type=int, default=None, help="exit after this many answers")
    args = parser.parse_args(argv)

    answered = 0
    try:
        with GuildClient(args.socket, timeout=10.0) as client:
            me = client.authenticate(args.token)["user"]["userID"]
            subscription = client.subscribe(group_ids=args.group, kinds=["newMessage"], since=args.since)
            for event in subscription:
                params = reply_for(event, me)
                if params is None:
                    continue
                sent = client.call("group.sendMessage", params)
                print("answered {} in {} with seq {}".format(event["changes"].get("msgID"), event["groupID"],
                                                             sent["messageSeq"]), flush=True)
                answered += 1
                if args.count is not None and answered >= args.count:
                    return 0
    except GuildError as error:
        print("echo_bot: {}".format(error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
