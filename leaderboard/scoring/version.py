"""Version of the scoring rules; bump it whenever any number could change."""

SCORER_VERSION = "1.0.0"
