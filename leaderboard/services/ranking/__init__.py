"""Public rankings: snapshots and their read path, tables, statistics, charts, exports."""
