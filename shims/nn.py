"""shims.nn (see docs/ARCHITECTURE.md)."""
__all__ = []
