"""``[sound] speak``: the service speaks the events of the games it keeps."""

from __future__ import annotations

import subprocess

from controller import service as service_module
from controller.announce import Speaker
from controller.service import Service

from .conftest import make_config, wait_for


class HdmiSpeaker(Speaker):
    """A speaker on a box with an HDMI sound card; espeak-ng's runs are recorded."""

    def __init__(self, lang: str) -> None:
        def run(command: list[str]) -> subprocess.CompletedProcess[str]:
            out = "card 0: vc4hdmi [vc4-hdmi]\n" if command[0] == "aplay" else ""
            return subprocess.CompletedProcess(command, 0, out, "")

        super().__init__(lang, run=run)


def test_the_service_says_a_devil_pop_in_the_configured_language(tmp_path, monkeypatch):
    monkeypatch.setattr(service_module, "Speaker", HdmiSpeaker)
    config = make_config(tmp_path)
    config.sound.speak, config.sound.language = True, "de"
    svc = Service(config, think_s=0.01, face_delay_s=30, hide_delay_s=0.01)
    svc.start()
    try:
        gid = svc.new_game("sauteur", {"rule": "A"})
        table = svc.table(gid)
        wait_for(lambda: table.state.phase == "pop", what="the dice hidden")
        svc.box_play.press(gid, 2)
        wait_for(lambda: table.state.phase == "face", what="the die from key 2 out")
        svc.submit(gid, {"type": "face", "face": "devil"})
        speaker = svc.announcer.speaker
        wait_for(lambda: "Der Teufel zieht 6 Felder vor" in speaker.spoken, what="the words")
    finally:
        svc.stop()


def test_no_speaking_unless_the_config_asks(tmp_path):
    svc = Service(make_config(tmp_path))
    assert svc.announcer is None
