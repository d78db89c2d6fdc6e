import gc

from leaderboard import create_app
from leaderboard.web.warmup import warm_web_process

app = create_app()
# Before the first request: templates compiled, plotly.js gzipped, the first pages' queries
# compiled, so that no reader pays for them.
warm_web_process(app)
# What start-up made (modules, templates) lives as long as the process: out of the
# collector's sight, a full collection during a request walks only what requests made.
gc.freeze()
