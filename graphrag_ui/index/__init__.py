"""The canonical index: data model, storage, importers and the builder."""
