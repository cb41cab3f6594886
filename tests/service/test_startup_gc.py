"""Start-up runs with the cyclic garbage collector held (controller/startup.py): it is
stopped while the command imports, and running again, with start-up's objects frozen, by
the time anything is served or done."""

from __future__ import annotations

import gc
import os
import signal
import sys

import pytest

from controller import launch, startup
from controller.config import DATA_DIR_ENV
from controller.server import serve
from controller.service import Service

from .conftest import make_config


@pytest.fixture(autouse=True)
def _collector_restored():
    yield
    gc.enable()
    gc.unfreeze()


def test_hold_stops_the_collector_and_release_freezes_start_up_and_starts_it_again():
    frozen = gc.get_freeze_count()
    startup.hold()
    assert not gc.isenabled()
    made_at_start_up = [[n] for n in range(1000)]  # tracked objects
    startup.release()
    assert gc.isenabled()
    assert gc.get_freeze_count() >= frozen + len(made_at_start_up)


def test_release_without_a_hold_freezes_nothing():
    assert gc.isenabled()
    frozen = gc.get_freeze_count()
    startup.release()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen


def test_the_server_collects_again_before_it_serves(tmp_path):
    service = Service(make_config(tmp_path))
    service.start()
    startup.hold()  # as `diablotin serve` does before its imports
    seen: list[bool] = []

    def ready(server) -> None:
        seen.append(gc.isenabled())
        os.kill(os.getpid(), signal.SIGTERM)

    serve(service, "127.0.0.1", 0, 4, log=lambda line: None, ready=ready)
    assert seen == [True]


def test_the_installed_command_collects_again_once_it_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    monkeypatch.setattr(sys, "argv", ["diablotin", "config", "--help"])
    with pytest.raises(SystemExit):
        launch.main()  # argparse's --help exits from inside the command's parser
    assert "usage" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["diablotin", "games"])
    assert launch.main() in (0, 1)
    assert gc.isenabled()


def test_a_serve_that_stops_before_listening_collects_again(tmp_path, monkeypatch):
    from controller import cli

    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert cli.main(["serve", "--camera", "bogus"]) == 78  # a config error, before any start
    assert gc.isenabled()


def test_a_collector_stopped_by_someone_else_stays_stopped():
    gc.disable()
    frozen = gc.get_freeze_count()
    startup.hold()
    startup.release()
    assert not gc.isenabled()  # theirs to start again
    assert gc.get_freeze_count() == frozen
