"""Tables (rules + journal + hub) and the live-update hub."""

import json
import threading
from dataclasses import dataclass

import pytest

from controller.games.base import Refused, replay
from controller.hub import Hub, sse_frame
from controller.journal import Journal
from controller.table import Table


@dataclass(frozen=True)
class Count:
    total: int
    limit: int


class CountTo:
    """A tiny game: add 1 or 2 until the limit; going over is refused."""

    name = "count"

    def setup(self, options):
        if options.get("limit", 5) < 1:
            raise Refused("limit must be positive", "bad-option")
        return Count(0, options.get("limit", 5))

    def apply(self, state, action):
        if action["type"] != "add" or action.get("n") not in (1, 2):
            raise Refused("add 1 or 2", "bad-action")
        if state.total + action["n"] > state.limit:
            raise Refused("that goes over the limit", "over")
        return Count(state.total + action["n"], state.limit)

    def legal_actions(self, state):
        return [{"type": "add", "n": n} for n in (1, 2) if state.total + n <= state.limit]

    def is_over(self, state):
        return state.total == state.limit

    def view(self, state, viewer):
        return {"total": state.total, "limit": state.limit}


@pytest.fixture
def setup(tmp_path):
    journal = Journal(tmp_path / "j.sqlite3")
    hub = Hub()
    gid = journal.create_game("count", {"limit": 4})
    yield journal, hub, gid
    journal.close()


def test_submit_journals_then_publishes(setup):
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    sub = hub.subscribe([table.topic])
    table.submit({"type": "add", "n": 2})
    assert table.view("public")["state"] == {"total": 2, "limit": 4}
    assert journal.actions(gid) == [{"type": "add", "n": 2}]
    frame = sub.get(1).decode()
    assert frame.startswith(f"event: game:{gid}\n")
    assert json.loads(frame.split("data: ", 1)[1])["state"]["total"] == 2


def test_refusal_changes_nothing(setup):
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    table.submit({"type": "add", "n": 2})
    sub = hub.subscribe([table.topic])
    for bad in ({"type": "add", "n": 3}, {"type": "nope"}, {"n": 1}, "add"):
        with pytest.raises(Refused):
            table.submit(bad)
    table.submit({"type": "add", "n": 2})
    with pytest.raises(Refused, match="over the limit"):
        table.submit({"type": "add", "n": 1})
    assert journal.actions(gid) == [{"type": "add", "n": 2}] * 2
    assert table.version == 2
    assert sub.get(0.1) is not None and sub.get(0.01) is None  # only the accepted one published


def test_undo_then_redo_equals_state_and_resumes(setup):
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    table.submit({"type": "add", "n": 1})
    table.submit({"type": "add", "n": 2})
    before = table.state
    table.undo()
    assert table.state.total == 1
    table.submit({"type": "add", "n": 2})
    assert table.state == before
    assert table.finished is False
    table.submit({"type": "add", "n": 1})
    assert table.finished is True and journal.game(gid).finished is not None
    resumed = Table(CountTo(), journal, gid, hub)
    assert resumed.state == table.state and resumed.version == table.version == 5
    assert replay(CountTo(), {"limit": 4}, journal.actions(gid)) == table.state


def test_undo_with_nothing_is_refused(setup):
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    with pytest.raises(Refused, match="nothing to undo"):
        table.undo()
    assert journal.entries(gid) == []


def test_hub_cuts_off_a_stalled_subscriber():
    hub = Hub(max_backlog=3)
    slow = hub.subscribe(["t"])
    for n in range(5):
        hub.publish("t", {"n": n})
    assert hub.flush()
    assert [json.loads(slow.get(0).split(b"data: ")[1])["n"] for _ in range(3)] == [0, 1, 2]
    with pytest.raises(EOFError):
        slow.get(0)


