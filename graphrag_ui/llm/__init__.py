"""The model layer: one litellm client, answers, LightRAG keywords, the answer cache and model settings."""
