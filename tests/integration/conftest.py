"""Fixtures live in tests/support.py (shared with the end-to-end tests); these names are
re-exported for the tests that import helpers from here."""

from tests.support import SUBSCRIBER_BUFFER, Client, GraphQLError, Shop, free_port, gid

__all__ = ["SUBSCRIBER_BUFFER", "Client", "GraphQLError", "Shop", "free_port", "gid"]
