"""One blueprint per audience: public, account, api (/api/v1), admin (/admin)."""
