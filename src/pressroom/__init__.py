"""Composition root: settings, the app factory and the CLI. Wires db and graph together."""
