"""Competitors run in their own virtual environments, through subprocesses."""
