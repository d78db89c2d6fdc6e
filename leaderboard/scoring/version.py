"""Version of the scoring rules; bump it whenever any number could change.

1.2.0: Jabbari et al. (2010) best1 and coverage P/R/F (and coverage F at 1..10) on every
generative board; oot's attempted counts kept apart from best's (LS07 scores them from two
files). No SWORDS number of 1.1.0 changes. 1.1.0: NLTK 3.5's lemmatizer (repeated detachment
rounds), GAP -1 for a target with no positive gold weight. 1.0.0: first version.
"""

SCORER_VERSION = "1.2.0"
