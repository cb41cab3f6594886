"""Printable mounts (build123d): a bridge holding four solenoids over the toy's keys, and a
camera arm over the landing area. Millimetres throughout; the table is z = 0.

Coordinates: the keys lie along x, centred on x = 0 (key 1 on the left), their centres at
y = 0. The camera arm's rod stands at the origin and the landing area's centre is at
(``reach``, 0). A parameter set that cannot be built (a wall thinner than ``MIN_WALL``, a
stroke too short for the key, a camera outside 250-300 mm) raises ValueError with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from build123d import Align, Box, Cylinder, Part, Pos, export_stl

HARDWARE = Path(__file__).resolve().parent.parent
STL = HARDWARE / "stl"
RENDERS = HARDWARE / "renders"
MIN_WALL = 1.2
"""Thinnest wall a 0.4 mm nozzle prints reliably (three perimeters)."""
CAMERA_RANGE = (250.0, 300.0)
PLA_G_PER_CM3 = 1.24


@dataclass(frozen=True)
class Bridge:
    """The solenoid bridge. Defaults: a typical toy (measure yours, see hardware/README.md)
    and a JF-0530B-size push solenoid."""

    key_pitch: float = 30.0  # centre to centre of neighbouring keys
    key_top: float = 40.0  # top of a key at rest, above the table
    key_travel: float = 6.0  # how far a key goes down to pop its die
    toy_width: float = 150.0  # the legs stand this far apart (inside), centred on the keys
    body_w: float = 13.0  # solenoid body across the key row (x)
    body_d: float = 11.0  # solenoid body along the keys (y)
    body_len: float = 20.0  # solenoid body along its axis (z)
    plunger_d: float = 4.5
    plunger_out: float = 5.0  # plunger tip below the body at rest
    stroke: float = 10.0
    clearance: float = 0.3  # per side, between printed part and solenoid
    rest_gap: float = 1.0  # plunger tip above the key top at rest
    wall: float = 2.4
    floor: float = 3.0
    keys: int = 4

    def key_centres(self) -> list[tuple[float, float]]:
        """(x, y) of each key's centre, key 1 first."""
        first = -self.key_pitch * (self.keys - 1) / 2
        return [(first + i * self.key_pitch, 0.0) for i in range(self.keys)]

    @property
    def pocket_w(self) -> float:
        return self.body_w + 2 * self.clearance

    @property
    def pocket_d(self) -> float:
        return self.body_d + 2 * self.clearance

    @property
    def body_bottom(self) -> float:
        """Height of the solenoid body's lower face (it rests on the pocket floor)."""
        return self.key_top + self.rest_gap + self.plunger_out

    def check(self) -> None:
        """Raise ValueError if this bridge cannot work or print."""
        between = self.key_pitch - self.pocket_w
        if between < MIN_WALL:
            raise ValueError(
                f"keys {self.key_pitch:g} mm apart leave a {between:.2f} mm wall between two "
                f"solenoid pockets ({self.pocket_w:g} mm wide): at least {MIN_WALL} mm needed"
            )
        if self.stroke < self.key_travel + self.rest_gap:
            raise ValueError(
                f"a {self.stroke:g} mm stroke cannot push a key {self.key_travel:g} mm from "
                f"{self.rest_gap:g} mm above it"
            )
        if min(self.wall, self.floor) < MIN_WALL:
            raise ValueError(f"wall and floor must be at least {MIN_WALL} mm")
        row = self.key_pitch * (self.keys - 1) + self.pocket_w + 2 * self.wall
        if self.toy_width < row:
            raise ValueError(f"toy_width {self.toy_width:g} mm is narrower than the key row")
        if self.body_bottom - self.floor < 5:
            raise ValueError("the bridge would sit on the table: key_top is too low")

    def part(self) -> Part:
        self.check()
        hold = 0.6 * self.body_len  # how much of the body the pocket holds
        depth = self.pocket_d + 2 * self.wall
        z0 = self.body_bottom - self.floor
        top = self.body_bottom + hold
        leg_t = 2 * self.wall + 2
        span = self.toy_width + 2 * leg_t
        bottom = (Align.CENTER, Align.CENTER, Align.MIN)
        beam = Pos(0, 0, z0) * Box(span, depth, top - z0, align=bottom)
        legs = [
            Pos(sx * (self.toy_width + leg_t) / 2, 0, 0) * Box(leg_t, depth, top, align=bottom)
            for sx in (-1, 1)
        ]
        foot_x = self.toy_width / 2 + leg_t + 6  # centre of each foot's screw hole
        feet = [
            Pos(sx * (foot_x - 3), 0, 0) * Box(leg_t + 18, depth, 4, align=bottom) for sx in (-1, 1)
        ]
        shape = beam + legs[0] + legs[1] + feet[0] + feet[1]
        for sx in (-1, 1):  # an M4 screw through each foot into the base board
            shape -= Pos(sx * foot_x, 0, -1) * Cylinder(2.2, 6, align=bottom)
        for x, y in self.key_centres():
            pocket = Box(self.pocket_w, self.pocket_d, hold + 1, align=bottom)
            shape -= Pos(x, y, self.body_bottom) * pocket
            hole = Cylinder(self.plunger_d / 2 + 1.0, self.floor + 2, align=bottom)
            shape -= Pos(x, y, z0 - 1) * hole
        return shape


