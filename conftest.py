"""Test configuration shared by tests/ and parity_tests/.

Jittor's import-time settings for this machine come from :mod:`porter.machine.env` (the one
place that decides them; a standard-library leaf, so converter-only tests do not pay for
importing Jittor); they are applied before any test module imports Jittor.
"""
from porter.machine import env

env.apply()
