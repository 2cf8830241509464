"""``python -m porter.doctor``: the same as ``jtport doctor``."""
import sys

from . import main

sys.exit(main())
