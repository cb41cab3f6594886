"""The configuration: one TOML file, every setting with a default that works on a laptop.

Where the file comes from, first match wins: ``--config PATH`` on the command line,
the ``DIABLOTIN_CONFIG`` environment variable, ``/etc/diablotin/diablotin.toml`` if it
exists, else no file (all defaults). The current directory is never searched. The data dir
likewise: ``--data-dir``, ``DIABLOTIN_DATA_DIR``, the file's ``[data] dir``, the default.
Each section is declared as data (:mod:`controller.games.section`): the box's own here, a
game kind's by its package (``GameKind.config``), and all are checked by one policy. Unknown keys
and bad values are refused at start with :class:`ConfigError`, whose message names the file,
the key and the reason. Paths in the file may start with ``~`` (the user's home); relative
ones are relative to the file's own folder. :func:`to_toml` writes a config back out.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import tomli_w

from . import data
from .games import registry
from .games.section import Key, Section, between, one_of
from .limits import Limits, LimitsError
from .sentences import Refused, Said, said_of

T = TypeVar("T")

ENV_VAR = "DIABLOTIN_CONFIG"
DATA_DIR_ENV = "DIABLOTIN_DATA_DIR"
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

    def __post_init__(self) -> None:
        self.allowed_hosts = [host.lower() for host in self.allowed_hosts]  # as Host is read


@dataclass
class CameraConfig:
    """``kind``: none | simulated | picamera2 | usb[:N] (docs/camera.md); ``profile``: the
    calibration profile (default: ``faces-profile.json`` in the data dir); ``style``: the
    simulated camera's die style; ``read_s``: how long a pop's die is looked for;
    ``lens_deg``: the lens's field of view across the frame (degrees), for dice off its
    axis, whose side faces show."""

    kind: str = "none"
    profile: str = ""
    style: str = "ivory"
    read_s: float = 3.0
    lens_deg: float = 66.0


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
    camera: CameraConfig = field(default_factory=CameraConfig)
    sound: SoundConfig = field(default_factory=SoundConfig)
    daily_backups: int = 7
    """``[data] backups``: daily copies of the journal kept in ``<data dir>/backups/``
    (0: none taken)."""
    sections: dict[str, object] = field(default_factory=lambda: _kind_defaults())
    """Each game kind's own section (``[sauteur]``...), by kind name, as its
    :class:`~controller.games.section.Section` makes it; :meth:`section` reads one."""
    source: Path | None = None

    def section(self, kind: str, cls: type[T]) -> T:
        """Game kind ``kind``'s config section, a ``cls`` (e.g.
        :class:`~controller.games.sauteur.config.SauteurSection`); its defaults when the
        file has none. Raises ``KeyError`` for a kind without a section, ``TypeError``
        for another ``cls`` (both the code's own mistakes)."""
        if kind not in self.sections:
            declared = registry.get(kind).config
            if declared is None:
                raise KeyError(kind)
            self.sections[kind] = declared.default()
        return _as(self.sections[kind], cls)


def _kind_defaults() -> dict[str, object]:
    """Every registered game kind's section as it is when the file leaves it out."""
    return {kind.name: kind.config.default() for kind in registry.kinds() if kind.config}


@dataclass
class _DataSection:
    """``[data]``: ``dir`` (absolute, or ``None``: the default or ``$DIABLOTIN_DATA_DIR``)
    and ``backups`` (:attr:`Config.daily_backups`)."""

    dir: str | None
    backups: int


def _referee_pin(value: object) -> Said | None:
    pin = str(value)
    if pin == "" or (pin.isascii() and pin.isdigit() and 4 <= len(pin) <= 12):
        return None
    return Said("must be 4 to 12 ASCII digits 0-9 (or empty to generate one)")


def _host_names(value: object) -> Said | None:
    if isinstance(value, list) and all(isinstance(h, str) and h and " " not in h for h in value):
        return None
    return Said('a list of host names, e.g. ["diablotin.lan"]')


def _pin_map(value: object) -> Said | None:
    if Path(str(value)).is_file():
        return None
    return Said("no pin map at {pins}", pins=value)


def _camera_kind(value: object) -> Said | None:
    if str(value).partition(":")[0] in ("none", "simulated", "picamera2", "usb"):
        return None
    return Said("must be none, simulated, picamera2 or usb[:N]")


_BOX, _SERVER, _CAMERA, _SOUND, _LIMITS = (
    BoxConfig(),
    ServerConfig(),
    CameraConfig(),
    SoundConfig(),
    Limits(),
)
_NUMBER = (int, float)
BOX = Section(
    "box",
    BoxConfig,
    (
        Key("backend", (str,), _BOX.backend, one_of(BACKENDS)),
        Key("pin_factory", (str,), _BOX.pin_factory, one_of(PIN_FACTORIES)),
        Key("pins", (str,), _BOX.pins, _pin_map, path=True),
        Key("serial_port", (str,), _BOX.serial_port),
        Key("seed", (int,), _BOX.seed),
    ),
)
LIMITS = Section(
    "limits",
    lambda **values: Limits.from_settings(values),
    (
        *(Key(name, _NUMBER, getattr(_LIMITS, name)) for name in ("pulse_ms", "min_gap_ms")),
        Key("duty_window_s", _NUMBER, _LIMITS.duty_window_s, legacy=True),
        *(Key(name, _NUMBER, getattr(_LIMITS, name)) for name in ("max_duty", "debounce_ms")),
    ),
)
"""``[limits]``: the coils' limits, checked by :meth:`Limits.from_settings` (its own
reasons, as the firmware states them)."""
SERVER = Section(
    "server",
    ServerConfig,
    (
        Key("host", (str,), _SERVER.host),
        Key("port", (int,), _SERVER.port, between(0, 65535, Said("must be 0-65535"))),
        Key("referee_pin", (str,), _SERVER.referee_pin, _referee_pin),
        Key("threads", (int,), _SERVER.threads, between(8, 1024)),
        Key("max_streams", (int,), _SERVER.max_streams, between(1, 2000)),
        Key("max_streams_per_client", (int,), _SERVER.max_streams_per_client, between(1, 100)),
        Key(
            "max_connections_per_client",
            (int,),
            _SERVER.max_connections_per_client,
            between(4, 1000),
        ),
        Key("max_connections", (int,), _SERVER.max_connections, between(64, 3000)),
        Key("header_timeout_s", _NUMBER, _SERVER.header_timeout_s, between(1, 120)),
        Key("body_timeout_s", _NUMBER, _SERVER.body_timeout_s, between(1, 600)),
        Key("allowed_hosts", (list,), _SERVER.allowed_hosts, _host_names),
    ),
)
DATA = Section(
    "data",
    _DataSection,
    (
        Key("dir", (str,), None, path=True),
        Key(
            "backups",
            (int,),
            Config.daily_backups,
            between(0, 366, Said("daily backups kept: a whole number from 0 to 366")),
        ),
    ),
)
CAMERA = Section(
    "camera",
    CameraConfig,
    (
        Key("kind", (str,), _CAMERA.kind, _camera_kind),
        Key("profile", (str,), _CAMERA.profile, path=True),
        Key(
            "style",
            (str,),
            _CAMERA.style,
            one_of(("ivory", "ebony", "azure"), Said("must be ivory, ebony or azure")),
        ),
        Key(
            "read_s",
            _NUMBER,
            _CAMERA.read_s,
            between(0.2, 30, Said("must be between 0.2 and 30 seconds")),
        ),
        Key(
            "lens_deg",
            _NUMBER,
            _CAMERA.lens_deg,
            between(30, 150, Said("must be between 30 and 150 degrees (the lens, across)")),
        ),
    ),
)
SOUND = Section(
    "sound",
    SoundConfig,
    (
        Key("speak", (bool,), _SOUND.speak),
        Key(
            "language",
            (str,),
            _SOUND.language,
            one_of(("en", "fr", "de"), Said("must be en, fr or de")),
        ),
    ),
)


def sections() -> tuple[Section, ...]:
    """Every section a config file may have, in the order ``diablotin config`` writes them:
    the box's own, then each game kind's (declared by the kind), then camera and sound."""
    kinds = tuple(kind.config for kind in registry.kinds() if kind.config is not None)
    return (BOX, LIMITS, SERVER, DATA, *kinds, CAMERA, SOUND)


CONFIG_ORDER = (
    f"--config PATH, else ${ENV_VAR}, else {SYSTEM_CONFIG} if it exists, "
    "else the built-in defaults (the current directory is not searched)"
)
"""Where the config comes from, in words (``--help``, docs/config.md)."""

DATA_DIR_ORDER = (
    f"--data-dir DIR, else ${DATA_DIR_ENV}, else the config file's [data] dir, "
    "else $XDG_DATA_HOME/diablotin (~/.local/share/diablotin)"
)
"""Where the data dir comes from, in words (docs/config.md); a relative ``--data-dir`` or
``$DIABLOTIN_DATA_DIR`` is relative to the current directory, the file's to its folder."""


def find_config_path(cli_path: str | None) -> Path | None:
    """The config file to read (see module doc), or ``None`` for all defaults."""
    if cli_path:
        return Path(cli_path)
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    return SYSTEM_CONFIG if SYSTEM_CONFIG.exists() else None


def load_config(path: Path | None) -> Config:
    """Read and validate ``path`` (``None``: defaults), then take the data dir from
    ``$DIABLOTIN_DATA_DIR`` when it is set (:data:`DATA_DIR_ORDER`). Raises
    :class:`ConfigError`."""
    config = Config() if path is None else _from_dict(_parse(path), str(path), path)
    if os.environ.get(DATA_DIR_ENV):
        config.data_dir = Path(os.environ[DATA_DIR_ENV]).expanduser().resolve()
    return config


def _parse(path: Path) -> dict[str, object]:
    """The TOML table in ``path``; raises :class:`ConfigError` for a file that cannot be
    read or parsed, or is too large or too deeply nested."""
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
    return raw


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


def _from_dict(raw: dict[str, object], where: str, path: Path | None) -> Config:
    """A :class:`Config` from a parsed file: each section checked by :func:`_section`."""
    declared = {section.name: section for section in sections()}
    for name, values in raw.items():
        if name not in declared:
            names = ", ".join(declared)
            raise _bad(where, name, Said("unknown section (known: {names})", names=names))
        if not isinstance(values, dict):
            raise _bad(where, name, Said("must be a table, e.g. [{section}]", section=name))
    base = path.parent if path else Path.cwd()
    made = {
        name: _section(section, _table(raw, name), where, base)
        for name, section in declared.items()
    }
    cfg = Config(
        box=_as(made.pop("box"), BoxConfig),
        server=_as(made.pop("server"), ServerConfig),
        camera=_as(made.pop("camera"), CameraConfig),
        sound=_as(made.pop("sound"), SoundConfig),
        source=path,
    )
    cfg.box.limits = _as(made.pop("limits"), Limits)
    data = _as(made.pop("data"), _DataSection)
    cfg.data_dir = Path(data.dir) if data.dir else cfg.data_dir
    cfg.daily_backups = data.backups
    cfg.sections = made
    for game in registry.kinds():  # each game's own option parser checks its section
        try:
            game.check_options(game.options(made.get(game.name)))
        except Refused as exc:
            raise _bad(where, game.name, said_of(exc)) from None
    return cfg


def _table(raw: Mapping[str, object], name: str) -> Mapping[str, object]:
    table = raw.get(name, {})
    return table if isinstance(table, dict) else {}


def _as(value: object, cls: type[T]) -> T:
    """``value``, a ``cls``; ``TypeError`` if the code asked for another class."""
    if not isinstance(value, cls):
        raise TypeError(f"expected a {cls.__name__}, got {value!r}")
    return value


def _bad(where: str, key: str, reason: str) -> ConfigError:
    return ConfigError(Said("{where}: {key}: {reason}", where=where, key=key, reason=reason))


def _section(section: Section, table: Mapping[str, object], where: str, base: Path) -> object:
    """``table`` checked against ``section`` (the one policy: known keys, declared types,
    each key's check; paths resolved from ``base``), made with the defaults of the keys
    it leaves out. Raises :class:`ConfigError` ``where: section.key: reason``."""
    values = section.defaults()
    for name, value in table.items():
        key = section.key(name)
        label = f"{section.name}.{name}"
        if key is None:
            names = ", ".join(k.name for k in section.keys)
            raise _bad(where, label, Said("unknown key (known: {names})", names=names))
        if (isinstance(value, bool) and bool not in key.types) or not isinstance(value, key.types):
            expected = Said("expected {names}, got {value!r}", names=key.type_names(), value=value)
            raise _bad(where, label, expected)
        values[name] = _value(key, value, base)
    for key in section.keys:
        reason = None if key.check is None else key.check(values[key.name])
        if reason is not None:
            raise _bad(where, f"{section.name}.{key.name}", reason)
    try:
        return section.make(**values)
    except LimitsError as exc:  # [limits] checks its own values
        raise _bad(where, f"{section.name}.{exc.key}", said_of(exc)) from None


def _value(key: Key, value: object, base: Path) -> object:
    """A file's value as the program keeps it: a path (non-empty) ``~``-expanded and made
    absolute from ``base`` (a :class:`Path` if the default is one, else a string); a whole
    number where the default is a fraction, as a float."""
    if key.path and value:
        resolved = (base / Path(str(value)).expanduser()).resolve()
        return resolved if isinstance(key.default, Path) else str(resolved)
    if isinstance(key.default, float) and isinstance(value, int):
        return float(value)
    return value


def to_toml(config: Config) -> str:
    """``config`` as a TOML file that :func:`load_config` reads back into an equal config, from
    any folder: every key of every section, paths absolute; unset optional keys (``seed``,
    ``rounds``) are left out."""
    holders: dict[str, object] = {
        "box": config.box,
        "limits": config.box.limits,
        "server": config.server,
        "data": _DataSection(str(config.data_dir), config.daily_backups),
        "camera": config.camera,
        "sound": config.sound,
    }
    tables: dict[str, dict[str, object]] = {}
    for section in sections():
        holder = holders.get(section.name) or config.section(section.name, object)
        values = {key.name: getattr(holder, key.name) for key in section.keys if not key.legacy}
        tables[section.name] = {
            name: str(value) if isinstance(value, Path) else value
            for name, value in values.items()
            if value is not None
        }
    return tomli_w.dumps(tables)
