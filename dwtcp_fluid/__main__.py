"""``python -m dwtcp_fluid``: the same program as ``dwtcp-fluid``."""

from .cli import entry

if __name__ == "__main__":
    entry()
