"""shims.ops (see docs/ARCHITECTURE.md)."""
__all__ = []
