"""Two users share a group bucket and watch it; a third, outside the group, sees nothing.

Alice creates a group with Bob, and a bucket in the group's scope. Bob and Carol
watch the bucket (``events.subscribe`` with ``buckets``); only Bob, a member, may
read it, so only he receives Alice's object, body and all. When Alice removes
Bob from the group, the next object reaches nobody but her, and Bob can no
longer read the bucket.

Run against a daemon: ``python3 examples/shared_bucket.py --socket PATH``. It
prints one JSON line with what each user saw, and exits 1 if a rule was broken.
"""

import argparse
import json
import os
import queue
import sys
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from guild_client import GuildClient, GuildError  # noqa: E402


def user(socket: str, name: str) -> GuildClient:
    client = GuildClient(socket)
    client.call("user.register", {"username": name, "password": "pw-" + name})
    return client


def next_kind(subscription, timeout: float):
    try:
        return subscription.next_event(timeout=timeout)
    except (queue.Empty, TimeoutError):
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=os.environ.get("GUILD_SOCKET"))
    args = parser.parse_args()
    suffix = uuid.uuid4().hex[:8]
    alice, bob, carol = (user(args.socket, name + suffix) for name in ("alice", "bob", "carol"))
    bob_id = bob.call("session.whoami")["user"]["userID"]
    group = alice.call("group.create", {"name": "Shared", "members": [bob_id]})["group"]["groupID"]
    scope = "group:" + group
    alice.call("object.create", {"scope": scope, "bucket": "notes", "body": {"text": "first"}})

    bob_watch = bob.subscribe(buckets=[(scope, "notes")])
    carol_watch = carol.subscribe(buckets=[(scope, "notes")])
    created = alice.call("object.create", {"scope": scope, "bucket": "notes", "body": {"text": "hello Bob"}})
    seen = {"bob": next_kind(bob_watch, 5), "carol": next_kind(carol_watch, 1)}

    alice.call("group.removeMembers", {"groupID": group, "userIDs": [bob_id]})
    alice.call("object.create", {"scope": scope, "bucket": "notes", "body": {"text": "Bob is gone"}})
    after = next_kind(bob_watch, 1)
    try:
        bob.call("object.get", {"scope": scope, "bucket": "notes", "objectID": created["objectID"]})
        bob_read = "allowed"
    except GuildError as error:
        bob_read = error.reason

    report = {
        "bobGot": seen["bob"] and seen["bob"].get("object", {}).get("text"),
        "bobKind": seen["bob"] and seen["bob"].get("kind"),
        "carolGot": seen["carol"],
        "bobAfterRemoval": after,
        "bobReadAfterRemoval": bob_read,
    }
    print(json.dumps(report, sort_keys=True))
    ok = (
        report["bobGot"] == "hello Bob"
        and report["carolGot"] is None
        and report["bobAfterRemoval"] is None
        and bob_read == "OBJECT_NOT_FOUND"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
