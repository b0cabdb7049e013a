"""The answer and its stages: streamed answers, map-reduce and DRIFT runs, citations, the judge."""
