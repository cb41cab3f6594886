"""The printable mounts: watertight meshes, plungers over the keys' centres, no wall under
1.2 mm, the camera 250-300 mm over the landing area; the committed STLs are current.

Geometry is measured on the meshes (rays cast with trimesh), against key positions worked
out here from the parameters, not read back from the model's code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from .tools import require_hardware_tools

require_hardware_tools()

import trimesh  # noqa: E402
from build123d import Cylinder, Pos  # noqa: E402

from hardware.design import mounts  # noqa: E402

BRIDGES = {
    "defaults": mounts.Bridge(),
    "narrow keys, small solenoid": mounts.Bridge(
        key_pitch=19.0,
        key_top=28.0,
        key_travel=4.0,
        toy_width=90.0,
        body_w=11.0,
        body_d=10.0,
        body_len=18.0,
        plunger_d=3.5,
        plunger_out=3.0,
        stroke=6.0,
    ),
    "wide toy, big solenoid": mounts.Bridge(
        key_pitch=42.5,
        key_top=62.0,
        key_travel=9.0,
        toy_width=220.0,
        body_w=20.0,
        body_d=16.0,
        body_len=30.0,
        plunger_d=6.0,
        plunger_out=8.0,
        stroke=12.0,
        clearance=0.4,
    ),
}
ARMS = {
    "defaults": mounts.CameraArm(),
    "low and near": mounts.CameraArm(camera_height=250.0, reach=80.0),
    "high and far": mounts.CameraArm(camera_height=300.0, reach=140.0, rod_d=10.0),
}
AXIS_TOLERANCE = 0.5


def mesh_of(shape: object, tmp_path: Path, name: str) -> trimesh.Trimesh:
    """The STL the maker prints, as exported, loaded back."""
    path = mounts.export(shape, tmp_path / f"{name}.stl")  # type: ignore[arg-type]
    return trimesh.load(path, force="mesh")


@pytest.fixture(scope="module")
def bridge_meshes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, trimesh.Trimesh]:
    folder = tmp_path_factory.mktemp("bridges")
    return {name: mesh_of(b.part(), folder, f"b{i}") for i, (name, b) in enumerate(BRIDGES.items())}


@pytest.fixture(scope="module")
def arm_meshes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, trimesh.Trimesh]:
    """Each camera arm assembled: base, dowel (a cylinder of rod_length) and head."""
    folder = tmp_path_factory.mktemp("arms")
    out = {}
    for i, (name, arm) in enumerate(ARMS.items()):
        base = mesh_of(arm.base_part(), folder, f"base{i}")
        head = mesh_of(arm.assembled_head(), folder, f"head{i}")
        out[name] = trimesh.util.concatenate([base, head])
    return out


def first_hits(mesh: trimesh.Trimesh, origins: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Distance along each ray to its first hit (inf where it hits nothing)."""
    locations, index_ray, _ = mesh.ray.intersects_location(origins, directions, multiple_hits=True)
    out = np.full(len(origins), np.inf)
    for loc, ray in zip(locations, index_ray, strict=True):
        out[ray] = min(out[ray], float(np.dot(loc - origins[ray], directions[ray])))
    return out


def hole_centre(mesh: trimesh.Trimesh, x: float, y: float, z: float) -> tuple[float, float, float]:
    """Centre (x, y) and radius of the round hole around (x, y) at height z: 36 horizontal rays
    from (x, y) to its wall, then a least-squares circle through the hits."""
    angles = np.linspace(0, 2 * np.pi, 36, endpoint=False)
    directions = np.column_stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)])
    origins = np.tile([x, y, z], (len(angles), 1))
    d = first_hits(mesh, origins, directions)
    assert np.isfinite(d).all(), f"no wall around ({x}, {y}, {z})"
    px, py = x + d * directions[:, 0], y + d * directions[:, 1]
    a = np.column_stack([px, py, np.ones_like(px)])
    (cx2, cy2, c), *_ = np.linalg.lstsq(a, px**2 + py**2, rcond=None)
    cx, cy = cx2 / 2, cy2 / 2
    return float(cx), float(cy), float(np.sqrt(c + cx**2 + cy**2))


