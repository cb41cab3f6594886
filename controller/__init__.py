"""Diablotin: a Raspberry Pi games box for three old "devil" games."""

__version__ = "0.1.0"
