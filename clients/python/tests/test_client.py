"""Calls, batches, sessions and notifications (guild_client.client)."""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List

import guild_client
from guild_client import Call, GuildClient, GuildError, SubscriptionEnded

from .support import BATCH_LIMIT, LIVE_SOCKET, OfflineTestCase, live


class OfflineCallTests(OfflineTestCase):

    def test_ping_omits_params(self) -> None:
        self.assertEqual(self.client.call("ping"), "pong")
        message = self.server.messages[-1]
        self.assertEqual(message["jsonrpc"], "2.0")
        self.assertEqual(message["method"], "ping")
        self.assertIsInstance(message["id"], int)
        self.assertNotIn("params", message)

    def test_params_are_sent(self) -> None:
        params = {"a": 1, "b": [True, None], "c": {"d": "e"}}
        self.assertEqual(self.client.call("echo", params), params)
        self.assertEqual(self.client.call("echo", [1, 2]), [1, 2])

    def test_out_of_order_replies_reach_their_callers(self) -> None:
        with ThreadPoolExecutor(max_workers=3) as pool:
            futures = [
                pool.submit(self.client.call, "gather", {"n": 3, "value": value})
                for value in ("first", "second", "third")
            ]
            results = [f.result(timeout=10) for f in futures]
        self.assertEqual(results, ["first", "second", "third"])

    def test_many_threads_share_one_client(self) -> None:
        def worker(worker_id: int) -> List[Any]:
            results = []
            for n in range(10):
                value = "{}-{}".format(worker_id, n)
                seconds = ((worker_id * 7 + n * 3) % 10) / 500.0
                results.append(self.client.call(
                    "delay", {"seconds": seconds, "value": value}))
            return results

        with ThreadPoolExecutor(max_workers=16) as pool:
            outcomes = list(pool.map(worker, range(16)))
        for worker_id, results in enumerate(outcomes):
            self.assertEqual(results, ["{}-{}".format(worker_id, n) for n in range(10)])
        ids = [m["id"] for m in self.server.messages]
        self.assertEqual(len(ids), len(set(ids)), "request ids must be unique")

    def test_error_maps_to_guild_error(self) -> None:
        data = {"reason": "INVALID_PARAMS", "field": "username"}
        with self.assertRaises(GuildError) as caught:
            self.client.call("fail", {"code": -32602, "message": "bad username", "data": data})
        error = caught.exception
        self.assertEqual(error.code, -32602)
        self.assertEqual(error.message, "bad username")
        self.assertEqual(error.data, data)
        self.assertEqual(error.reason, "INVALID_PARAMS")
        self.assertEqual(error.field, "username")
        self.assertIn("bad username", str(error))
        self.assertIn("-32602", str(error))
        self.assertIn("username", str(error))

    def test_error_without_data(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("fail", {"code": 40101, "message": "unauthorized"})
        self.assertEqual(caught.exception.code, 40101)
        self.assertIsNone(caught.exception.data)
        self.assertIsNone(caught.exception.reason)
        self.assertIsNone(caught.exception.field)

    def test_unknown_method(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("no.such.method")
        self.assertEqual(caught.exception.code, -32601)
        self.assertEqual(caught.exception.reason, "METHOD_NOT_FOUND")

    def test_timeout(self) -> None:
        started = time.monotonic()
        with self.assertRaises(TimeoutError):
            self.client.call("hang", timeout=0.2)
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertEqual(self.client.call("ping"), "pong")

    def test_request_from_daemon_is_refused(self) -> None:
        self.assertIs(self.client.call("ask"), True)
        self.assertTrue(self.server.wait_for(
            lambda ms: any(isinstance(m, dict) and m.get("id") == "srv-1" for m in ms)))
        reply = next(m for m in self.server.messages
                     if isinstance(m, dict) and m.get("id") == "srv-1")
        self.assertEqual(reply["error"]["code"], -32601)


class OfflineBatchTests(OfflineTestCase):

    def test_batch_results_keep_request_order(self) -> None:
        results = self.client.batch([
            ("echo", {"i": 0}),
            Call("fail", {"code": 40401, "message": "no such user",
                          "data": {"reason": "USER_NOT_FOUND"}}),
            Call("echo", {"i": 2}),
            Call("note", {"n": 1}, notification=True),
            ("ping", None),
        ])
        self.assertEqual(len(results), 5)
        self.assertEqual(results[0], {"i": 0})
        self.assertIsInstance(results[1], GuildError)
        self.assertEqual(results[1].code, 40401)
        self.assertEqual(results[1].reason, "USER_NOT_FOUND")
        self.assertEqual(results[2], {"i": 2})
        self.assertIsNone(results[3])
        self.assertEqual(results[4], "pong")

        sent = self.server.messages[-1]
        self.assertIsInstance(sent, list)
        self.assertNotIn("id", sent[3])
        self.assertNotIn("params", sent[4])

    def test_concurrent_batches(self) -> None:
        def run(n: int) -> List[Any]:
            return self.client.batch([("echo", {"n": n, "k": k}) for k in range(4)])

        with ThreadPoolExecutor(max_workers=8) as pool:
            outcomes = list(pool.map(run, range(32)))
        for n, results in enumerate(outcomes):
            self.assertEqual(results, [{"n": n, "k": k} for k in range(4)])

    def test_batch_of_notifications_returns_nones(self) -> None:
        results = self.client.batch([Call("a", notification=True),
                                     Call("b", {"x": 1}, notification=True)])
        self.assertEqual(results, [None, None])
        self.assertTrue(self.server.wait_for(lambda ms: len(ms) == 1))
        self.assertEqual(self.client.call("ping"), "pong")

    def test_batch_rejected_as_a_whole_raises(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.batch([("ping", None)] * (BATCH_LIMIT + 1))
        self.assertEqual(caught.exception.code, -32600)
        self.assertEqual(caught.exception.reason, "BATCH_TOO_LARGE")
        self.assertTrue(self.client.orphan_errors.empty())
        self.assertEqual(self.client.batch([("ping", None)]), ["pong"])

    def test_empty_batch_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            self.client.batch([])


class OfflineNotificationTests(OfflineTestCase):

    def test_pushed_notification_is_queued(self) -> None:
        self.assertIs(self.client.call("push", {"params": {"kind": "user.created"}}), True)
        notification = self.client.next_notification(timeout=5)
        self.assertEqual(notification,
                         {"method": "events.event", "params": {"kind": "user.created"}})
        with self.assertRaises(queue.Empty):
            self.client.next_notification(timeout=0.05)

    def test_notifications_generator_ends_on_disconnect(self) -> None:
        for n in range(3):
            self.client.call("push", {"params": {"n": n}})
        with self.assertRaises(ConnectionError):
            self.client.call("drop")
        received = list(self.client.notifications())
        self.assertEqual([item["params"]["n"] for item in received], [0, 1, 2])
        with self.assertRaises(ConnectionError):
            self.client.next_notification(timeout=1)



class OfflineSessionTests(OfflineTestCase):

    def test_authenticate_sends_the_token(self) -> None:
        self.assertIs(self.client.authenticate("tok"), True)
        self.assertEqual(self.server.messages[-1]["method"], "session.authenticate")
        self.assertEqual(self.server.messages[-1]["params"], {"accessToken": "tok"})


class OfflineConnectionTests(OfflineTestCase):

    def _start_hanging_call(self) -> "queue.Queue[BaseException]":
        outcome: "queue.Queue[BaseException]" = queue.Queue()

        def hang() -> None:
            try:
                self.client.call("hang", timeout=30)
            except BaseException as exc:  # Reported to the test thread.
                outcome.put(exc)

        threading.Thread(target=hang, daemon=True).start()
        self.assertTrue(self.server.wait_for(
            lambda ms: any(isinstance(m, dict) and m.get("method") == "hang" for m in ms)))
        return outcome

    def test_connection_drop_fails_pending_calls(self) -> None:
        outcome = self._start_hanging_call()
        started = time.monotonic()
        with self.assertRaises(ConnectionError):
            self.client.call("drop")
        self.assertIsInstance(outcome.get(timeout=5), ConnectionError)
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertTrue(self.client.closed)
        with self.assertRaises(ConnectionError):
            self.client.call("ping")
        with self.assertRaises(ConnectionError):
            self.client.batch([("ping", None)])
        with self.assertRaises(ConnectionError):
            self.client.notify("note")

    def test_close_fails_pending_calls(self) -> None:
        outcome = self._start_hanging_call()
        self.client.close()
        self.assertIsInstance(outcome.get(timeout=5), ConnectionError)
        with self.assertRaises(ConnectionError):
            self.client.call("ping")
        self.client.close()  # Closing twice is harmless.

    def test_context_manager_closes(self) -> None:
        with GuildClient(self.server.path) as client:
            self.assertEqual(client.call("ping"), "pong")
        self.assertTrue(client.closed)
        with self.assertRaises(ConnectionError):
            client.call("ping")

    def test_connect_failure_raises_oserror(self) -> None:
        with self.assertRaises(OSError):
            GuildClient(os.path.join(self.server.directory, "missing.sock"))



@live
class LiveDaemonTests(unittest.TestCase):
    """Tests against a running guildd (``GUILD_SOCKET`` names its socket)."""

    PASSWORD = "correct horse battery staple"

    def connect(self) -> GuildClient:
        client = GuildClient(LIVE_SOCKET, timeout=10.0)
        self.addCleanup(client.close)
        return client

    def delete_user_later(self, access_token: str) -> None:
        """Delete the user owning ``access_token`` when the test ends."""
        def delete() -> None:
            with contextlib.suppress(GuildError, OSError, TimeoutError):
                with GuildClient(LIVE_SOCKET, timeout=10.0) as client:
                    client.call("session.authenticate", {"accessToken": access_token})
                    client.call("user.delete")
        self.addCleanup(delete)

    def owned_thing(self, **onboard: Any) -> Dict[str, Any]:
        """A pseudo user (this test's client, authenticated) who onboards a thing;
        both are deleted when the test ends.  Returns the onboarding's result."""
        owner = self.client.call("user.registerPseudo", {"displayName": "Py Owner"})
        self.delete_user_later(owner["accessToken"])
        self.client.call("session.authenticate", {"accessToken": owner["accessToken"]})
        params = {"vendorThingID": "py-" + uuid.uuid4().hex[:12], "thingPassword": "pw",
                  "owner": "user:" + owner["user"]["userID"]}
        params.update(onboard)
        onboarded = self.client.call("thing.onboard", params)
        self.addCleanup(lambda: self.client.call("thing.delete", {"thingID": onboarded["thingID"]}))
        return onboarded

    def setUp(self) -> None:
        self.client = self.connect()

    def test_ping(self) -> None:
        self.assertEqual(self.client.call("system.ping"), "pong")

    def test_discover_lists_methods(self) -> None:
        document = self.client.call("rpc.discover")
        self.assertIsInstance(document["methods"], list)
        names = [m.get("name") for m in document["methods"]]
        self.assertIn("system.ping", names)

    def test_unknown_method(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("no.such.method")
        self.assertEqual(caught.exception.code, -32601)

    def test_invalid_username(self) -> None:
        with self.assertRaises(GuildError) as caught:
            self.client.call("user.register", {"username": "ab", "password": self.PASSWORD})
        self.assertEqual(caught.exception.code, -32602)
        self.assertEqual(caught.exception.field, "username")

    def test_register_login_whoami_and_duplicate(self) -> None:
        username = "py-" + uuid.uuid4().hex[:12]
        params = {"username": username, "password": self.PASSWORD}
        registered = self.client.call("user.register", params)
        self.delete_user_later(registered["accessToken"])
        user_id = registered["user"]["userID"]
        self.assertEqual(registered["user"]["username"], username)
        self.assertIs(registered["user"]["isPseudo"], False)
        self.assertTrue(registered["refreshToken"])

        other = self.connect()
        login = other.call("user.login", params)
        self.assertEqual(login["user"]["userID"], user_id)
        other.call("session.authenticate", {"accessToken": login["accessToken"]})
        whoami = other.call("session.whoami")
        self.assertEqual(whoami["user"]["userID"], user_id)

        with self.assertRaises(GuildError) as caught:
            self.connect().call("user.register", params)
        self.assertEqual(caught.exception.code, 40901)
        self.assertEqual(caught.exception.reason, "USER_ALREADY_EXISTS")

    def test_register_pseudo(self) -> None:
        registered = self.client.call("user.registerPseudo", {"displayName": "Py Test"})
        self.delete_user_later(registered["accessToken"])
        self.assertIs(registered["user"]["isPseudo"], True)
        self.client.call("session.authenticate", {"accessToken": registered["accessToken"]})
        whoami = self.client.call("session.whoami")
        self.assertIs(whoami["user"]["isPseudo"], True)
        self.assertEqual(whoami["user"]["userID"], registered["user"]["userID"])

    def test_batch(self) -> None:
        results = self.client.batch([
            ("system.ping", None), ("no.such.method", None), ("system.ping", None)])
        self.assertEqual(results[0], "pong")
        self.assertIsInstance(results[1], GuildError)
        self.assertEqual(results[1].code, -32601)
        self.assertEqual(results[2], "pong")

    def test_thing_find_update_disable_enable(self) -> None:
        vendor = "py-" + uuid.uuid4().hex[:12]
        onboarded = self.owned_thing(vendorThingID=vendor, thingProperties={"room": "hall"})
        thing_id = onboarded["thingID"]
        found = self.client.call("thing.find", {"vendorThingID": vendor})
        self.assertEqual(found["thingID"], thing_id)
        self.assertIs(found["disabled"], False)

        device = self.connect()
        device.call("session.authenticate", {"accessToken": onboarded["accessToken"]})
        commands = device.subscribe(thing_ids=[thing_id])
        updated = device.call("thing.update", {
            "thingID": thing_id, "firmwareVersion": "2.0", "thingProperties": {"room": None, "floor": 1}})
        self.assertEqual(updated["firmwareVersion"], "2.0")
        self.assertEqual(updated["thingProperties"], {"floor": 1})
        event = commands.next_event(timeout=5)
        self.assertEqual(event["kind"], "thingUpdated")
        self.assertEqual(event["firmwareVersion"], "2.0")

        # Disabled: the thing's subscription ends and its token no longer works.
        self.assertIs(self.client.call("thing.disable", {"thingID": thing_id}), True)
        with self.assertRaises(SubscriptionEnded) as ended:
            while True:
                commands.next_event(timeout=5)
        self.assertEqual(ended.exception.reason, "THING_DISABLED")
        with self.assertRaises(GuildError) as refused:
            device.call("session.authenticate", {"accessToken": onboarded["accessToken"]})
        self.assertEqual(refused.exception.code, guild_client.THING_DISABLED)
        self.assertEqual(refused.exception.reason, "THING_DISABLED")
        self.assertIs(self.client.call("thing.get", {"thingID": thing_id})["disabled"], True)

        self.assertIs(self.client.call("thing.enable", {"thingID": thing_id}), True)
        device.call("session.authenticate", {"accessToken": onboarded["accessToken"]})
        self.assertIs(self.client.call("thing.get", {"thingID": thing_id})["disabled"], False)

    def test_notify_trigger_get_patch_and_results(self) -> None:
        onboarded = self.owned_thing()
        thing_id = onboarded["thingID"]
        fired = self.client.subscribe(kinds=["triggerFired"])
        created = self.client.call("trigger.create", {
            "thingID": thing_id,
            "predicate": {"eventSource": "STATES", "triggersWhen": "CONDITION_TRUE",
                          "condition": {"type": "eq", "field": "power", "value": True}},
            "triggersWhat": "NOTIFY", "parameters": {"scene": "night"}, "title": "Power on"})
        trigger_id = created["triggerID"]

        device = self.connect()
        device.call("session.authenticate", {"accessToken": onboarded["accessToken"]})
        device.call("thing.putState", {"thingID": thing_id, "state": {"power": True}})
        event = fired.next_event(timeout=5)
        self.assertEqual(event["kind"], "triggerFired")
        self.assertEqual(event["triggerID"], trigger_id)
        self.assertEqual(event["parameters"], {"scene": "night"})

        got = self.client.call("trigger.get", {"thingID": thing_id, "triggerID": trigger_id})
        self.assertEqual(got["triggersWhat"], "NOTIFY")
        self.assertEqual(got["title"], "Power on")
        self.assertEqual(got["predicate"]["triggersWhen"], "CONDITION_TRUE")
        patched = self.client.call("trigger.patch", {
            "thingID": thing_id, "triggerID": trigger_id,
            "predicate": {"eventSource": "SCHEDULE", "schedule": "0 7 * * *", "timeZone": "UTC"}, "title": ""})
        self.assertEqual(patched["predicate"]["eventSource"], "SCHEDULE")
        self.assertNotIn("title", patched)
        self.assertIsInstance(patched["nextFireAt"], int)
        results = self.client.call("trigger.results", {"thingID": thing_id, "triggerID": trigger_id})
        self.assertEqual([r["outcome"] for r in results["results"]], ["NOTIFIED"])
        self.assertEqual(results["results"][0]["eventSource"], "STATES")

        with self.assertRaises(GuildError) as refused:
            self.client.call("trigger.create", {
                "thingID": thing_id, "triggersWhat": "NOTIFY",
                "predicate": {"eventSource": "SCHEDULE", "schedule": "61 * * * *"}})
        self.assertEqual(refused.exception.reason, "INVALID_INPUT_DATA")

    def test_grouped_state_history_with_aggregations(self) -> None:
        onboarded = self.owned_thing()
        thing_id = onboarded["thingID"]
        device = self.connect()
        device.call("session.authenticate", {"accessToken": onboarded["accessToken"]})
        hour, minute = 3_600_000, 60_000
        base = 1_800_000_000_000  # a whole hour
        # Hour 0: 20, 22.5 and a text; hour 1: 18, a state without temp, 19; hour 2: nothing.
        for offset, state in [(0, {"temp": 20}), (10 * minute, {"temp": 22.5}),
                              (20 * minute, {"temp": "hot"}), (hour, {"temp": 18}),
                              (hour + 5 * minute, {"humidity": 40}),
                              (hour + 30 * minute, {"temp": 19})]:
            device.call("thing.putState", {
                "thingID": thing_id, "state": state, "timestamp": base + offset})

        history = self.client.call("thing.stateHistory", {
            "thingID": thing_id, "grouped": True, "from": base, "to": base + 3 * hour - 1,
            "interval": hour,
            "aggregations": [{"type": "COUNT"}, {"type": "COUNT", "field": "temp"},
                             {"type": "MAX", "field": "temp"},
                             {"type": "MEAN", "field": "temp", "putAggregationInto": "avg"},
                             {"type": "SUM", "field": "temp"}]})
        self.assertEqual(history["results"], [])
        groups = history["groupedResults"]
        self.assertEqual([(g["range"]["from"], g["range"]["to"]) for g in groups],
                         [(base + h * hour, base + (h + 1) * hour - 1) for h in range(3)])
        self.assertEqual([a["putAggregationInto"] for a in groups[0]["aggregations"]],
                         ["count", "count_temp", "max_temp", "avg", "sum_temp"])
        values = [[a["value"] for a in g["aggregations"]] for g in groups]
        self.assertEqual(values, [[3, 3, 22.5, 21.25, 42.5], [3, 2, 19, 18.5, 37],
                                  [0, 0, None, None, None]])
        # MAX and SUM of integers stay integers.
        self.assertIsInstance(values[1][2], int)
        self.assertIsInstance(values[1][4], int)

        # Without aggregations each group holds its states, by timestamp.
        states = self.client.call("thing.stateHistory", {
            "thingID": thing_id, "grouped": True, "from": base, "to": base + 2 * hour - 1,
            "interval": hour})
        self.assertEqual([[o["state"] for o in g["objects"]] for g in states["groupedResults"]],
                         [[{"temp": 20}, {"temp": 22.5}, {"temp": "hot"}],
                          [{"temp": 18}, {"humidity": 40}, {"temp": 19}]])

        with self.assertRaises(GuildError) as refused:
            self.client.call("thing.stateHistory", {
                "thingID": thing_id, "grouped": True, "from": base, "to": base + hour,
                "aggregations": [{"type": "MEDIAN", "field": "temp"}]})
        self.assertEqual(refused.exception.code, -32602)

    def test_parse_error_keeps_connection(self) -> None:
        self.client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":\n')
        orphan = self.client.orphan_errors.get(timeout=5)
        self.assertIn("id", orphan)
        self.assertIsNone(orphan["id"])
        self.assertEqual(orphan["error"]["code"], -32700)
        self.assertEqual(self.client.call("system.ping"), "pong")

