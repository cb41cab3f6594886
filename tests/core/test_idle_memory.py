"""The idle server stays small for a Pi Zero 2 W (512 MB): numpy (the rule-A tables), OpenCV
(the camera) and Markdown (the rules pages) are imported when first needed, not at start."""

from __future__ import annotations

import subprocess
import sys

IDLE = """
import sys, tempfile
from pathlib import Path
from controller.config import Config
from controller.service import Service
from controller.web import create_app
config = Config(data_dir=Path(tempfile.mkdtemp()))
config.server.referee_pin = "1234"
service = Service(config)
service.start()
client = create_app(service).test_client()
gid = service.new_game("sauteur", {"rule": "B"})
for path in ("/", "/api/games", f"/games/{gid}", "/stats", "/box"):
    assert client.get(path).status_code == 200, path
service.stop()
print(" ".join(sorted(m for m in ("numpy", "cv2", "markdown") if m in sys.modules)))
"""


def test_the_idle_server_leaves_the_heavy_modules_alone():
    out = subprocess.run(
        [sys.executable, "-c", IDLE], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == ""
