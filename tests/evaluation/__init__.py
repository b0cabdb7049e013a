"""Question sets, metrics, runs and the cluster executor."""
