"""The live stream: snapshot on connect, then each change; referee frames re-rendered."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from controller.service import Service

from .conftest import login


def events(chunks: Iterator[bytes], count: int) -> list[tuple[str, object]]:
    """Read ``count`` SSE events (name, data) from a streaming response."""
    out: list[tuple[str, object]] = []
    buffer = b""
    while len(out) < count:
        buffer += next(chunks)
        *frames, buffer = buffer.split(b"\n\n")
        for frame in frames:
            fields = dict(
                line.split(": ", 1) for line in frame.decode().splitlines() if ": " in line
            )
            if "event" in fields:
                out.append((fields["event"], json.loads(fields["data"])))
    return out


def test_spectator_gets_snapshot_then_changes(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    resp = client.get(f"/stream?topics=games,game:{game_id}", buffered=False)
    assert resp.status_code == 200
    assert resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"].startswith("no-cache")
    chunks = iter(resp.response)
    first = events(chunks, 3)
    assert [name for name, _ in first] == ["games", f"game:{game_id}", "extras"]
    view = first[1][1]
    assert isinstance(view, dict) and view["version"] == 0 and view["state"]["phase"] == "hiding"
    extras = first[2][1]
    assert isinstance(extras, dict) and "legal" not in extras
    service.table(game_id).submit({"type": "hidden"})
    ((name, data),) = events(chunks, 1)
    assert name == f"game:{game_id}"
    assert isinstance(data, dict) and data["version"] == 1 and data["state"]["phase"] == "pop"
    resp.close()
    assert service.hub.subscriber_count == 0


def test_referee_gets_legal_actions_with_each_change(client: FlaskClient, service: Service) -> None:
    game_id = service.new_game("sauteur", {})
    login(client)
    resp = client.get(f"/stream?topics=game:{game_id}", buffered=False)
    chunks = iter(resp.response)
    first = events(chunks, 2)
    assert first[1][0] == "extras"
    assert first[1][1]["legal"] == [{"type": "hidden"}]  # type: ignore[index]
    service.table(game_id).submit({"type": "hidden"})
    (name, view), (extra_name, extras) = events(chunks, 2)
    assert name == f"game:{game_id}" and extra_name == "extras"
    assert view["version"] == 1  # type: ignore[index]
    legal = extras["legal"]  # type: ignore[index]
    assert [a["key"] for a in legal] == [1, 2, 3, 4]
    resp.close()


def test_box_events_and_status(client: FlaskClient, service: Service) -> None:
    resp = client.get("/stream?topics=box", buffered=False)
    chunks = iter(resp.response)
    ((name, status),) = events(chunks, 1)
    assert name == "box" and status["event"] == "Status"  # type: ignore[index]
    service.notice("hello table")
    (_, notice), (_, fresh) = events(chunks, 2)
    assert notice["event"] == "Notice" and notice["text"] == "hello table"  # type: ignore[index]
    assert fresh["event"] == "Status"  # type: ignore[index]
    assert fresh["status"]["notices"][-1]["text"] == "hello table"  # type: ignore[index]
    resp.close()


def test_a_box_events_fresh_status_is_built_once_for_every_phone(
    client: FlaskClient, service: Service, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Status after a box event is the same for every phone: the fan-out thread (one
    for all phones) builds it once per event, not once per phone (50 phones: 6.7 ms)."""
    phones = [client.get("/stream?topics=box", buffered=False) for _ in range(3)]
    streams = [iter(resp.response) for resp in phones]
    for chunks in streams:
        events(chunks, 1)  # the snapshot
    built = []
    status = service.box_status
    monkeypatch.setattr(service, "box_status", lambda: built.append(1) or status())
    service.notice("hello table")
    for chunks in streams:
        (_, notice), (_, fresh) = events(chunks, 2)
        assert notice["event"] == "Notice" and fresh["event"] == "Status"  # type: ignore[index]
    assert len(built) == 1
    for resp in phones:
        resp.close()


def test_bad_topics(client: FlaskClient, service: Service) -> None:
    assert client.get("/stream").status_code == 400
    assert client.get("/stream?topics=games,games").status_code == 400
    assert client.get("/stream?topics=secrets").status_code == 400
    assert client.get("/stream?topics=game:999").status_code == 404
    assert client.get("/stream?topics=a,b,c,d,e").status_code == 400
    assert service.hub.subscriber_count == 0


def test_too_many_streams_are_refused_with_retry_after(service: Service) -> None:
    from controller.web import create_app

    app: Flask = create_app(service, max_streams=2)
    client = app.test_client()
    open_ = [client.get("/stream?topics=games", buffered=False) for _ in range(2)]
    resp = client.get("/stream?topics=games")
    assert resp.status_code == 503
    assert resp.headers["Retry-After"] == "2"
    for r in open_:
        r.close()
    again = client.get("/stream?topics=games", buffered=False)
    assert again.status_code == 200
    again.close()


def test_stream_ends_when_the_service_stops(client: FlaskClient, service: Service) -> None:
    resp = client.get("/stream?topics=games", buffered=False)
    chunks = iter(resp.response)
    events(chunks, 1)
    service.hub.close_all()
    assert list(chunks) == []
