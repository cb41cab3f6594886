"""Config: defaults work on a laptop; bad files are refused with file, key and reason."""

from pathlib import Path

import pytest

from controller.config import ConfigError, find_config_path, load_config
from controller.games.sauteur.config import SauteurSection
from controller.games.tails.config import TailsSection


def write(tmp_path, text):
    path = tmp_path / "diablotin.toml"
    path.write_text(text)
    return path


def test_defaults_work_on_a_laptop():
    cfg = load_config(None)
    assert cfg.box.backend == "simulated" and cfg.box.pin_factory == "mock"
    assert cfg.box.limits.pulse_ms == 30 and cfg.box.pins.name == "pins.toml"
    assert cfg.box.pins.is_file()


def test_a_full_file(tmp_path):
    path = write(
        tmp_path,
        """
[box]
backend = "gpio"
pin_factory = "lgpio"
serial_port = "/dev/ttyACM0"
[limits]
pulse_ms = 40
[server]
port = 8123
referee_pin = "4321"
[data]
dir = "state"
[sauteur]
rule = "B"
number_faces = [1, 2, 3, 4, 5, "devil"]
""",
    )
    cfg = load_config(path)
    assert (cfg.box.backend, cfg.box.pin_factory, cfg.box.limits.pulse_ms) == ("gpio", "lgpio", 40)
    assert cfg.server.port == 8123 and cfg.server.referee_pin == "4321"
    assert cfg.data_dir == (tmp_path / "state").resolve()
    assert cfg.section("sauteur", SauteurSection).rule == "B"
    assert cfg.section("sauteur", SauteurSection).number_faces[-1] == "devil"


@pytest.mark.parametrize(
    "text, key, reason",
    [
        ("[box]\nbakend = 'gpio'\n", "box.bakend", "unknown key"),
        ("[boxes]\n", "boxes", "unknown section"),
        ("[box]\nbackend = 'wifi'\n", "box.backend", "not one of"),
        ("[box]\npin_factory = 'pigpio'\n", "box.pin_factory", "not one of"),
        ("[limits]\npulse_ms = 150\n", "limits.pulse_ms", "100"),
        ("[limits]\npulse_ms = 'long'\n", "limits.pulse_ms", "expected"),
        ("[limits]\nmin_gap_ms = 100\n", "limits.min_gap_ms", "250"),
        ("[limits]\nmax_duty = 0.5\n", "limits.max_duty", "10 %"),
        ("[server]\nport = 70000\n", "server.port", "0-65535"),
        ("[server]\nreferee_pin = 'abc'\n", "server.referee_pin", "digits"),
        ("[server]\nport = true\n", "server.port", "expected int"),
        ("[sauteur]\nrule = 'C'\n", "sauteur.rule", "'A' or 'B'"),
        ("[sauteur]\nnumber_faces = [0]\n", "sauteur.number_faces", "1-99"),
        ("[teufel]\ncolours = ['red']\n", "teufel.colours", "six"),
        ("[box]\npins = 'nowhere.toml'\n", "box.pins", "no pin map"),
        ("box = [", "", "not valid TOML"),
    ],
)
def test_bad_values_name_file_key_reason(tmp_path, text, key, reason):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path)) and key in message and reason in message


@pytest.mark.parametrize(
    "key, value, reason",
    [
        ("min_gap_ms", "nan", "finite"),
        ("min_gap_ms", "inf", "finite"),
        ("min_gap_ms", "1e6", "[250, 60000] ms"),
        ("pulse_ms", "nan", "finite"),
        ("pulse_ms", "-inf", "finite"),
        ("pulse_ms", "0", "(0, 100] ms"),
        ("max_duty", "nan", "finite"),
        ("max_duty", "0", "10 %"),
        ("debounce_ms", "nan", "finite"),
        ("debounce_ms", "0.5", "[1, 500] ms"),
        ("debounce_ms", "501", "[1, 500] ms"),
        ("duty_window_s", "nan", "fixed at 10 s"),
        ("duty_window_s", "inf", "fixed at 10 s"),
        ("duty_window_s", "1e6", "fixed at 10 s"),
        ("duty_window_s", "3600", "fixed at 10 s"),
        ("duty_window_s", "20", "fixed at 10 s"),  # the Pico refuses any window but 10 s
        ("duty_window_s", "5", "fixed at 10 s"),
    ],
)
def test_limits_that_switch_off_a_bound_are_refused(tmp_path, key, value, reason):
    path = write(tmp_path, f"[limits]\n{key} = {value}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: limits.{key}: ")
    assert reason in str(info.value)


