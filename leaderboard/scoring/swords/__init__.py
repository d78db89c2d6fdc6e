"""SWORDS (Lee et al. 2021) scored as its original scorer scores it; see README.md here."""
