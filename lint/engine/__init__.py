"""Runs the rules over a graph index: findings, suppressions, parallelism."""