def test_an_old_config_with_the_10_s_window_still_loads(tmp_path):
    cfg = load_config(write(tmp_path, "[limits]\nduty_window_s = 10\nmin_gap_ms = 300.0\n"))
    assert cfg.box.limits.duty_window_s == 10 and cfg.box.limits.min_gap_ms == 300


def test_a_config_that_is_not_utf8_is_a_config_error(tmp_path):
    path = tmp_path / "diablotin.toml"
    path.write_bytes(b"[server]\nreferee_pin = '\xff\xfe'\n")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="no such file"):
        load_config(tmp_path / "absent.toml")


def test_config_path_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("DIABLOTIN_CONFIG", str(tmp_path / "env.toml"))
    assert find_config_path("cli.toml").name == "cli.toml"
    assert find_config_path(None).name == "env.toml"


def test_the_example_in_docs_config_md_loads(tmp_path):
    import re
    import shutil

    repo = Path(__file__).resolve().parents[2]
    doc = (repo / "docs" / "config.md").read_text(encoding="utf-8")
    example = re.search(r"```toml\n(.*?)```", doc, re.S).group(1)
    shutil.copytree(repo / "hardware", tmp_path / "hardware")  # pins = "hardware/pins.toml"
    cfg = load_config(write(tmp_path, example))
    assert cfg.box.limits.as_dict() == {
        "pulse_ms": 30,
        "max_pulse_ms": 100,
        "min_gap_ms": 250,
        "duty_window_s": 10,
        "max_duty": 0.1,
        "debounce_ms": 20,
    }


def test_server_limits_and_allowed_hosts(tmp_path):
    path = write(
        tmp_path,
        """
[server]
threads = 24
max_streams = 300
max_streams_per_client = 6
max_connections_per_client = 64
header_timeout_s = 5
body_timeout_s = 20.5
allowed_hosts = ["Diablotin.LAN"]
""",
    )
    server = load_config(path).server
    assert (server.threads, server.max_streams, server.max_streams_per_client) == (24, 300, 6)
    assert server.max_connections_per_client == 64
    assert (server.header_timeout_s, server.body_timeout_s) == (5.0, 20.5)
    assert server.allowed_hosts == ["diablotin.lan"]
    for line, key in [
        ("max_streams = 0", "server.max_streams"),
        ("header_timeout_s = 0.5", "server.header_timeout_s"),
        ('allowed_hosts = ["a b"]', "server.allowed_hosts"),
        ("allowed_hosts = [1]", "server.allowed_hosts"),
        ("max_streams_per_client = 1000", "server.max_streams_per_client"),
    ]:
        with pytest.raises(ConfigError, match=key):
            load_config(write(tmp_path, "[server]\n" + line + "\n"))


def test_the_documented_server_section_loads(tmp_path):
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "config.md").read_text()
    section = doc.split("\n[server]\n", 1)[1].split("\n[", 1)[0]
    server = load_config(write(tmp_path, "[server]\n" + section)).server
    assert server.max_streams == 400 and server.max_streams_per_client == 4
    assert server.allowed_hosts == [] and server.threads == 16


def test_paths_expand_tilde_and_are_relative_to_the_file(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "boards").mkdir(parents=True)
    board = Path(__file__).resolve().parents[2] / "controller" / "games" / "tails" / "board.json"
    (home / "boards" / "mine.json").write_bytes(board.read_bytes())
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    (tmp_path / "etc").mkdir()
    path = (tmp_path / "etc") / "diablotin.toml"
    path.write_text('[data]\ndir = "state"\n[tails]\nboard = "~/boards/mine.json"\n')
    cfg = load_config(path)
    assert cfg.data_dir == tmp_path / "etc" / "state"
    assert cfg.section("tails", TailsSection).board == str(home / "boards" / "mine.json")


def test_brackets_in_comments_and_strings_do_not_count_as_nesting(tmp_path: Path) -> None:
    """The depth limit (issue 26, item 12) counts arrays and inline tables, not a comment
    or a string full of brackets."""
    from controller.config import MAX_CONFIG_DEPTH

    path = tmp_path / "ok.toml"
    path.write_text("# " + "[" * 100 + "\n[server]\nhost = '" + "{" * 100 + "'\n", encoding="utf-8")
    assert load_config(path).server.host == "{" * 100
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * (MAX_CONFIG_DEPTH + 1) + "]" * (MAX_CONFIG_DEPTH + 1))
    with pytest.raises(ConfigError, match="nested more than 32 deep"):
        load_config(deep)
