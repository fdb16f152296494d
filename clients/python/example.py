"""Example: talk to a running guildd with the Python client.

Connects, pings the daemon, registers a pseudo user, authenticates the
connection with the new access token and asks who we are.

    python3 example.py [--socket PATH]
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from guild_client import GuildClient, GuildError, default_socket_path


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the example; return the process exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--socket", default=None,
        help="daemon socket (default: {})".format(default_socket_path()),
    )
    args = parser.parse_args(argv)

    try:
        with GuildClient(args.socket, timeout=10.0) as client:
            print("ping:", client.call("system.ping"))

            status = client.call("system.status")
            print("daemon version:", status.get("version"))

            registered = client.call("user.registerPseudo", {"displayName": "Example"})
            user = registered["user"]
            print("registered pseudo user:", user["userID"])

            # Make sure the token is bound to this connection, then ask who we are.
            client.call("session.authenticate", {"accessToken": registered["accessToken"]})
            whoami = client.call("session.whoami")
            print("whoami:", json.dumps(whoami, indent=2, ensure_ascii=False))

            if whoami["user"]["userID"] != user["userID"]:
                print("error: whoami returned a different user", file=sys.stderr)
                return 1
    except GuildError as exc:
        print("daemon error: {}".format(exc), file=sys.stderr)
        return 1
    except (OSError, TimeoutError) as exc:
        print("cannot talk to guildd at {}: {}".format(
            args.socket or default_socket_path(), exc), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
