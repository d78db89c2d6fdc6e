from leaderboard import create_app

app = create_app()
