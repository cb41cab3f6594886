"""schemathesis against the served OpenAPI document (issue 26): the real server (waitress)
on 127.0.0.1, the referee PIN in every request so the referee's operations are exercised.
Bounded here (``DIABLOTIN_SCHEMATHESIS_S``, default 30 s); ``diablotin reliability``
runs it longer against ``diablotin serve``.

The app gets a PIN throttle that never locks (schemathesis sends wrong PINs to ``POST
/api/session``; the real throttle would then pause PIN checks for everyone and leave the
rest untested) and system commands that always fail (restart, poweroff and the clock are
fuzzed without touching this machine). schemathesis is a dev dependency: without it this
test fails (it does not skip).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler
from wsgiref.simple_server import make_server as make_wsgi_server

import pytest

from controller.reliability.fuzz import run_schemathesis
from controller.server import bound_port, make_server
from controller.system import System
from controller.web import create_app
from controller.web.security import PinThrottle

from .conftest import PIN, make_service

SECONDS = float(os.environ.get("DIABLOTIN_SCHEMATHESIS_S", "30"))


def _refused(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.CompletedProcess(list(command), 1, "", "not in the tests")


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[str]:
    service = make_service(tmp_path, think_s=3600.0, face_delay_s=3600.0, hide_delay_s=3600.0)
    app = create_app(service, throttle=PinThrottle(free_tries=10**9, global_per_minute=10**9))
    app.extensions["diablotin.system"] = System(run=_refused, timesync_flag=tmp_path / "none")
    server = make_server(app, "127.0.0.1", 0, 8)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{bound_port(server)}"
    finally:
        service.hub.close_all()
        server.stop()
        service.stop()


@pytest.mark.timeout(SECONDS + 180)
def test_schemathesis_finds_nothing(base_url: str, tmp_path: Path) -> None:
    run = run_schemathesis(base_url, PIN, SECONDS, report_dir=tmp_path / "report")
    assert run.cases > 100, run.output
    assert run.ok, run.output


LOOSE_DOC = {
    "openapi": "3.0.3",
    "info": {"title": "a server that accepts what its document refuses", "version": "1"},
    "paths": {
        "/api/things": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {
                            "schema": {
                                "type": "object",
                                "required": ["n"],
                                "properties": {"n": {"type": "integer"}},
                            }
                        }
                    },
                },
                "responses": {
                    "200": {
                        "description": "OK",
                        "content": {"application/json": {"schema": {"type": "object"}}},
                    }
                },
            }
        }
    },
}


def _loose_app(environ: dict[str, object], start: Callable[..., object]) -> list[bytes]:
    body = json.dumps(LOOSE_DOC if environ["PATH_INFO"] == "/api/openapi.json" else {})
    start("200 OK", [("Content-Type", "application/json")])
    return [body.encode()]


@pytest.mark.timeout(120)
def test_a_failure_is_reported_with_its_operation_and_request() -> None:
    """ST201 once came as its title alone (the report directory is temporary): each failure
    now names the operation and the request that reproduces it."""

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

    server = make_wsgi_server("127.0.0.1", 0, _loose_app, handler_class=Quiet)  # type: ignore[arg-type]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = run_schemathesis(f"http://127.0.0.1:{server.server_port}", PIN, 3)
    finally:
        server.shutdown()
    assert not run.ok and run.failures >= 1, run.output
    st201 = [line for line in run.failed if line.startswith("ST201")]
    assert st201, run.failed
    assert " in POST /api/things: curl -X POST " in st201[0]
    assert PIN in st201[0]  # the header it was sent with
