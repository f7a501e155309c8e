"""Recorded-fixture twins of the boundaries: each loads its part of a scenario and replays it strictly.

A request the scenario does not hold raises ``ReplayMiss`` naming what was asked and what the
scenario offers; a fake never invents a default.
"""
