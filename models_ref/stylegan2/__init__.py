"""StyleGAN2-ADA in torch, written by us in the idioms of NVlabs' stylegan2-ada-pytorch.

Same constructor arguments, ``state_dict`` keys and shapes as upstream's ``training/networks.py``
for the same arguments; the custom ops use their pure-torch reference paths (``impl='ref'``:
``bias_act``, ``upfirdn2d``, ``conv2d_resample``, no CUDA plugins, no ``conv2d_gradfix``).
Left out on purpose (no numerical effect): ``persistence`` decorators, profiler
``record_function`` scopes, ``training_stats``, DDP syncing, ``misc.suppress_tracer_warnings``.
"""
