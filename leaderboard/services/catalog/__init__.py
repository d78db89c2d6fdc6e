"""What is ranked: benchmark splits, leaderboards, the demo, reference and reported rows."""
