"""The RQ scoring worker: ``main.py`` runs it, ``jobs.py`` holds the job functions."""
