"""Pressroom's version, for every door that tells it (the command, `/version`, the schema's
`apiVersion`): pyproject.toml's, read from the installed project's metadata so that the
number is written in one place. Semantic versioning of the API: scripts/check-breaking
refuses a breaking schema change unless the major part moved."""

from importlib.metadata import version

VERSION = version("pressroom")
