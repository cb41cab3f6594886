"""The box's game is a component of its own: the service hosts tables and knows no game."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from controller.boxplay import BoxPlay
from tests.service.conftest import make_config

SERVICE = Path(__file__).resolve().parents[2] / "controller" / "service.py"


def test_the_service_module_imports_no_game():
    imported = []
    for node in ast.walk(ast.parse(SERVICE.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            imported.append(node.module or "")
        elif isinstance(node, ast.Import):
            imported += [alias.name for alias in node.names]
    assert not [m for m in imported if "sauteur" in m or "boxplay" in m or "teufel" in m]
    code = (
        "import sys, controller.service\n"
        "games = ('sauteur', 'teufel', 'tails')\n"  # the generic games.* modules may load
        "loaded = [m for m in sys.modules if m.split('.')[:3] in "
        "[['controller', 'games', g] for g in games]]\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_box_game_comes_from_the_sauteur_declaration(tmp_path):
    from controller.service import Service

    svc = Service(make_config(tmp_path))
    assert isinstance(svc.box_play, BoxPlay) and svc.box_play.kind == "sauteur"
