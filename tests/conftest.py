"""Shared fixtures for the converter's unit tests."""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository root."""
    return ROOT
