"""Benchmarks for Pressroom (the README's Benchmarks section). Not part of the test suite.

Run from the project root: `.venv/bin/python -m bench.run` (or `--quick`).
"""
