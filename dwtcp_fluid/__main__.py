"""``python -m dwtcp_fluid``: the same program as ``dwtcp-fluid``."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
