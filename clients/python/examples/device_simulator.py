"""Device simulator: a smart lamp that is a Guild thing (Kii Thing-IF).

Onboards the lamp for its owner (or connects as an onboarded thing),
receives the commands its owners send, runs them against a simulated lamp,
posts one result per action in the actions' order, and uploads the lamp's
new state after each command.

    python3 examples/device_simulator.py --owner-token TOKEN \\
        --vendor-thing-id lamp-1 --password PW [--count N] [--socket PATH]
    python3 examples/device_simulator.py --thing-id ID --thing-token TOKEN ...

Actions the lamp knows: ``turnPower {"power": bool}``, ``setBrightness
{"brightness": 0-100}`` and ``blink {"times": 1-10}``.  Any other action, or
a value out of range, fails that action with an ``errorMessage`` (the
others still run).

Commands are never lost and never run twice: the ones the thing has not
answered yet (from ``command.list``) run first, then each new one as it
arrives.  After a lost connection, a daemon restart (``SHUTTING_DOWN``) or a
subscription the daemon ended (``LAGGED``), the simulator reconnects with a
growing pause and does the same again; a command whose results were posted
but whose reply was lost gets the same results again, not a second run.  The
lamp starts from the thing's last uploaded state, so a restarted simulator
carries on where it left off.
``--count`` exits after that many commands; ``--state-interval`` also
uploads the state every that many seconds.  With an owner token, the
thing's id and token are printed as JSON on the first line of output.

With an owner token, ``--schedule "0 7 * * *"`` also gives the lamp a
schedule (a Thing-IF ``SCHEDULE`` trigger, in the daemon's time zone or
``--time-zone``) that sends ``--schedule-actions`` (default: turn the power
on) at each of its times, to this simulator like any command; the trigger's
id and first time are added to the first line.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import sys
import time
from typing import Any, Dict, List, Optional, Set, Tuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from guild_client import GuildClient, GuildError, default_socket_path  # noqa: E402
from guild_client.events import RETRYABLE_CODES, SubscriptionEnded  # noqa: E402


class Lamp:
    """The simulated device: its state, and what each action does to it."""

    def __init__(self) -> None:
        self.state: Dict[str, Any] = {"power": False, "brightness": 50, "blinks": 0}

    def run(self, name: str, params: Any) -> Dict[str, Any]:
        """Runs one action; returns its result body (``succeeded``, ...)."""
        params = params if isinstance(params, dict) else {}
        if name == "turnPower":
            power = params.get("power")
            if not isinstance(power, bool):
                return {"succeeded": False, "errorMessage": "power must be true or false"}
            self.state["power"] = power
            return {"succeeded": True}
        if name == "setBrightness":
            level = params.get("brightness")
            if not isinstance(level, int) or isinstance(level, bool) or not 0 <= level <= 100:
                return {"succeeded": False, "errorMessage": "brightness must be 0-100"}
            self.state["brightness"] = level
            return {"succeeded": True, "data": {"brightness": level}}
        if name == "blink":
            times = params.get("times", 1)
            if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= 10:
                return {"succeeded": False, "errorMessage": "times must be 1-10"}
            if not self.state["power"]:
                return {"succeeded": False, "errorMessage": "the lamp is off"}
            self.state["blinks"] += times
            return {"succeeded": True}
        return {"succeeded": False, "errorMessage": "unknown action " + name}

    def results(self, actions: List[Any]) -> List[Dict[str, Any]]:
        """One result per action, in order."""
        results = []
        for action in actions:
            name, params = next(iter(action.items())) if isinstance(action, dict) and action else ("?", None)
            results.append({name: self.run(name, params)})
        return results


def add_schedule(socket: str, owner_token: str, thing_id: str, schedule: str,
                 time_zone: Optional[str], actions: List[Any]) -> Dict[str, Any]:
    """Gives the lamp a cron schedule that sends ``actions``; returns trigger.create's result."""
    predicate: Dict[str, Any] = {"eventSource": "SCHEDULE", "schedule": schedule}
    if time_zone:
        predicate["timeZone"] = time_zone
    with GuildClient(socket) as owner:
        owner.authenticate(owner_token)
        me = owner.call("session.whoami", {})["user"]["userID"]
        return owner.call("trigger.create", {
            "thingID": thing_id, "predicate": predicate, "title": "Lamp schedule",
            "command": {"actions": actions, "issuer": "user:" + me, "schema": "Lamp", "schemaVersion": 1},
        })


def onboard(socket: str, owner_token: str, vendor_thing_id: str, password: str) -> Tuple[str, str]:
    """Onboards the lamp for the owner; returns the thing's id and token."""
    with GuildClient(socket) as owner:
        owner.authenticate(owner_token)
        me = owner.call("session.whoami", {})["user"]["userID"]
        result = owner.call("thing.onboard", {
            "vendorThingID": vendor_thing_id, "thingPassword": password,
            "owner": "user:" + me, "thingType": "Lamp",
        })
    return result["thingID"], result["accessToken"]


