"""Live updates: ``GET /stream?topics=games,box,game:3`` as server-sent events.

On connect the phone gets a snapshot of each topic, then every change as the
hub publishes it. Event names are the topics:

- ``games``: the list of games (``Service.games()``);
- ``box``: ``{"event": "Status", "status": {...}}`` snapshots, and box events
  (``SlotChanged``, ``CoilFired``, ``Notice``, ...) as the hub sends them; after
  any event other than a slot, lid or coil change a fresh Status follows;
- ``game:<id>``: the game's view envelope (``Table.view``: public for spectators,
  referee for the referee), followed for the referee by an ``extras`` event
  (legal and refused actions, computer seats, on the box); when the computer
  seats change the service publishes the view with a ``computer`` list added;

Spectators' game frames are the hub's pre-serialised bytes: 50 phones cost one
``json.dumps``. The referee's frames for an event, and the fresh box Status after a box
event, are built once, by the first stream to relay it, and shared with the others
(:class:`RelayedFrames`). A comment line
every ``HEARTBEAT_S`` keeps proxies and the server from closing an idle stream and detects
a gone phone. At most ``MAX_STREAMS`` are open at once, and ``MAX_STREAMS_PER_CLIENT`` from
one address (503 + ``Retry-After`` beyond).

Under the dashboard's server (:mod:`controller.server`, which offers ``diablotin.push`` in
the WSGI environ) a stream holds no thread once its snapshot is out: the hub's fan-out
thread writes each frame to every phone's connection (``PushedStream``: a phone too far
behind is dropped, the server's loop writes the heartbeats), and a phone that leaves frees
its slot at once (``diablotin.on_disconnect``). Elsewhere (Flask's test client, another
WSGI server) the stream is a generator that holds its thread and waits on its queue.
"""

from __future__ import annotations

import random
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from flask import Blueprint, Response, current_app, request

from controller import refusals
from controller.games.base import Refused, Said
from controller.hub import Hub, Subscription, sse_frame

from . import security
from .payloads import extras, game_view
from .security import ApiError

if TYPE_CHECKING:
    from controller.service import Service
    from controller.table import Table

bp = Blueprint("stream", __name__)

HEARTBEAT_S = 15.0
PING = b": ping\n\n"
RETRY_AFTER_S = 2
MAX_TOPICS = 4
_GAME_TOPIC = re.compile(r"game:([0-9]{1,9})")
_PATCHED_BOX_EVENTS = frozenset({"SlotChanged", "LidChanged", "CoilFired"})


class RelayedFrames:
    """Frames re-rendered for a hub event (its ``event:`` and ``id:``): the referee's game
    view, or the box's fresh Status; built once and shared by every stream that relays
    that event; the last few events are kept."""

    KEEP = 16

    def __init__(self) -> None:
        self._frames: dict[bytes, list[bytes]] = {}
        self._lock = threading.Lock()

    def get(self, event: bytes, build: Callable[[], list[bytes]]) -> list[bytes]:
        key = b"\n".join(event.split(b"\n", 2)[:2])  # "event: <topic>" and "id: <n>"
        with self._lock:
            frames = self._frames.get(key)
        if frames is None:
            frames = build()
            with self._lock:
                self._frames[key] = frames
                while len(self._frames) > self.KEEP:
                    del self._frames[next(iter(self._frames))]
        return frames


_relayed_frames: weakref.WeakKeyDictionary[Hub, RelayedFrames] = weakref.WeakKeyDictionary()
"""Per hub (event ids count per hub)."""
_relayed_frames_lock = threading.Lock()


def relayed_frames(service: Service) -> RelayedFrames:
    with _relayed_frames_lock:
        frames = _relayed_frames.get(service.hub)
        if frames is None:
            frames = _relayed_frames[service.hub] = RelayedFrames()
        return frames


