"""shims.checkpoint (see docs/ARCHITECTURE.md)."""
__all__ = []
