"""Submissions in, results out: intake, quotas, scoring results, moderation, re-scoring."""
