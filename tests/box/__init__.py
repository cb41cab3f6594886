"""Tests of the box: pins, debouncing, safety, gpio on mock pins, the simulated toy, the watch."""
