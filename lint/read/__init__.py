"""Bytes to Artifact: the only layer that reads graph files: walking, sniffing, text and binary readers, positions."""
