"""Rankers: long-lived processes that turn stored results into each board's snapshot.

They read trusted data only (stored results), never uploaded bytes."""
