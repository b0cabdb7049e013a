"""Every mode against the real libraries' goldens, and retrieval's core."""
