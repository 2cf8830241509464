"""shims.optim (see docs/ARCHITECTURE.md)."""
__all__ = []
