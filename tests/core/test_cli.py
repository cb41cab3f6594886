"""The ``diablotin`` command as people expect it: help on every option, ``config`` prints a
config file that reads back the same, a closed pipe ends quietly, one timestamp a log line
and warnings at the warning priority under systemd's journal."""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller import cli, config
from controller.config import CONFIG_ORDER, Config, find_config_path, load_config

REPO = Path(__file__).resolve().parents[2]


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` and every sub-command's parser, depth first."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases share a parser
                found += _parsers(child)
    return found


def test_every_command_and_option_has_help() -> None:
    missing = []
    parsers = _parsers(cli.build_parser())
    assert len(parsers) > 15
    for parser in parsers:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helped = {choice.dest for choice in action._choices_actions if choice.help}
                missing += [
                    f"{parser.prog} {name}" for name in action.choices if name not in helped
                ]
            elif not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{parser.prog} {'/'.join(action.option_strings) or action.dest}")
    assert missing == []


def test_config_help_states_the_real_fallback_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helps = {a.dest: a.help for a in cli.build_parser()._actions}
    assert CONFIG_ORDER in helps["config"]
    order = [CONFIG_ORDER.index(word) for word in ("--config", "$DIABLOTIN_CONFIG", "/etc/")]
    assert order == sorted(order)
    (tmp_path / "diablotin.toml").write_text("[server]\nport = 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DIABLOTIN_CONFIG", raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "etc" / "diablotin.toml")
    assert find_config_path(None) is None  # the current directory is not searched
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "diablotin.toml")
    assert find_config_path(None) == tmp_path / "diablotin.toml"
    monkeypatch.setenv("DIABLOTIN_CONFIG", "env.toml")
    assert find_config_path(None) == Path("env.toml")
    assert find_config_path("flag.toml") == Path("flag.toml")


def _printed_config(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert cli.main([*args, "config"]) == 0
    return capsys.readouterr().out


def _same(a: Config, b: Config) -> None:
    assert dataclasses.replace(a, source=None) == dataclasses.replace(b, source=None)


def test_config_prints_toml_that_reads_back_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DIABLOTIN_CONFIG", raising=False)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "none.toml")
    (tmp_path / "boards").mkdir()
    board = REPO / "controller" / "games" / "tails" / "board.json"
    (tmp_path / "boards" / "mine.json").write_bytes(board.read_bytes())
    source = tmp_path / "diablotin.toml"
    source.write_text(
        '[box]\nbackend = "virtual"\nseed = 7\n[limits]\npulse_ms = 42.5\nmax_duty = 0.05\n'
        '[server]\nport = 8123\nreferee_pin = "4321"\nallowed_hosts = ["box.lan"]\n'
        '[data]\ndir = "state"\n[sauteur]\nrule = "B"\nrounds = 3\n'
        'number_faces = [1, 2, "devil"]\n[tails]\nboard = "boards/mine.json"\n'
        '[camera]\nkind = "usb:1"\nread_s = 1.5\n'
    )
    for args in ((), ("--config", str(source)), ("--config", str(source), "--data-dir", "x")):
        text = _printed_config(capsys, *args)
        assert text.startswith("# Diablotin's effective configuration; from: ")
        elsewhere = tmp_path / "elsewhere" / "copy.toml"
        elsewhere.parent.mkdir(exist_ok=True)
        elsewhere.write_text(text)
        _same(load_config(elsewhere), cli.load(cli.build_parser().parse_args([*args, "config"])))
        assert (
            _printed_config(capsys, "--config", str(elsewhere)).split("\n", 1)[1]
            == (text.split("\n", 1)[1])
        )
    assert 'dir = "' + str((tmp_path / "state").resolve()) + '"' in _printed_config(
        capsys, "--config", str(source)
    )


def _run(*args: str, **options: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DIABLOTIN_CONFIG", "JOURNAL_STREAM")}
    env.update(options.pop("env", {}))  # type: ignore[call-overload]
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        env=env,
        text=True,
        timeout=60,
        **options,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize(
    "args, status",
    [
        (["config"], cli.EXIT_BROKEN_PIPE),
        (["sim", "sauteur", "--games", "3"], cli.EXIT_BROKEN_PIPE),
        (["--help"], 0),  # argparse ignores a failed write of the help itself
    ],
)
def test_a_closed_pipe_ends_quietly(args: list[str], status: int) -> None:
    """Like ``diablotin config | head -0``: the reader is gone before anything is written."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = _run("-m", "controller.cli", *args, stdout=write, stderr=subprocess.PIPE)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (status, "")


def test_head_reads_the_first_line_and_nothing_else_is_said() -> None:
    script = f"'{sys.executable}' -m controller.cli config | head -1"
    result = subprocess.run(
        ["sh", "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert result.stdout.startswith("# Diablotin's effective configuration")
    assert result.stdout.count("\n") == 1
    assert result.stderr == ""


LOG_SOME = (
    "import logging, warnings; from controller import logs; logs.configure_logging(False); "
    "log = logging.getLogger('controller.demo'); log.info('started'); "
    "log.warning('sensor 2 flapping'); log.error('two\\nlines'); warnings.warn('old key')"
)


def test_log_lines_carry_one_timestamp_on_a_terminal_or_a_file() -> None:
    result = _run("-c", LOG_SOME, capture_output=True)
    lines = result.stderr.splitlines()
    stamp = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}"
    assert re.fullmatch(stamp + r" INFO controller\.demo: started", lines[0]), lines
    assert re.fullmatch(stamp + r" WARNING controller\.demo: sensor 2 flapping", lines[1])
    assert re.fullmatch(stamp + r" ERROR controller\.demo: two", lines[2])
    assert lines[3] == "lines"
    assert re.fullmatch(stamp + r" WARNING py\.warnings: .*UserWarning: old key", lines[4])
    assert all(len(re.findall(r"\d\d:\d\d:\d\d", line)) <= 1 for line in lines)


def test_under_journald_lines_carry_the_priority_and_no_timestamp(tmp_path: Path) -> None:
    """stderr connected to the journal (``$JOURNAL_STREAM`` = its device:inode): journald
    stamps the time, and ``journalctl -p warning`` finds the ``<4>`` lines."""
    stream = tmp_path / "journal-stream"
    with stream.open("w") as handle:
        status = os.fstat(handle.fileno())
        env = {"JOURNAL_STREAM": f"{status.st_dev}:{status.st_ino}"}
        assert _run("-c", LOG_SOME, stderr=handle, env=env).returncode == 0
    lines = stream.read_text().splitlines()
    assert lines[:4] == [
        "<6>controller.demo: started",
        "<4>controller.demo: sensor 2 flapping",
        "<3>controller.demo: two",
        "<3>lines",
    ]
    assert re.fullmatch(r"<4>py\.warnings: .*UserWarning: old key", lines[4])
    assert not re.search(r"\d\d:\d\d:\d\d", stream.read_text())
    # JOURNAL_STREAM inherited from a parent whose stderr went to the journal: not ours
    result = _run("-c", LOG_SOME, capture_output=True, env=env)
    assert result.stderr.splitlines()[0].endswith(" INFO controller.demo: started")


DELEGATED = [
    *(["bench", area, "--help"] for area in cli.BENCH_AREAS),
    ["faces", "--help"],
    *(["faces", do, "--help"] for do in ("calibrate", "read", "evaluate")),
    ["reliability", "--help"],
]


def test_the_tools_behind_bench_faces_and_reliability_have_help_on_every_option(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Their own parsers are made when they run: record each argument as it is added."""
    missing: list[str] = []
    add_argument = argparse._ActionsContainer.add_argument

    def recording(container: argparse._ActionsContainer, *args: Any, **kwargs: Any) -> Any:
        action = add_argument(container, *args, **kwargs)
        if not action.help or action.help == argparse.SUPPRESS:
            missing.append(f"{getattr(container, 'prog', '?')} {args}")
        return action

    monkeypatch.setattr(argparse._ActionsContainer, "add_argument", recording)
    pytest.importorskip("cv2")  # diablotin faces needs diablotin[camera]
    for argv in DELEGATED:
        with pytest.raises(SystemExit) as done:
            cli.main(argv)
        assert done.value.code == 0, argv
        assert "usage: diablotin " in capsys.readouterr().out, argv
    assert sorted(set(missing)) == []


def test_a_config_error_under_journald_is_an_error(tmp_path: Path) -> None:
    """What stops the service reaches ``journalctl -p warning`` (status 78: EX_CONFIG)."""
    bad = tmp_path / "bad.toml"
    bad.write_text("[limits]\npulse_ms = 150\n")
    stream = tmp_path / "journal-stream"
    with stream.open("w") as handle:
        status = os.fstat(handle.fileno())
        env = {"JOURNAL_STREAM": f"{status.st_dev}:{status.st_ino}"}
        args = ("-m", "controller.cli", "--config", str(bad), "serve")
        assert _run(*args, stderr=handle, env=env).returncode == 78
    assert stream.read_text().startswith(f"<3>diablotin: config error: {bad}: limits.pulse_ms")
    plain = _run(*args, capture_output=True)
    assert plain.stderr.startswith(f"diablotin: config error: {bad}: limits.pulse_ms")