def test_hub_topics_and_unsubscribe():
    hub = Hub()
    a, b = hub.subscribe(["x"]), hub.subscribe(["y", "x"])
    assert hub.publish("y", 1) == 1
    assert hub.flush()
    assert a.get(0) is None and b.get(0) is not None
    a.close()
    assert hub.subscriber_count == 1 and hub.publish("x", 2) == 1


def test_hub_wakes_a_waiting_reader():
    hub = Hub()
    sub = hub.subscribe(["t"])
    got = []
    reader = threading.Thread(target=lambda: got.append(sub.get(5)))
    reader.start()
    hub.publish("t", {"hello": "é"})
    reader.join(5)
    assert got == [sse_frame("t", {"hello": "é"}, 1)]


def test_publish_returns_before_the_fan_out_and_keeps_the_order():
    """The publisher's thread does not build, serialise or deliver: the hub's fan-out
    thread does, once per event, in publishing order; nobody subscribed costs nothing."""
    hub = Hub()
    built: list[str] = []
    assert hub.publish("t", lambda: built.append("nobody") or {}) == 0
    sub = hub.subscribe(["t"])
    release = threading.Event()

    def slow() -> dict[str, int]:
        release.wait(5)
        built.append(threading.current_thread().name)
        return {"n": 1}

    assert hub.publish("t", slow) == 1  # returns while the fan-out thread waits
    hub.publish("t", {"n": 2})
    assert sub.get(0) is None
    release.set()
    assert hub.flush()
    assert [json.loads(sub.get(0).split(b"data: ")[1])["n"] for _ in range(2)] == [1, 2]
    assert built == ["hub-fanout"]
    late = hub.subscribe(["t"])
    hub.close_all()
    assert late.closed


def test_a_failing_event_does_not_stop_the_live_updates():
    hub = Hub()
    sub = hub.subscribe(["t"])
    hub.publish("t", lambda: 1 / 0)
    hub.publish("t", {"n": 3})
    assert hub.flush()
    assert json.loads(sub.get(0).split(b"data: ")[1]) == {"n": 3}


def test_a_view_never_waits_for_a_commit(setup):
    """A slow disk (an SD card's 20 ms fsync, or worse) holds the action being committed,
    not the pages: a view during the commit is the last committed one, whole."""
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    entered, release = threading.Event(), threading.Event()
    real_append = journal.append

    def slow_append(*args, **kwargs):
        entered.set()
        release.wait(5)
        return real_append(*args, **kwargs)

    journal.append = slow_append  # type: ignore[method-assign]
    writer = threading.Thread(target=table.submit, args=({"type": "add", "n": 2},))
    writer.start()
    assert entered.wait(5)
    during = table.view("public")  # would block on the table's lock before
    release.set()
    writer.join(5)
    assert (during["version"], during["state"]["total"]) == (0, 0)
    after = table.view("public")
    assert (after["version"], after["state"]["total"]) == (1, 2)


def test_a_thread_holds_its_live_updates_until_it_releases_them():
    """The web server holds a request's updates until its reply is handed over; what is
    published after them on the same topic waits behind them (a game's versions in order),
    another topic's do not."""
    hub = Hub()
    sub = hub.subscribe(["t"])
    box = hub.subscribe(["box"])
    hub.hold()
    hub.publish("t", {"n": 1})
    for topic, n in (("t", 2), ("box", 3)):  # not held
        other = threading.Thread(target=hub.publish, args=(topic, {"n": n}))
        other.start()
        other.join(5)
    assert not hub.flush(0.2) and hub.holding
    assert json.loads(box.get(1).split(b"data: ")[1]) == {"n": 3}
    assert sub.get(0) is None
    hub.release()
    assert hub.flush() and not hub.holding
    assert [json.loads(sub.get(0).split(b"data: ")[1]) for _ in range(2)] == [{"n": 1}, {"n": 2}]


