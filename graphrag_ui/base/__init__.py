"""The bottom layer: errors, translations, redaction, tokens, the one stopwatch, terminal and progress output."""
