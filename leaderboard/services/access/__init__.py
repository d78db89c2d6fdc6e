"""Who may do what: accounts, sign-in sessions, API tokens, e-mail verification."""
