"""Configuration: .tflint.yaml discovery and validation, presets, plugins."""
