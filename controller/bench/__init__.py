"""Benchmarks: ``diablotin bench <area>`` runs ``controller.bench.<area>.main``."""
