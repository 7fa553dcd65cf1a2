"""Process-lifetime policies: forking helpers, garbage-collector and exit tricks, in one documented place."""
