"""Runs the firmware's ``test_*`` functions under MicroPython or CPython, without pytest.

Prints ``PASS module.test``/``FAIL module.test: error`` lines, then ``N passed, N failed``.
"""

import sys


def _report(exc: Exception) -> None:
    if hasattr(sys, "print_exception"):
        sys.print_exception(exc)
    else:
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__)


def run(module_names: list[str]) -> tuple[int, int]:
    """Run every test function of the named modules; returns (passed, failed)."""
    passed = 0
    failed = 0
    for name in module_names:
        module = __import__(name)
        for attr in sorted(dir(module)):
            if not attr.startswith("test_"):
                continue
            test = getattr(module, attr)
            try:
                test()
            except Exception as exc:
                failed += 1
                print(f"FAIL {name}.{attr}: {exc!r}")
                _report(exc)
            else:
                passed += 1
                print(f"PASS {name}.{attr}")
    print(f"{passed} passed, {failed} failed")
    return passed, failed


MODULES = ["fwtest_wire", "fwtest_core", "fwtest_pico", "fwtest_fuzz"]
