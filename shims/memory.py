"""shims.memory (see docs/ARCHITECTURE.md)."""
__all__ = []
