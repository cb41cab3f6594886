"""Package data (controller.data.hardware): read through controller.data, never imported by
the service. The design tools in ``hardware/design/`` (``python -m hardware.design``, the
[hardware] extra) run from a checkout only; they are not in the wheel."""
