"""Infrastructure every home uses: the queue and Redis, locks, child processes and
their supervisor, logs, mail, migrations, the running server's pointer."""
