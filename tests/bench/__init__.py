"""Benchmarks: ``make bench`` runs every ``bench_*.py`` module's ``main()`` here, in name order.

Each prints its own numbers and, where there is a baseline, the ratio against it measured in the
same process. Nothing here asserts a duration.
"""