class Simulator:
    """Connects as the thing and answers its commands."""

    def __init__(self, socket: str, thing_id: str, token: str, count: Optional[int],
                 state_interval: Optional[float]) -> None:
        self.socket = socket
        self.thing_id = thing_id
        self.token = token
        self.remaining = count
        self.state_interval = state_interval
        self.lamp = Lamp()
        self.answered: Set[str] = set()
        # Results computed but not yet acknowledged by the daemon: posted again, never recomputed.
        self.unacknowledged: Dict[str, List[Dict[str, Any]]] = {}
        self.resumed = False

    def done(self) -> bool:
        return self.remaining is not None and self.remaining <= 0

    def handle(self, client: GuildClient, command_id: str, actions: List[Any]) -> None:
        if command_id in self.answered or self.done():
            return
        results = self.unacknowledged.get(command_id)
        if results is None:
            results = self.lamp.results(actions)
            self.unacknowledged[command_id] = results
        try:
            reply = client.call("command.putResults", {
                "thingID": self.thing_id, "commandID": command_id, "actionResults": results,
            })
            state = reply["commandState"]
        except GuildError as error:
            if (error.data or {}).get("reason") != "COMMAND_ALREADY_DONE":
                raise
            state = "ALREADY_DONE"
        self.finish(client, command_id, state)

    def finish(self, client: GuildClient, command_id: str, state: str) -> None:
        """The daemon holds the command's results: upload the state, report, count."""
        self.unacknowledged.pop(command_id, None)
        self.answered.add(command_id)
        client.call("thing.putState", {"thingID": self.thing_id, "state": self.lamp.state})
        print(json.dumps({"commandID": command_id, "commandState": state, "state": self.lamp.state}),
              flush=True)
        if self.remaining is not None:
            self.remaining -= 1

    def waiting(self, client: GuildClient) -> List[Dict[str, Any]]:
        """The thing's commands without results, oldest first.

        A command whose results were posted before the connection was lost,
        with the reply lost with it, is finished here instead.
        """
        waiting: List[Dict[str, Any]] = []
        key = None
        while True:
            params: Dict[str, Any] = {"thingID": self.thing_id}
            if key:
                params["paginationKey"] = key
            page = client.call("command.list", params)
            for command in page["commands"]:
                if command.get("actionResults") is None:
                    waiting.append(command)
                elif command["commandID"] in self.unacknowledged:
                    self.finish(client, command["commandID"], command.get("commandState", "DONE"))
            key = page.get("nextPaginationKey")
            if not key:
                return list(reversed(waiting))

    def resume_state(self, client: GuildClient) -> None:
        """Starts the lamp from the thing's last uploaded state, once."""
        if self.resumed:
            return
        try:
            last = client.call("thing.getState", {"thingID": self.thing_id})["state"]
            self.lamp.state.update({k: v for k, v in last.items() if k in self.lamp.state})
        except GuildError as error:
            if (error.data or {}).get("reason") != "STATE_NOT_FOUND":
                raise
        self.resumed = True

    def session(self) -> None:
        """One connection: subscribe, answer what waits, then what arrives."""
        with GuildClient(self.socket) as client:
            client.authenticate(self.token)
            self.resume_state(client)
            subscription = client.subscribe(thing_ids=[self.thing_id], kinds=["commandReceived"])
            for command in self.waiting(client):
                self.handle(client, command["commandID"], command["actions"])
            last_upload = time.monotonic()
            while not self.done():
                try:
                    event = subscription.next_event(timeout=0.2)
                    self.handle(client, event["commandID"], event.get("actions") or [])
                except queue.Empty:
                    pass
                if self.state_interval and time.monotonic() - last_upload >= self.state_interval:
                    client.call("thing.putState", {"thingID": self.thing_id, "state": self.lamp.state})
                    last_upload = time.monotonic()

    def run(self) -> None:
        delay = 0.05
        while not self.done():
            try:
                self.session()
            except (ConnectionError, OSError, SubscriptionEnded):
                pass
            except GuildError as error:
                # A daemon shutting down or too busy refused the call: try again later; anything else is real.
                if error.code not in RETRYABLE_CODES:
                    raise
            else:
                return
            time.sleep(delay)
            delay = min(delay * 2, 2.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=os.environ.get("GUILD_SOCKET") or default_socket_path())
    parser.add_argument("--owner-token", help="onboard the lamp for this user")
    parser.add_argument("--vendor-thing-id", default="lamp-1")
    parser.add_argument("--password", default=os.environ.get("GUILD_THING_PASSWORD"))
    parser.add_argument("--thing-id", help="an onboarded thing's id")
    parser.add_argument("--thing-token", help="an onboarded thing's token")
    parser.add_argument("--count", type=int, help="exit after this many commands")
    parser.add_argument("--state-interval", type=float, help="also upload the state every N seconds")
    parser.add_argument("--schedule", help="with --owner-token: five cron fields at which the lamp gets --schedule-actions")
    parser.add_argument("--time-zone", help="the schedule's IANA time zone (default: the daemon's)")
    parser.add_argument("--schedule-actions", default='[{"turnPower": {"power": true}}]',
                        help="the scheduled command's actions as JSON")
    args = parser.parse_args()
    if args.schedule and not args.owner_token:
        parser.error("--schedule needs --owner-token")
    if args.owner_token:
        if not args.password:
            parser.error("--password (or GUILD_THING_PASSWORD) is needed to onboard")
        thing_id, token = onboard(args.socket, args.owner_token, args.vendor_thing_id, args.password)
        first: Dict[str, Any] = {"thingID": thing_id, "accessToken": token}
        if args.schedule:
            try:
                actions = json.loads(args.schedule_actions)
            except ValueError:
                parser.error("--schedule-actions is not JSON")
            created = add_schedule(args.socket, args.owner_token, thing_id, args.schedule, args.time_zone, actions)
            first["triggerID"] = created["triggerID"]
            first["nextFireAt"] = created.get("nextFireAt")
            first["timeZone"] = created.get("timeZone")
        print(json.dumps(first), flush=True)
    elif args.thing_id and args.thing_token:
        thing_id, token = args.thing_id, args.thing_token
    else:
        parser.error("give --owner-token (to onboard) or --thing-id and --thing-token")
    try:
        Simulator(args.socket, thing_id, token, args.count, args.state_interval).run()
    except GuildError as error:
        print("device_simulator: {}".format(error), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
