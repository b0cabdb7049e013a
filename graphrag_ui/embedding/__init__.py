"""The embedders (bundled, ONNX, litellm, hash), their vector checks and their worker processes."""
