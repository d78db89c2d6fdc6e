import gc

from leaderboard import compile_templates, create_app
from leaderboard.services.ranking import charts

app = create_app()
compile_templates(app)  # before the first request: no reader pays for compiling a page
charts.warm()  # nor for plotly's template and colour scale
# What start-up made (modules, templates) lives as long as the process: out of the
# collector's sight, a full collection during a request walks only what requests made.
gc.freeze()
