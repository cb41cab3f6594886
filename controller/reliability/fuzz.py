"""schemathesis against a running dashboard's own OpenAPI document (a dev dependency).

:func:`run_schemathesis` runs its command line (``python -m schemathesis.cli run``) on
``/api/openapi.json`` with the referee PIN in a header, so the referee's requests are
generated and sent too, for ``seconds`` (fuzzing and stateful sequences repeat until the
time is spent). The checks are :data:`CHECKS`: no 5xx, every status, content type,
header and body as the document says, schema-invalid requests refused, 405 with
``Allow``, and a deleted game gone / a created one there. Left out, with reasons:

- ``ignored_auth``: the PIN goes in every request (``-H``), so schemathesis cannot take it
  away and reads every answer as "invalid credentials accepted"; the gate itself is
  tested in ``tests/web/test_security.py``;
- ``positive_data_acceptance``: the document gives shapes, not the rules; a request of
  the right shape the rules refuse (a step past the end, an empty title) is a 400/409 by
  design.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
    "negative_data_rejection",
    "unsupported_method",
    "use_after_free",
    "ensure_resource_availability",
)
"""The schemathesis checks run (see the module doc for the two left out)."""

SYSTEM_OPERATIONS = ("/api/box/restart", "/api/box/poweroff", "/api/box/clock")
"""Paths that run system commands (systemctl, timedatectl): left out against a real server."""


_OPERATION = re.compile(r"^_{3,} (\S+ \S+) _{3,}$")


@dataclass
class FuzzRun:
    """One schemathesis run: ``cases`` generated, ``failures`` (unique), its exit status,
    the end of its output and ``failed``: each failure in one line (:func:`failure_lines`)."""

    cases: int
    failures: int
    returncode: int
    output: str
    failed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and self.failures == 0 and self.cases > 0


def run_schemathesis(
    base_url: str,
    pin: str,
    seconds: float,
    *,
    seed: int = 1,
    exclude_paths: tuple[str, ...] = (),
    report_dir: Path | None = None,
) -> FuzzRun:
    """Run schemathesis on ``base_url`` + ``/api/openapi.json`` for about ``seconds`` (one
    worker); raises ``ModuleNotFoundError`` when schemathesis is not installed (``pip
    install 'diablotin[dev]'``). ``exclude_paths``: operations left out by path."""
    import schemathesis  # noqa: F401  (a clear error when the dev extra is missing)

    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "run",
        f"{base_url.rstrip('/')}/api/openapi.json",
        "--header",
        f"X-Referee-Pin: {pin}",
        "--checks",
        ",".join(CHECKS),
        "--max-time",
        str(max(1, round(seconds))),
        "--workers",
        "1",
        "--seed",
        str(seed),
        "--request-timeout",
        "20",
        "--suppress-health-check",
        "all",
    ]
    for path in exclude_paths:
        command += ["--exclude-path", path]
    with tempfile.TemporaryDirectory(prefix="diablotin-schemathesis-") as scratch:
        if report_dir is not None:
            command += ["--report", "junit", "--report-dir", str(report_dir)]
        done = subprocess.run(  # its own folder: schemathesis keeps state in .schemathesis/
            command,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
            check=False,
            cwd=scratch,
        )
    output = done.stdout + done.stderr
    found = re.search(r"(\d+) generated, (?:(\d+) found)?", output)
    cases = int(found.group(1)) if found else 0
    failures = int(found.group(2)) if found and found.group(2) else 0
    return FuzzRun(cases, failures, done.returncode, output[-20000:], failure_lines(output))


def failure_lines(output: str) -> list[str]:
    """Each failure in schemathesis' output as one line: its checks, the operation and the
    request that reproduces it (``curl …``, at most 600 characters), so a report still
    names them once the run's files are gone."""
    found: list[str] = []
    operation, checks = "?", list[str]()
    for line in output.splitlines():
        header = _OPERATION.match(line.strip())
        if header:
            operation, checks = header.group(1), []
        elif line.startswith("- "):
            checks.append(line[2:].strip())
        elif line.strip().startswith("curl ") and checks:
            found.append(f"{'; '.join(checks)} in {operation}: {line.strip()[:600]}")
            checks = []
    return found
