"""Benchmarks: scripts that print tables and save plots for the docs."""