def thinnest_wall(mesh: trimesh.Trimesh) -> float:
    """Smallest wall thickness: from every face's centre, straight into the solid along the
    inward normal, to where the ray leaves it."""
    normals = mesh.face_normals
    origins = mesh.triangles_center - normals * 1e-4
    d = first_hits(mesh, origins, -normals)
    assert np.isfinite(d).all(), "a ray went into the solid and never left: not a closed mesh"
    return float(d.min())


# -- the measures can fail ----------------------------------------------------------------------


def test_the_wall_measure_sees_a_1_mm_plate() -> None:
    plate = trimesh.creation.box(extents=(20.0, 20.0, 1.0))
    assert thinnest_wall(plate) == pytest.approx(1.0, abs=1e-3)


def test_the_hole_measure_sees_an_offset_hole(tmp_path: Path) -> None:
    block = Pos(0, 0, 0) * Cylinder(10, 5) - Pos(0.8, -0.3, 0) * Cylinder(2, 10)
    cx, cy, r = hole_centre(mesh_of(block, tmp_path, "offset"), 0.0, 0.0, 0.0)
    assert (cx, cy, r) == pytest.approx((0.8, -0.3, 2.0), abs=0.02)


# -- the solenoid bridge ------------------------------------------------------------------------


@pytest.mark.parametrize("name", BRIDGES)
def test_the_bridge_is_watertight_and_no_wall_is_under_1_2_mm(
    name: str, bridge_meshes: dict[str, trimesh.Trimesh]
) -> None:
    mesh = bridge_meshes[name]
    assert mesh.is_watertight and mesh.is_winding_consistent and mesh.volume > 0
    assert thinnest_wall(mesh) >= 1.2 - 1e-3


