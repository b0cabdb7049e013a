"""The canonical index: data model, storage, importers, the builder, and ``servers`` (the team's PostgreSQL
catalog and Chroma server an index may live on)."""
