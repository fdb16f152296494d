"""``python3 -m guild_client``: see :mod:`guild_client.cli`."""

import sys

from guild_client.cli import main

if __name__ == "__main__":
    sys.exit(main())
