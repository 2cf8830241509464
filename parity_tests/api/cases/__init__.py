"""Per-API parity cases, one module per area; each module defines ``CASES``."""
