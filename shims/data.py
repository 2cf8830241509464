"""shims.data (see docs/ARCHITECTURE.md)."""
__all__ = []
