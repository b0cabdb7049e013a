"""What a mode declares: its spec and parameter schema (each reference field once), the typed parameters, what it needs from an index, the model stages it asks for and its answer prompt."""