@pytest.mark.parametrize("name", BRIDGES)
def test_each_plunger_lands_on_its_key_centre(
    name: str, bridge_meshes: dict[str, trimesh.Trimesh]
) -> None:
    b, mesh = BRIDGES[name], bridge_meshes[name]
    body_bottom = b.key_top + b.rest_gap + b.plunger_out  # the solenoid rests here
    for i in range(4):
        key_x = (i - 1.5) * b.key_pitch  # keys centred on x = 0, at y = 0
        # the plunger's hole through the pocket floor
        cx, cy, r = hole_centre(mesh, key_x, 0.0, body_bottom - b.floor / 2)
        assert abs(cx - key_x) <= AXIS_TOLERANCE and abs(cy) <= AXIS_TOLERANCE, (name, i)
        assert r == pytest.approx(b.plunger_d / 2 + 1.0, abs=0.1)
        # the pocket that holds the body: centred on the same axis
        z = body_bottom + 2
        d = first_hits(
            mesh,
            np.tile([key_x, 0.0, z], (4, 1)),
            np.array([[1.0, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]]),
        )
        assert abs(d[0] - d[1]) / 2 <= AXIS_TOLERANCE and abs(d[2] - d[3]) / 2 <= AXIS_TOLERANCE
        assert d[0] + d[1] == pytest.approx(b.body_w + 2 * b.clearance, abs=0.05)
        # the floor the body rests on: the plunger's tip hangs rest_gap over the key top
        corner = np.array([[key_x + b.body_w / 2 - 0.5, 0.0, body_bottom + 5]])
        (drop,) = first_hits(mesh, corner, np.array([[0.0, 0, -1]]))
        tip = body_bottom + 5 - drop - b.plunger_out
        assert tip == pytest.approx(b.key_top + b.rest_gap, abs=0.05)
        assert b.stroke >= b.key_travel + b.rest_gap


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"key_pitch": 14.0}, "wall between two solenoid pockets"),
        ({"stroke": 5.0}, "cannot push a key"),
        ({"wall": 1.0}, "at least 1.2 mm"),
        ({"toy_width": 60.0}, "narrower than the key row"),
    ],
)
def test_a_bridge_that_cannot_work_is_refused(change: dict[str, float], reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        mounts.Bridge(**change).part()  # type: ignore[arg-type]


# -- the camera arm -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ARMS)
def test_the_camera_looks_down_on_the_landing_area_from_250_to_300_mm(
    name: str, arm_meshes: dict[str, trimesh.Trimesh]
) -> None:
    arm, mesh = ARMS[name], arm_meshes[name]
    assert 250 <= arm.camera_height <= 300
    # the lens hole is over the landing area's centre, at (reach, 0)
    cx, cy, r = hole_centre(mesh, arm.reach, 0.0, arm.camera_height + arm.plate / 2)
    assert abs(cx - arm.reach) <= AXIS_TOLERANCE and abs(cy) <= AXIS_TOLERANCE
    assert r == pytest.approx(arm.lens_d / 2, abs=0.1)
    # the camera board's face (the plate's underside) is camera_height above the table
    (up,) = first_hits(mesh, np.array([[arm.reach + 8, 0.0, 100.0]]), np.array([[0.0, 0, 1]]))
    assert 100 + up == pytest.approx(arm.camera_height, abs=0.5)
    # the dowel, cut to rod_length, stands on the base plate and reaches the head's ceiling
    (ceiling,) = first_hits(mesh, np.array([[0.0, 0, arm.plate + 1]]), np.array([[0.0, 0, 1]]))
    assert arm.plate + 1 + ceiling - arm.plate == pytest.approx(arm.rod_length, abs=0.5)


@pytest.mark.parametrize("name", ARMS)
def test_the_camera_parts_are_watertight_and_no_wall_is_under_1_2_mm(
    name: str, arm_meshes: dict[str, trimesh.Trimesh], tmp_path: Path
) -> None:
    arm = ARMS[name]
    for part in (arm.base_part(), arm.head_part()):
        mesh = mesh_of(part, tmp_path, "part")
        assert mesh.is_watertight and mesh.volume > 0
        assert thinnest_wall(mesh) >= 1.2 - 1e-3


def test_a_camera_outside_250_to_300_mm_is_refused() -> None:
    with pytest.raises(ValueError, match="250-300"):
        mounts.CameraArm(camera_height=320.0).head_part()


# -- the committed files ------------------------------------------------------------------------


def test_the_committed_stls_are_current_and_watertight(tmp_path: Path) -> None:
    made = mounts.parts_to_print()
    assert sorted(p.stem for p in mounts.STL.glob("*.stl")) == sorted(made)
    for name, shape in made.items():
        committed = trimesh.load(mounts.STL / f"{name}.stl", force="mesh")
        fresh = mesh_of(shape, tmp_path, name)
        assert committed.is_watertight, name
        np.testing.assert_allclose(committed.bounds, fresh.bounds, atol=0.01, err_msg=name)
        assert committed.volume == pytest.approx(fresh.volume, rel=1e-3), (
            f"{name}.stl is stale: run python -m hardware.design"
        )


def test_the_renders_are_small_pngs_of_each_part(tmp_path: Path) -> None:
    for stl in sorted(mounts.STL.glob("*.stl")):
        png = mounts.RENDERS / f"{stl.stem}.png"
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) < 100_000, png.name
    made = mounts.render(mounts.STL / "solenoid_bridge.stl", tmp_path / "bridge.png")
    assert made.read_bytes()[16:24] == (mounts.RENDERS / "solenoid_bridge.png").read_bytes()[16:24]


def test_the_mounts_command_writes_a_makers_own_stls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's example, run as written (its output folder moved to a scratch one)."""
    readme = (mounts.HARDWARE / "README.md").read_text(encoding="utf-8")
    (line,) = [
        x for x in readme.splitlines() if x.startswith(".venv/bin/python -m hardware.design.mounts")
    ]
    args = line.split()[3:]
    assert args[:2] == ["--out", "my-stl"]
    assert mounts.main(["--out", str(tmp_path), *args[2:]]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "camera_base.stl",
        "camera_head.stl",
        "solenoid_bridge.stl",
    ]
    assert f"cut to {mounts.CameraArm().rod_length:.0f} mm" in capsys.readouterr().out
    mine = trimesh.load(tmp_path / "solenoid_bridge.stl", force="mesh")
    assert mine.is_watertight
    assert mine.bounds[1][2] < trimesh.load(mounts.STL / "solenoid_bridge.stl").bounds[1][2]
    with pytest.raises(SystemExit):
        mounts.main(["--out", str(tmp_path), "key_pitch=12"])
    assert "wall between two solenoid pockets" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        mounts.main(["--out", str(tmp_path), "key_pich=28"])
    assert "expected NAME=MM" in capsys.readouterr().err
