"""Process-lifetime policies: forking helpers, garbage-collector and exit tricks, and lazily compiled
patterns (what keeps start-up cheap, with `tflint.records`), in one documented place."""
