"""The team's servers an index may live on: the PostgreSQL catalog and the Chroma vector server."""