class StreamCounter:
    """How many streams are open, in all and per client address (each holds a thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.open = 0
        self.by_client: dict[str, int] = {}

    def enter(self, client: str, limit: int, per_client: int, referee: bool = False) -> str | None:
        """Count a new stream; returns why it may not open (``None``: it may). The
        referee's streams are counted but never refused for the spectators' caps."""
        with self._lock:
            if not referee and self.open >= limit:
                return Said("too many live pages open")
            if not referee and self.by_client.get(client, 0) >= per_client:
                return Said("at most {count} live pages per phone", count=per_client)
            self.open += 1
            self.by_client[client] = self.by_client.get(client, 0) + 1
            return None

    def leave(self, client: str) -> None:
        with self._lock:
            self.open -= 1
            left = self.by_client.get(client, 0) - 1
            if left > 0:
                self.by_client[client] = left
            else:
                self.by_client.pop(client, None)


def parse_topics(raw: str, service: Service) -> tuple[list[str], list[Table]]:
    """Validate ``?topics=``; returns (hub topics, tables of the game topics). Raises 400/404."""
    names = [name for name in raw.split(",") if name]
    if not names or len(names) > MAX_TOPICS or len(set(names)) != len(names):
        raise ApiError(
            400, "bad-topics", Said("topics: 1 to {n} of games, box, game:<id>", n=MAX_TOPICS)
        )
    topics: list[str] = []
    tables = []
    for name in names:
        match = _GAME_TOPIC.fullmatch(name)
        if name in ("games", "box"):
            topics.append(name)
        elif match:
            try:
                tables.append(service.table(int(match.group(1))))
            except Refused as exc:
                raise ApiError(refusals.status(exc.code), exc.code, exc.reason) from None
            topics.append(name)
        else:
            raise ApiError(
                400, "bad-topics", Said("unknown topic {name!r}: games, box, game:<id>", name=name)
            )
    return topics, tables


@bp.get("/stream")
def stream() -> Response:
    service = current_app.extensions["diablotin"]
    if request.environ.get("diablotin.stream_thread") is False:
        # pipelined behind another request on one connection: it would hold an API thread
        raise ApiError(503, "busy", Said("open the live stream on a connection of its own"))
    topics, tables = parse_topics(request.args.get("topics", ""), service)
    if request.method == "HEAD":  # no body is sent: nothing to count or subscribe
        return Response(mimetype="text/event-stream")
    referee = security.is_referee()
    counter: StreamCounter = current_app.extensions.setdefault("diablotin.streams", StreamCounter())
    client = security.client_address()
    refused = counter.enter(
        client,
        current_app.config["MAX_STREAMS"],
        current_app.config["MAX_STREAMS_PER_CLIENT"],
        referee,
    )
    if refused:
        raise ApiError(
            503,
            "busy",
            Said("{reason}: retrying", reason=refused),
            {"Retry-After": str(RETRY_AFTER_S)},
        )
    by_topic = {table.topic: table for table in tables}
    push = request.environ.get("diablotin.push") if request.method == "GET" else None
    if push is not None:  # the server takes the stream over once the snapshot is out
        pushed = push(PING, HEARTBEAT_S)

        def deliver(frame: bytes) -> bool:
            return bool(pushed.write(b"".join(_relay(service, frame, by_topic, referee))))

        sub = service.hub.subscribe(topics, deliver, ended=pushed.close)
    else:
        sub = service.hub.subscribe(topics)
    try:
        first = _snapshot(service, topics, tables, referee)
    except BaseException:
        sub.close()
        counter.leave(client)
        raise
    on_disconnect = request.environ.get("diablotin.on_disconnect")
    if push is not None:  # the server that offers push also tells when the phone has gone

        def left() -> None:  # the phone left, was dropped, or the service stops
            sub.close()
            counter.leave(client)

        request.environ["diablotin.on_disconnect"](left)
        body: Iterator[bytes] = iter([b"".join(first)])  # no known length: chunked
    else:
        if on_disconnect is not None:
            on_disconnect(sub.close)  # the phone left: free its slot now, not at the next ping
        body = _events(service, sub, first, by_topic, referee, lambda: counter.leave(client))
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache, no-transform"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


def _snapshot(
    service: Service, topics: list[str], tables: list[Table], referee: bool
) -> list[bytes]:
    frames = [b"retry: 10000\n\n"]
    if "games" in topics:
        frames.append(sse_frame("games", service.games()))
    if "box" in topics:
        frames.append(_box_status(service))
    for table in tables:
        frames += _game_frames(service, table, referee)
    return frames


def _box_status(service: Service) -> bytes:
    return sse_frame("box", {"event": "Status", "status": service.box_status()})


def _game_frames(service: Service, table: Table, referee: bool) -> list[bytes]:
    return [
        sse_frame(table.topic, game_view(table, referee)),
        sse_frame("extras", extras(service, table, referee)),
    ]


def _events(
    service: Service,
    sub: Subscription,
    first: list[bytes],
    tables: dict[str, Table],
    referee: bool,
    on_close: Callable[[], None],
) -> Iterator[bytes]:
    """The stream body: snapshot, then hub frames (re-rendered for the referee)."""
    # the first ping after 5-15 s: streams opened together (a room arriving, a reconnect
    # wave) do not all wake at the same instant every 15 s
    wait = random.uniform(HEARTBEAT_S / 3, HEARTBEAT_S)
    try:
        yield b"".join(first)
        while True:
            try:
                frame = sub.get(wait)
                wait = HEARTBEAT_S
            except EOFError:
                return  # cut off (too far behind) or the service is stopping
            if frame is None:
                yield PING
                continue
            yield b"".join(_relay(service, frame, tables, referee))
    finally:
        sub.close()
        on_close()


def _relay(service: Service, frame: bytes, tables: dict[str, Table], referee: bool) -> list[bytes]:
    topic = frame[7 : frame.index(b"\n")].decode() if frame.startswith(b"event: ") else ""
    if topic == "box":
        name = frame.split(b'"event":"', 1)[-1].split(b'"', 1)[0].decode()
        if name in _PATCHED_BOX_EVENTS:
            return [frame]
        return relayed_frames(service).get(frame, lambda: [frame, _box_status(service)])
    if referee and topic in tables:
        build = lambda: _game_frames(service, tables[topic], True)  # noqa: E731
        return relayed_frames(service).get(frame, build)
    return [frame]