@dataclass(frozen=True)
class CameraArm:
    """A base, a wooden dowel (cut to ``rod_length``) and a head holding a Pi camera module
    with its lens looking down at the landing area."""

    camera_height: float = 280.0  # lens (camera board's face) above the landing area
    reach: float = 110.0  # rod axis to the landing area's centre
    rod_d: float = 12.0
    socket: float = 25.0  # how deep the rod goes into base and head
    arm_wall: float = 3.0
    rod_clearance: float = 0.2  # per side, between dowel and socket
    camera_holes: tuple[float, float] = (21.0, 12.5)  # Pi Camera Module 2/3: M2 hole spacing
    lens_d: float = 9.5
    plate: float = 4.0  # camera plate and base thickness
    base: float = 80.0  # square base plate side
    arm_h: float = 10.0

    def check(self) -> None:
        low, high = CAMERA_RANGE
        if not low <= self.camera_height <= high:
            raise ValueError(f"camera_height must be {low:g}-{high:g} mm")
        if self.arm_wall < MIN_WALL or self.plate < MIN_WALL:
            raise ValueError(f"arm_wall and plate must be at least {MIN_WALL} mm")
        if self.reach < self.rod_d + 30:
            raise ValueError("reach is too short: the camera would sit on the rod")

    @property
    def head_height(self) -> float:
        """The head's sleeve: the socket and a ceiling as thick as the plate."""
        return self.socket + self.plate

    @property
    def head_z(self) -> float:
        """Height of the head's lower face when assembled: the camera plate's face."""
        return self.camera_height

    @property
    def rod_length(self) -> float:
        """Dowel length: from the base plate's top to the head's socket ceiling."""
        ceiling = self.head_z + self.socket
        return ceiling - self.plate  # the rod stands on the base plate

    def base_part(self) -> Part:
        self.check()
        bottom = (Align.CENTER, Align.CENTER, Align.MIN)
        outer = self.rod_d + 2 * self.rod_clearance + 2 * self.arm_wall
        shape = Box(self.base, self.base, self.plate, align=bottom)
        shape += Cylinder(outer / 2, self.plate + self.socket, align=bottom)
        shape -= Pos(0, 0, self.plate) * Cylinder(
            self.rod_d / 2 + self.rod_clearance, self.socket + 1, align=bottom
        )
        for sx in (-1, 1):
            for sy in (-1, 1):
                shape -= Pos(sx * (self.base / 2 - 8), sy * (self.base / 2 - 8), -1) * Cylinder(
                    2.2, self.plate + 2, align=bottom
                )
        return shape

    def head_part(self) -> Part:
        """The head in its own frame, everything standing on z = 0 (it prints flat, no
        supports): the sleeve open downwards for the rod, the arm, and the camera plate at
        (reach, 0) whose lower face (z = 0) the camera module screws to."""
        self.check()
        bottom = (Align.CENTER, Align.CENTER, Align.MIN)
        outer = self.rod_d + 2 * self.rod_clearance + 2 * self.arm_wall
        shape = Cylinder(outer / 2, self.head_height, align=bottom)
        side = max(self.camera_holes) + 12
        arm = Box(
            self.reach - side / 2 + 1,  # to the camera plate's edge, clear of the lens
            self.arm_h,
            self.plate + self.arm_h,
            align=(Align.MIN, Align.CENTER, Align.MIN),
        )
        shape += arm
        shape += Pos(self.reach, 0, 0) * Box(side, side, self.plate, align=bottom)
        shape -= Pos(0, 0, -1) * Cylinder(  # the socket, after the arm: nothing blocks the rod
            self.rod_d / 2 + self.rod_clearance, self.socket + 1, align=bottom
        )
        shape -= Pos(self.reach, 0, -1) * Cylinder(self.lens_d / 2, self.plate + 2, align=bottom)
        hx, hy = self.camera_holes[0] / 2, self.camera_holes[1] / 2
        for sx in (-1, 1):
            for sy in (-1, 1):
                shape -= Pos(self.reach + sx * hx, sy * hy, -1) * Cylinder(
                    1.1, self.plate + 2, align=bottom
                )
        return shape

    def assembled_head(self) -> Part:
        return Pos(0, 0, self.head_z) * self.head_part()


