"""Scenarios: a versioned manifest plus fixture files in the formats the boundaries really produce."""
