"""SKiDL opens its log files (``skidl_REPL.log`` and ``.erc``) in the working directory when
it is imported, and deletes them on a circuit's first ``no_files``. Two pytest processes in
one checkout (``pytest -n 2``) would share those two names: the second delete fails with
FileNotFoundError. So each process imports it (through ``hardware.design.circuit``, which
puts the logger class back) in a folder of its own and stops the file output there; every
later build then has no file to delete. The circuits built are the same."""

from __future__ import annotations

import importlib
import importlib.util
import os
import tempfile

if importlib.util.find_spec("skidl") is not None:  # else tools.require_hardware_tools says so
    _here = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="skidl-") as _own:
        os.chdir(_own)
        try:
            # the circuit module first: it keeps the logger class SKiDL's import replaces
            importlib.import_module("hardware.design.circuit")
            importlib.import_module("skidl.logger").stop_log_file_output()
        except ImportError:  # another hardware tool missing: the tests' own check says which
            pass
        finally:
            os.chdir(_here)