def test_updates_held_by_two_requests_go_out_in_the_order_they_were_published():
    """Two requests in turn: the first one's reply is read and the second one's change made
    and released before the first thread releases its own (``reliability``'s kill -9 run
    saw a stream go 1, 3, 2). Versions must still go out in order."""
    hub = Hub()
    sub = hub.subscribe(["game:1"])
    first_published, second_done = threading.Event(), threading.Event()

    def first() -> None:
        hub.hold()
        hub.publish("game:1", {"version": 2})
        first_published.set()
        second_done.wait(5)
        hub.release()

    def second() -> None:
        first_published.wait(5)
        hub.hold()
        hub.publish("game:1", {"version": 3})
        hub.release()
        second_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(5)
    assert hub.flush()
    got = [json.loads(sub.get(1).split(b"data: ")[1])["version"] for _ in range(2)]
    assert got == [2, 3]


class CountedCountTo(CountTo):
    """CountTo that counts its ``apply`` calls."""

    def __init__(self):
        self.applied = 0

    def apply(self, state, action):
        self.applied += 1
        return super().apply(state, action)


def test_undo_takes_back_the_kept_state_and_replays_only_past_the_window(setup, monkeypatch):
    import controller.table as table_module

    journal, hub, _ = setup
    monkeypatch.setattr(table_module, "UNDO_STATES", 3)
    gid = journal.create_game("count", {"limit": 40})
    rules = CountedCountTo()
    table = Table(rules, journal, gid, hub)
    states = [table.state]
    for n in (1, 2, 1, 2, 1):
        table.submit({"type": "add", "n": n})
        states.append(table.state)
    rules.applied = 0
    for back in range(1, 4):  # the last three are kept: no replay
        table.undo()
        assert table.state is states[-1 - back]
    assert rules.applied == 0
    table.undo()  # past the window: rebuilt from the remaining actions
    assert table.state == states[1] and rules.applied == 1
    table.undo()
    assert table.state == states[0] and table.version == 10
    assert Table(CountTo(), journal, gid, hub).state == table.state


def test_the_finished_flag_is_written_with_the_entry_in_one_transaction(setup, monkeypatch):
    journal, hub, gid = setup
    table = Table(CountTo(), journal, gid, hub)
    writes = []
    real_write = journal._write
    monkeypatch.setattr(journal, "_write", lambda work: writes.append(1) or real_write(work))
    table.submit({"type": "add", "n": 2})
    table.submit({"type": "add", "n": 2})  # the game ends with it
    assert table.finished is True and journal.game(gid).finished is not None
    table.undo()  # and reopens with this one
    assert table.finished is False and journal.game(gid).finished is None
    assert len(writes) == 3  # one commit per entry, the flag inside it


def test_a_view_is_built_once_per_change_and_viewer(setup, monkeypatch):
    journal, hub, gid = setup
    rules = CountTo()
    built: list[str] = []
    original = rules.view
    monkeypatch.setattr(
        rules, "view", lambda state, viewer: built.append(viewer) or original(state, viewer)
    )
    table = Table(rules, journal, gid, hub)
    first = table.view("public")
    assert table.view("public") is first and table.view("referee") is table.view("referee")
    assert built == ["public", "referee"]
    table.submit({"type": "add", "n": 1})
    after = table.view("public")
    assert after is not first and after["version"] == 1 and first["version"] == 0
    assert after["state"] == {"total": 1, "limit": 4}
    assert built == ["public", "referee", "public"]


def test_hub_knows_who_listens_to_a_topic():
    hub = Hub()
    sub = hub.subscribe(["game:1"])
    assert hub.subscribed("game:1") and not hub.subscribed("games")
    sub.close()
    assert not hub.subscribed("game:1")


def test_a_topic_is_listened_to_until_its_last_subscription_ends():
    hub = Hub()
    first, second = hub.subscribe(["game:1", "games"]), hub.subscribe(["game:1"])
    first.close()
    first.close()  # twice: harmless
    assert hub.subscribed("game:1") and not hub.subscribed("games")
    assert hub.publish("game:1", {"v": 1}) == 1
    second.close()
    assert not hub.subscribed("game:1")
    assert hub.publish("game:1", {"v": 2}) == 0
