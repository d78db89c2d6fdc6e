"""Service functions: queries and rules, called by views, commands and jobs."""
