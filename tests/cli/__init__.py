"""The ``python -m graphrag_ui`` subcommands."""
