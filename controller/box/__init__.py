"""The box's hardware: one interface (:class:`controller.box.base.Box`), several backends.

- ``gpio``: gpiozero pins (``lgpio`` on a Pi, ``rpigpio`` on older Pis, ``mock`` on a laptop);
- ``simulated``: the gpio backend on gpiozero's ``MockFactory`` with a simulated toy;
- ``serial`` / ``virtual``: a Pico co-processor over USB serial (or the firmware's own
  code running on the host behind a virtual link).

The rest of the software cannot tell which one it has.
"""