def export(shape: Part, path: Path) -> Path:
    """Write ``shape`` as a binary STL (0.05 mm chord tolerance)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not export_stl(shape, str(path), tolerance=0.05, angular_tolerance=0.3):
        raise RuntimeError(f"could not write {path}")
    return path


def parts_to_print(bridge: Bridge | None = None, arm: CameraArm | None = None) -> dict[str, Part]:
    """File stem -> part, for the defaults unless given."""
    bridge = bridge or Bridge()
    arm = arm or CameraArm()
    return {
        "solenoid_bridge": bridge.part(),
        "camera_base": arm.base_part(),
        "camera_head": arm.head_part(),
    }


def write(folder: Path | None = None) -> list[Path]:
    """Export the default mounts into ``folder`` (default ``hardware/stl``)."""
    folder = folder or STL
    return [export(shape, folder / f"{name}.stl") for name, shape in parts_to_print().items()]


def render(stl: Path, png: Path, size: tuple[int, int] = (480, 320)) -> Path:
    """A shaded picture of an STL (matplotlib, no display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import trimesh
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    mesh = trimesh.load(stl, force="mesh")
    elev, azim = np.radians(25), np.radians(-60)
    eye = np.array([np.cos(elev) * np.cos(azim), np.cos(elev) * np.sin(azim), np.sin(elev)])
    front = mesh.face_normals @ eye > 0  # back faces would be painted over front ones
    light = np.array([0.3, -0.5, 0.8])
    normals = mesh.face_normals[front]
    shade = 0.35 + 0.65 * np.clip(normals @ (light / np.linalg.norm(light)), 0, 1)
    colours = np.outer(shade, [0.95, 0.55, 0.15])
    fig = plt.figure(figsize=(size[0] / 100, size[1] / 100), dpi=100)
    ax = fig.add_subplot(projection="3d")
    ax.add_collection3d(Poly3DCollection(mesh.triangles[front], facecolors=colours, linewidths=0))
    lo, hi = mesh.bounds
    for axis, low, high in zip("xyz", lo, hi, strict=True):
        getattr(ax, f"set_{axis}lim")(low, high)
    ax.set_box_aspect(tuple(np.maximum(hi - lo, 1.0)), zoom=1.1)  # true proportions
    ax.view_init(elev=np.degrees(elev), azim=np.degrees(azim))
    ax.set_axis_off()
    fig.subplots_adjust(0, 0, 1, 1)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, metadata={"Software": None})
    plt.close(fig)
    return png


def write_renders(stls: list[Path], folder: Path | None = None) -> list[Path]:
    """A PNG of each STL into ``folder`` (default ``hardware/renders``)."""
    return [render(stl, (folder or RENDERS) / f"{stl.stem}.png") for stl in stls]


def grams(shape: Part) -> float:
    """PLA mass of a solid print of ``shape`` (an upper bound: infill makes it lighter)."""
    return float(shape.volume) / 1000 * PLA_G_PER_CM3


def main(argv: list[str] | None = None) -> int:
    """``python -m hardware.design.mounts --out DIR key_pitch=28 key_top=35 ...``: your STLs."""
    import argparse
    import dataclasses

    parser = argparse.ArgumentParser(
        prog="python -m hardware.design.mounts", description=main.__doc__
    )
    parser.add_argument("--out", type=Path, required=True, help="folder for the STL files")
    parser.add_argument("settings", nargs="*", help="NAME=MM for Bridge or CameraArm fields")
    args = parser.parse_args(argv)
    bridge_fields = {f.name for f in dataclasses.fields(Bridge)}
    arm_fields = {f.name for f in dataclasses.fields(CameraArm)}
    bridge: dict[str, float] = {}
    arm: dict[str, float] = {}
    for setting in args.settings:
        name, _, value = setting.partition("=")
        target = bridge if name in bridge_fields else arm if name in arm_fields else None
        if target is None or not value:
            names = ", ".join(sorted(bridge_fields | arm_fields))
            parser.error(f"{setting!r}: expected NAME=MM with NAME one of {names}")
        try:
            target[name] = float(value)
        except ValueError:
            parser.error(f"{setting!r}: {value!r} is not a number of millimetres")
    try:
        shapes = parts_to_print(Bridge(**bridge), CameraArm(**arm))  # type: ignore[arg-type]
    except ValueError as exc:
        parser.error(str(exc))
    for name, shape in shapes.items():
        print(export(shape, args.out / f"{name}.stl"))
    print(f"camera arm dowel: cut to {CameraArm(**arm).rod_length:.0f} mm")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
