"""The configuration: one TOML file, every setting with a default that works on a laptop.

Where the file comes from, first match wins: ``--config PATH`` on the command line,
the ``DIABLOTIN_CONFIG`` environment variable, ``/etc/diablotin/diablotin.toml`` if it
exists, else no file (all defaults). The current directory is never searched. Unknown keys
and bad values are refused at start with :class:`ConfigError`, whose message names the file,
the key and the reason. Paths in the file may start with ``~`` (the user's home); relative
ones are relative to the file's own folder. :func:`to_toml` writes a config back out.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from . import data
from .games import registry
from .limits import Limits, LimitsError
from .sentences import Refused, Said, said_of

ENV_VAR = "DIABLOTIN_CONFIG"
SYSTEM_CONFIG = Path("/etc/diablotin/diablotin.toml")
DEFAULT_PINS = data.pins_file()

BACKENDS = ("simulated", "gpio", "serial", "virtual")
PIN_FACTORIES = ("lgpio", "rpigpio", "mock")

EXIT_CONFIG = 78
"""Exit status of ``diablotin`` on a :class:`ConfigError` (``EX_CONFIG`` of sysexits.h); the
systemd unit lists it in ``RestartPreventExitStatus=``: restarting cannot fix a bad file."""


MAX_CONFIG_BYTES = 256 * 1024
"""The largest config file read (``diablotin config`` writes about 3 KB); a longer one, or a
stream that never ends (``--config /dev/zero``), is refused before it is parsed."""
MAX_CONFIG_DEPTH = 32
"""How deeply a config file may nest arrays and inline tables (its own tables nest 2 deep);
deeper is refused before it is parsed (the parser would overflow Python's stack)."""
_TOML_SKIPPED = re.compile(
    "|".join(
        (
            r'"""[\s\S]*?"""',  # multi-line strings
            r"'''[\s\S]*?'''",
            r'"(?:\\.|[^"\\\n])*"',  # one-line strings
            r"'[^'\n]*'",
            r"#[^\n]*",  # comments
        )
    )
)
"""What the depth count skips: TOML strings and comments (brackets there do not nest)."""


class ConfigError(ValueError):
    """A config file that cannot be used: ``file: key: reason``."""


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "diablotin"


@dataclass
class BoxConfig:
    backend: str = "simulated"
    pin_factory: str = "mock"
    pins: Path = DEFAULT_PINS
    serial_port: str = "auto"
    seed: int | None = None
    limits: Limits = field(default_factory=Limits)


@dataclass
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8000
    referee_pin: str = ""
    threads: int = 16
    max_streams: int = 400
    max_streams_per_client: int = 4
    max_connections_per_client: int = 32
    max_connections: int = 1024
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    allowed_hosts: list[str] = field(default_factory=list)


@dataclass
class SauteurConfig:
    rule: str = "A"
    rounds: int | None = None
    number_faces: list[int | str] = field(default_factory=lambda: [1, 2, 3, 4, 5, 6])


@dataclass
class TeufelConfig:
    colours: list[str] = field(
        default_factory=lambda: ["yellow", "green", "blue", "purple", "white", "black"]
    )
    vines: list[str] = field(default_factory=lambda: ["b2", "f2", "d1", "d7", "b6", "f6"])


@dataclass
class TailsConfig:
    board: str = ""


@dataclass
class CameraConfig:
    """``kind``: none | simulated | picamera2 | usb[:N] (docs/camera.md); ``profile``: the
    calibration profile (default: ``faces-profile.json`` in the data dir); ``style``: the
    simulated camera's die style; ``read_s``: how long a pop's die is looked for."""

    kind: str = "none"
    profile: str = ""
    style: str = "ivory"
    read_s: float = 3.0


@dataclass
class SoundConfig:
    """``[sound]``: ``speak`` what happens aloud with espeak-ng (off by default; it turns
    itself off when espeak-ng or an audio output is missing), in ``language`` (en, fr, de)."""

    speak: bool = False
    language: str = "en"


@dataclass
class Config:
    """Everything the service reads at start. ``source`` is the file it came from, if any."""

    box: BoxConfig = field(default_factory=BoxConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    data_dir: Path = field(default_factory=default_data_dir)
    sauteur: SauteurConfig = field(default_factory=SauteurConfig)
    teufel: TeufelConfig = field(default_factory=TeufelConfig)
    tails: TailsConfig = field(default_factory=TailsConfig)
    camera: CameraConfig = field(default_factory=CameraConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    daily_backups: int = 7
    """``[data] backups``: daily copies of the journal kept in ``<data dir>/backups/``
    (0: none taken)."""
    source: Path | None = None


# key -> (type check, converter); sections map to the dataclasses above.
_SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "box": {"backend": str, "pin_factory": str, "pins": str, "serial_port": str, "seed": int},
    "limits": {
        "pulse_ms": (int, float),
        "min_gap_ms": (int, float),
        "duty_window_s": (int, float),
        "max_duty": (int, float),
        "debounce_ms": (int, float),
    },
    "server": {
        "host": str,
        "port": int,
        "referee_pin": str,
        "threads": int,
        "max_streams": int,
        "max_streams_per_client": int,
        "max_connections_per_client": int,
        "max_connections": int,
        "header_timeout_s": (int, float),
        "body_timeout_s": (int, float),
        "allowed_hosts": list,
    },
    "data": {"dir": str, "backups": int},
    "sauteur": {"rule": str, "rounds": int, "number_faces": list},
    "teufel": {"colours": list, "vines": list},
    "tails": {"board": str},
    "camera": {"kind": str, "profile": str, "style": str, "read_s": (int, float)},
    "sound": {"speak": bool, "language": str},
}


CONFIG_ORDER = (
    f"--config PATH, else ${ENV_VAR}, else {SYSTEM_CONFIG} if it exists, "
    "else the built-in defaults (the current directory is not searched)"
)
"""Where the config comes from, in words (``--help``, docs/config.md)."""


def find_config_path(cli_path: str | None) -> Path | None:
    """The config file to read (see module doc), or ``None`` for all defaults."""
    if cli_path:
        return Path(cli_path)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None


def load_config(path: Path | None) -> Config:
    """Read and validate ``path`` (``None``: defaults). Raises :class:`ConfigError`."""
    if path is None:
        return Config()
    where = str(path)
    try:
        text = _read_limited(path, where)
        _check_depth(text, where)
        raw = tomllib.loads(text)
    except UnicodeDecodeError as exc:
        raise ConfigError(
            Said(
                "{where}: not UTF-8 text (byte {start}): save it as UTF-8",
                where=where,
                start=exc.start,
            )
        ) from None
    except FileNotFoundError:
        raise ConfigError(Said("{where}: no such file", where=where)) from None
    except OSError as exc:
        raise ConfigError(
            Said("{where}: cannot read it ({strerror})", where=where, strerror=exc.strerror)
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(Said("{where}: not valid TOML: {exc}", where=where, exc=exc)) from None
    except RecursionError:  # cannot happen below MAX_CONFIG_DEPTH; never a traceback
        raise ConfigError(
            Said(
                "{where}: nested more than {limit} deep: not a config file",
                where=where,
                limit=MAX_CONFIG_DEPTH,
            )
        ) from None
    return _from_dict(raw, where, path)


def _read_limited(path: Path, where: str) -> str:
    """The file's text, at most :data:`MAX_CONFIG_BYTES`; raises :class:`ConfigError` for a
    longer one, ``UnicodeDecodeError`` or ``OSError``."""
    with path.open("rb") as file:
        raw = file.read(MAX_CONFIG_BYTES + 1)
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(
            Said(
                "{where}: larger than {limit} bytes: not a config file",
                where=where,
                limit=MAX_CONFIG_BYTES,
            )
        )
    return raw.decode("utf-8")


def _check_depth(text: str, where: str) -> None:
    """Raise :class:`ConfigError` if arrays and inline tables nest deeper than
    :data:`MAX_CONFIG_DEPTH` (strings and comments are skipped)."""
    depth = deepest = 0
    for ch in _TOML_SKIPPED.sub("", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    if deepest > MAX_CONFIG_DEPTH:
        raise ConfigError(
            Said(
                "{where}: nested more than {limit} deep: not a config file",
                where=where,
                limit=MAX_CONFIG_DEPTH,
            )
        )


def _from_dict(raw: dict[str, Any], where: str, path: Path | None) -> Config:
    def bad(key: str, reason: str) -> ConfigError:
        return ConfigError(Said("{where}: {key}: {reason}", where=where, key=key, reason=reason))

    def one_of(key: str, value: str, allowed: Sequence[str]) -> str:
        if value not in allowed:
            names = ", ".join(allowed)
            raise bad(key, Said("{value!r} is not one of {names}", value=value, names=names))
        return value

    for section, values in raw.items():
        if section not in _SCHEMA:
            raise bad(section, Said("unknown section (known: {names})", names=", ".join(_SCHEMA)))
        if not isinstance(values, dict):
            raise bad(section, Said("must be a table, e.g. [{section}]", section=section))
        for key, value in values.items():
            known = _SCHEMA[section]
            if key not in known:
                raise bad(
                    f"{section}.{key}", Said("unknown key (known: {names})", names=", ".join(known))
                )
            expected = known[key]
            if (isinstance(value, bool) and expected is not bool) or not isinstance(
                value, expected
            ):
                names = (
                    " or ".join(t.__name__ for t in expected)
                    if isinstance(expected, tuple)
                    else expected.__name__
                )
                raise bad(
                    f"{section}.{key}",
                    Said("expected {names}, got {value!r}", names=names, value=value),
                )

    base = path.parent if path else Path.cwd()

    def resolve(text: str) -> Path:
        """A path from the file: ``~`` expanded; relative to the file's folder."""
        return (base / Path(text).expanduser()).resolve()

    cfg = Config(source=path)
    box = raw.get("box", {})
    cfg.box.backend = one_of("box.backend", box.get("backend", cfg.box.backend), BACKENDS)
    cfg.box.pin_factory = one_of(
        "box.pin_factory", box.get("pin_factory", cfg.box.pin_factory), PIN_FACTORIES
    )
    if "pins" in box:
        cfg.box.pins = resolve(box["pins"])
        if not cfg.box.pins.is_file():
            raise bad("box.pins", Said("no pin map at {pins}", pins=cfg.box.pins))
    cfg.box.serial_port = box.get("serial_port", cfg.box.serial_port)
    cfg.box.seed = box.get("seed", cfg.box.seed)

    try:
        cfg.box.limits = Limits.from_settings(raw.get("limits", {}))
    except LimitsError as exc:
        raise bad(f"limits.{exc.key}", said_of(exc)) from None

    server = raw.get("server", {})
    cfg.server.host = server.get("host", cfg.server.host)
    cfg.server.port = server.get("port", cfg.server.port)
    if not 0 <= cfg.server.port <= 65535:
        raise bad("server.port", Said("must be 0-65535"))
    cfg.server.referee_pin = server.get("referee_pin", cfg.server.referee_pin)
    pin = cfg.server.referee_pin
    if pin and not (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 12):
        raise bad(
            "server.referee_pin",
            Said("must be 4 to 12 ASCII digits 0-9 (or empty to generate one)"),
        )
    cfg.server.threads = server.get("threads", cfg.server.threads)
    if not 8 <= cfg.server.threads <= 1024:
        raise bad("server.threads", Said("must be between 8 and 1024"))
    bounds = {
        "max_streams": (1, 2000),
        "max_streams_per_client": (1, 100),
        "max_connections_per_client": (4, 1000),
        "max_connections": (64, 3000),
        "header_timeout_s": (1, 120),
        "body_timeout_s": (1, 600),
    }
    for key, (low, high) in bounds.items():
        value = server.get(key, getattr(cfg.server, key))
        if not low <= value <= high:
            raise bad(f"server.{key}", Said("must be between {low} and {high}", low=low, high=high))
        setattr(cfg.server, key, type(getattr(cfg.server, key))(value))
    hosts = server.get("allowed_hosts", [])
    if not all(isinstance(h, str) and h and " " not in h for h in hosts):
        raise bad("server.allowed_hosts", Said('a list of host names, e.g. ["diablotin.lan"]'))
    cfg.server.allowed_hosts = [h.lower() for h in hosts]

    if "dir" in raw.get("data", {}):
        cfg.data_dir = resolve(raw["data"]["dir"])
    cfg.daily_backups = raw.get("data", {}).get("backups", cfg.daily_backups)
    if not 0 <= cfg.daily_backups <= 366:
        raise bad("data.backups", Said("daily backups kept: a whole number from 0 to 366"))

    sauteur = raw.get("sauteur", {})
    cfg.sauteur.rule = sauteur.get("rule", cfg.sauteur.rule)
    if cfg.sauteur.rule not in ("A", "B"):
        raise bad("sauteur.rule", Said("must be 'A' or 'B'"))
    cfg.sauteur.rounds = sauteur.get("rounds", cfg.sauteur.rounds)
    faces = sauteur.get("number_faces", cfg.sauteur.number_faces)
    if not faces or not all(
        (isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 99) or f == "devil"
        for f in faces
    ):
        raise bad("sauteur.number_faces", Said('faces are numbers 1-99 or "devil"'))
    cfg.sauteur.number_faces = list(faces)

    teufel = raw.get("teufel", {})
    for key in ("colours", "vines"):
        value = teufel.get(key, getattr(cfg.teufel, key))
        if not all(isinstance(v, str) for v in value):
            raise bad(f"teufel.{key}", Said("must be a list of strings"))
        setattr(cfg.teufel, key, list(value))
    if len(cfg.teufel.colours) != 6 or len(set(cfg.teufel.colours)) != 6:
        raise bad("teufel.colours", Said("must name six distinct colours"))

    tails = raw.get("tails", {})
    if tails.get("board"):
        board = resolve(tails["board"])
        if not board.is_file():
            raise bad("tails.board", Said("no board file at {board}", board=board))
        cfg.tails.board = str(board)

    for game in registry.kinds():  # each game's own option parser checks its section
        try:
            game.check_options(game.options(getattr(cfg, game.name, None)))
        except Refused as exc:
            raise bad(game.name, said_of(exc)) from None

    camera = raw.get("camera", {})
    kind = camera.get("kind", cfg.camera.kind)
    if kind.partition(":")[0] not in ("none", "simulated", "picamera2", "usb"):
        raise bad("camera.kind", Said("must be none, simulated, picamera2 or usb[:N]"))
    cfg.camera.kind = kind
    if camera.get("profile"):
        cfg.camera.profile = str(resolve(camera["profile"]))
    cfg.camera.style = camera.get("style", cfg.camera.style)
    if cfg.camera.style not in ("ivory", "ebony", "azure"):
        raise bad("camera.style", Said("must be ivory, ebony or azure"))
    cfg.camera.read_s = float(camera.get("read_s", cfg.camera.read_s))
    if not 0.2 <= cfg.camera.read_s <= 30:
        raise bad("camera.read_s", Said("must be between 0.2 and 30 seconds"))
    sound = raw.get("sound", {})
    cfg.sound.speak = sound.get("speak", cfg.sound.speak)
    cfg.sound.language = sound.get("language", cfg.sound.language)
    if cfg.sound.language not in ("en", "fr", "de"):
        raise bad("sound.language", Said("must be en, fr or de"))
    return cfg


def to_toml(config: Config) -> str:
    """``config`` as a TOML file that :func:`load_config` reads back into an equal config, from
    any folder: every key of every section, paths absolute; unset optional keys (``seed``,
    ``rounds``) are left out."""
    sections: dict[str, dict[str, Any]] = {}
    for section, keys in _SCHEMA.items():
        if section == "limits":
            values = {
                f.name: getattr(config.box.limits, f.name) for f in dataclasses.fields(Limits)
            }
        elif section == "data":
            values = {"dir": config.data_dir, "backups": config.daily_backups}
        else:
            holder = getattr(config, section)
            values = {key: getattr(holder, key) for key in keys}
        sections[section] = {
            key: str(value) if isinstance(value, Path) else value
            for key, value in values.items()
            if value is not None
        }
    return tomli_w.dumps(sections)
