"""controller.server: the console banner, the address, and stopping on SIGTERM."""

from __future__ import annotations

import http.client
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest

from controller.server import banner, bound_port, dashboard_url, serve, stop_server

from .conftest import PIN, make_service

ROOT = Path(__file__).resolve().parents[2]


def test_dashboard_url() -> None:
    assert dashboard_url("127.0.0.1", 8000) == "http://127.0.0.1:8000/"
    assert dashboard_url("192.168.1.20", 80) == "http://192.168.1.20:80/"
    assert dashboard_url("::1", 8000) == "http://[::1]:8000/"
    wildcard = dashboard_url("0.0.0.0", 8000)
    assert re.fullmatch(r"http://\d+\.\d+\.\d+\.\d+:8000/", wildcard)


def test_banner_has_the_address_a_qr_code_and_the_pin() -> None:
    text = banner("http://192.168.1.20:8000/", "123456")
    assert "http://192.168.1.20:8000/" in text
    assert "Referee PIN: 123456" in text
    qr_lines = [line for line in text.splitlines() if set(line) <= set(" ▀▄█") and line]
    assert len(qr_lines) >= 12  # a version-2 code at least, two modules per line
    assert len({len(line) for line in qr_lines}) == 1  # square, aligned


def test_banner_speaks_the_consoles_language(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LANGUAGE", "de")
    text = banner("http://192.168.1.20:8000/", "123456")
    assert "Diablotin-Dashboard: http://192.168.1.20:8000/" in text
    assert "Schiedsrichter-PIN: 123456" in text
    assert "Beenden mit Strg+C (die Spulen werden dabei ausgeschaltet)." in text


def test_serve_answers_then_stops_the_service(tmp_path: Path) -> None:
    service = make_service(tmp_path, hide_delay_s=3600.0)
    lines: list[str] = []
    servers: list[Any] = []
    ready = threading.Event()

    def on_ready(server: Any) -> None:
        servers.append(server)
        ready.set()

    thread = threading.Thread(
        target=serve, args=(service, "127.0.0.1", 0, 16, lines.append), kwargs={"ready": on_ready}
    )
    thread.start()
    assert ready.wait(10)
    port = bound_port(servers[0])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/api/games")
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.getheader("Server") == "diablotin"
    conn.close()
    stop_server(servers[0])
    thread.join(10)
    assert not thread.is_alive()
    assert service.started is False  # serve always stops the service (coils off)
    assert f"http://127.0.0.1:{port}/" in lines[0] and f"Referee PIN: {PIN}" in lines[0]
    assert lines[-1] == "Diablotin stopped: coils off."


def test_sigterm_stops_the_server_and_switches_coils_off(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from controller.config import Config
        from controller.service import Service
        from controller.server import serve
        config = Config(data_dir=Path({str(tmp_path)!r}))
        config.server.referee_pin = "{PIN}"
        service = Service(config)
        service.start()
        stop = service.stop
        def stop_and_say():
            stop()
            print("SERVICE STOPPED, started =", service.started, flush=True)
        service.stop = stop_and_say
        serve(service, "127.0.0.1", 0, 16, log=lambda text: print(text, flush=True))
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout is not None
    port = None
    for line in proc.stdout:
        found = re.search(r"dashboard: http://127\.0\.0\.1:(\d+)/", line)
        if found:
            port = int(found.group(1))
        if line.startswith("Referee PIN"):
            break
    assert port is not None
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", "/")
    assert conn.getresponse().status == 200
    conn.close()
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 0, out
    assert "SERVICE STOPPED, started = False" in out
    assert out.rstrip().endswith("Diablotin stopped: coils off.")
