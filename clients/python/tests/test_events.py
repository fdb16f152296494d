"""Subscriptions, events.ended and resuming with since (guild_client.events)."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
import unittest
import uuid
from typing import Any, Dict, List

import guild_client
from guild_client import GuildClient, GuildError, Subscription, SubscriptionEnded, watch_events
from guild_client.events import EventRouter, subscribe_params

from .support import (
    LIVE_SOCKET,
    Connection,
    OfflineTestCase,
    WatchTestCase,
    ended_message,
    error_message,
    event_message,
    event_params,
    live,
    result_message,
)


class OfflineSubscriptionTests(OfflineTestCase):

    def test_route_is_installed_before_events_in_the_same_write(self) -> None:
        # The reply and the first events arrive in one sendall, so the reader
        # handles them back to back; none may be missed or misrouted.
        def reply_and_events(connection: Connection, request_id: Any,
                             params: Dict[str, Any], n: int) -> bool:
            sub = "s{}".format(n)
            connection.send_all([
                result_message(request_id, {"subscription": sub, "seq": 100 * n}),
                event_message(sub, 100 * n + 1),
                event_message(sub, 100 * n + 2),
                event_message("unknown", 7),
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
            self.assertEqual(first, event_message(sub.id, 100 * n + 1)["params"]["event"])
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
        def reply(connection: Connection, request_id: Any,
                  params: Dict[str, Any], n: int) -> bool:
            connection.send(result_message(request_id, {"subscription": "s1", "seq": 42}))
            return True

        self.server.on_subscribe = reply
        sub = self.client.subscribe()
        self.assertEqual((sub.seq, sub.last_seq), (42, 42))

    def test_events_of_two_subscriptions_are_kept_apart(self) -> None:
        first = self.client.subscribe()
        second = self.client.subscribe()
        for seq, sub in ((1, first), (2, second), (3, first)):
            self.client.call("push", event_params(sub.id, seq))
        self.assertEqual([first.next_event(timeout=5)["seq"] for _ in range(2)], [1, 3])
        self.assertEqual(second.next_event(timeout=5)["seq"], 2)
        self.assertTrue(self.client.notification_queue.empty())

    def test_subscribe_error_raises_guild_error(self) -> None:
        def expired(connection: Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            connection.send(error_message(request_id, 41001, "cursor expired",
                                          {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self.server.on_subscribe = expired
        with self.assertRaises(GuildError) as caught:
            self.client.subscribe(since=3)
        self.assertEqual(caught.exception.code, guild_client.CURSOR_EXPIRED)
        self.assertEqual(caught.exception.data["oldestSeq"], 50)

    def test_ended_raises_subscription_ended(self) -> None:
        def lagging(connection: Connection, request_id: Any,
                    params: Dict[str, Any], n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 5}),
                                 event_message("s1", 6), event_message("s1", 7),
                                 ended_message("s1", 7),
                                 event_message("s1", 8)])  # A stray late event.
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
        self.client.call("push", event_params(sub.id, 1))
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
        self.client.call("push", event_params(sub.id, 1))
        self.client.call("push", event_params(sub.id, 2))
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
            self.client.call("push", event_params(sub.id, seq))
        seen = []
        for event in sub:
            seen.append(event["seq"])
            if len(seen) == 3:
                break
        self.assertEqual(seen, [1, 2, 3])


class OfflineWatchEventsTests(WatchTestCase):


    def test_resumes_after_drop_and_lagged_without_duplicates(self) -> None:
        def first(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 10}),
                                 event_message("s1", 11), event_message("s1", 12)])
            time.sleep(0.1)  # Let the client read them, then drop it.
            return False

        def second(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            # A replay that (wrongly) repeats 11 and 12 must be filtered.
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 14}),
                                 event_message("s1", 11), event_message("s1", 12),
                                 event_message("s1", 13),
                                 event_message("s1", 14), ended_message("s1", 14)])
            return True

        def third(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s2", "seq": 15}),
                                 event_message("s2", 14), event_message("s2", 15)])
            return True

        self.script(first, second, third)
        events = self.watch(self.server.path, access_token="tok", kinds=["memberInvited"],
                             max_backoff=0.2, timeout=5)
        seqs = [event["seq"] for event in self.take(events, 5)]
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
        def first(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(result_message(request_id, {"subscription": "s1", "seq": 30}))
            return False

        def later(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 31}),
                                 event_message("s1", 31)])
            return True

        self.script(first, later)
        events = self.watch(self.server.path, max_backoff=0.1, timeout=5)
        self.assertEqual(self.take(events, 1)[0]["seq"], 31)
        self.assertEqual([m["params"] for m in self.server.subscribes], [{}, {"since": 30}])

    def test_since_is_respected(self) -> None:
        def replay(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 9}),
                                 event_message("s1", 4), event_message("s1", 5),
                                 event_message("s1", 6)])
            return True

        self.script(replay)
        events = self.watch(self.server.path, since=4, timeout=5)
        self.assertEqual([event["seq"] for event in self.take(events, 2)], [5, 6])
        self.assertEqual(self.server.subscribes[0]["params"], {"since": 4})

    def test_guild_error_stops_it(self) -> None:
        def expired(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(error_message(request_id, 41001, "cursor expired",
                                          {"reason": "CURSOR_EXPIRED", "oldestSeq": 50}))
            return True

        self.script(expired)
        with self.assertRaises(GuildError) as caught:
            self.take(self.watch(self.server.path, since=1, timeout=5), 1)
        self.assertEqual(caught.exception.reason, "CURSOR_EXPIRED")

    def test_shutting_down_is_retried(self) -> None:
        def stopping(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send(error_message(request_id, -32003, "shutting down",
                                          {"reason": "SHUTTING_DOWN"}))
            return True

        def ready(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 0}),
                                 event_message("s1", 1)])
            return True

        self.script(stopping, ready)
        events = self.watch(self.server.path, max_backoff=0.1, timeout=5)
        self.assertEqual(self.take(events, 1)[0]["seq"], 1)

    def test_waits_for_the_daemon_to_appear(self) -> None:
        path = os.path.join(self.server.directory, "later.sock")

        def reply(connection: Connection, request_id: Any, params: Dict, n: int) -> bool:
            connection.send_all([result_message(request_id, {"subscription": "s1", "seq": 0}),
                                 event_message("s1", 1)])
            return True

        self.server.on_subscribe = reply


class EventRouterTests(unittest.TestCase):
    """The routing of subscription notifications, without a connection."""

    def started(self, router: EventRouter, subscription_id: str) -> Subscription:
        subscription = Subscription(None, {})  # type: ignore[arg-type]
        subscription._start({"subscription": subscription_id, "seq": 3})
        router.add(subscription)
        return subscription

    def test_events_go_to_their_subscription_only(self) -> None:
        router = EventRouter()
        first, second = self.started(router, "s1"), self.started(router, "s2")
        for seq, name in ((4, "s1"), (5, "s2"), (6, "s1")):
            message = event_message(name, seq)
            self.assertTrue(router.route(message["method"], message["params"]))
        self.assertEqual([first.next_event(timeout=1)["seq"] for _ in range(2)], [4, 6])
        self.assertEqual(second.next_event(timeout=1)["seq"], 5)
        unknown = event_message("s9", 7)
        self.assertFalse(router.route(unknown["method"], unknown["params"]))
        self.assertFalse(router.route("events.event", "not an object"))
        self.assertFalse(router.route("other.notification", {"subscription": "s1"}))

    def test_ended_finishes_and_late_events_are_dropped(self) -> None:
        router = EventRouter()
        subscription = self.started(router, "s1")
        ended = ended_message("s1", 9)
        self.assertTrue(router.route(ended["method"], ended["params"]))
        late = event_message("s1", 10)
        self.assertTrue(router.route(late["method"], late["params"]), "dropped, not general")
        self.assertFalse(subscription.active)
        with self.assertRaises(SubscriptionEnded) as caught:
            subscription.next_event(timeout=1)
        self.assertEqual((caught.exception.reason, caught.exception.last_seq), ("LAGGED", 9))

    def test_close_finishes_live_and_later_subscriptions(self) -> None:
        router = EventRouter()
        before = self.started(router, "s1")
        router.close("connection lost: test")
        after = self.started(router, "s2")
        for subscription in (before, after):
            self.assertFalse(subscription.active)
            with self.assertRaises(ConnectionError) as caught:
                subscription.next_event(timeout=1)
            self.assertIn("connection lost: test", str(caught.exception))

    def test_subscribe_params(self) -> None:
        self.assertEqual(subscribe_params(), {})
        self.assertEqual(subscribe_params(["g1"], ("groupCreated",), 0, True),
                         {"groupIDs": ["g1"], "kinds": ["groupCreated"], "since": 0, "all": True})
        with self.assertRaises(TypeError):
            subscribe_params(kinds="groupCreated")
        self.assertEqual(subscribe_params(buckets=[("app", "people"), ("group:g1", "notes")]),
                         {"buckets": [{"scope": "app", "bucket": "people"},
                                      {"scope": "group:g1", "bucket": "notes"}]})
        self.assertEqual(subscribe_params(thing_ids=["th.1"], kinds=["commandReceived"]),
                         {"thingIDs": ["th.1"], "kinds": ["commandReceived"]})
        with self.assertRaises(TypeError):
            subscribe_params(thing_ids="th.1")


@live
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
