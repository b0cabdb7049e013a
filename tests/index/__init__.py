"""Importers, the builder, storage, catalogs and vector servers, the samples."""
