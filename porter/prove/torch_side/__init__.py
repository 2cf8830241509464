"""The torch side of the prove flow: what ``.venv-torch`` runs (torch, numpy and the standard
library only, plus the prove modules shared by both sides: ``common``, ``spec``, ``checkpoint``,
``checkpoint_files``, ``workspace``)."""
