"""The convert flow: torch source in, Jittor source and a report out (``jtport convert``).

:mod:`.engine` walks a tree, :mod:`.pipeline` converts one file (names, rules, leftovers, imports);
the table of torch APIs is the leaf :mod:`porter.mapping`.
"""
