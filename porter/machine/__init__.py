"""The machine probes: which Jittor settings this machine needs (:mod:`.env`), whether a usable
oneDNN is in place (:mod:`.onednn`), what a CUDA build of Jittor needs (:mod:`.cuda_extras`).

Leaves: standard library only, so every interpreter (``.venv``, ``.venv-torch``, the system's
``python3`` the Makefile runs, a doctor checking a broken install) imports them without Jittor.
"""
