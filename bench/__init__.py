"""Benchmarks for Pressroom (DESIGN.md section 9). Not part of the test suite.

Run from the project root: `.venv/bin/python -m bench.run` (or `--quick`).
"""
