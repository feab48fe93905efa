"""Helpers for ``tools/bench.py``: streaming clients, server processes, raw engine, report."""
