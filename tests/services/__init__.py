"""Services shared by the CLI and the UI."""
