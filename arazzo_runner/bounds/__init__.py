"""Bounds on work: the run's deadline (`deadline`), the time and memory of one evaluation cut short by it
(`budget`), the default limits the command line shows without importing anything else (`limits`),
the one bounded matcher every pattern goes through (`patterns`), and a response body's Content-Encoding undone
piece by piece so a byte limit counts decoded bytes (`decoding`). A leaf below the pipeline: it imports
nothing of the engine but the evaluation worker's client, for what only a kill can stop."""
