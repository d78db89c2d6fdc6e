"""Version of the scoring rules; bump it whenever any number could change.

1.1.0: NLTK 3.5's lemmatizer (repeated detachment rounds), GAP -1 for a target with no
positive gold weight. 1.0.0: first version.
"""

SCORER_VERSION = "1.1.0"
