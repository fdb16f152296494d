"""Tests of guild_client.  From clients/python: ``python3 -m unittest -v``.

Set ``GUILD_SOCKET`` to the socket of a running guildd to run the live tests too.
"""
